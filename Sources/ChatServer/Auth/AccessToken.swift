import Hashing
import Support

/// Who an access token speaks for, and until when.
struct AccessTokenClaims: Equatable, Sendable {
  var userId: String
  var deviceId: String
  var expiresAt: Timestamp

  var device: DeviceKey { DeviceKey(userId: userId, deviceId: deviceId) }
}

/// Signs and checks access tokens.
///
/// A token is `base64url(payload) "." base64url(HMAC-SHA256(key, base64url(payload)))`, the
/// payload being `v1`, the user id, the device id and the expiry in milliseconds, one per
/// line (ids cannot hold a newline). Access tokens are stateless: nothing is stored, and they
/// cannot be revoked before they expire; the short TTL (default 900 s) bounds that.
struct AccessTokenSigner: Sendable {
  private let key: [UInt8]

  init(key: SigningKey) {
    self.key = key.bytes
  }

  func sign(_ claims: AccessTokenClaims) -> String {
    let payload =
      "v1\n\(claims.userId)\n\(claims.deviceId)\n\(claims.expiresAt.millisecondsSince1970)"
    let encodedPayload = Base64URL.encode(Array(payload.utf8))
    let signature = Crypto.hmacSHA256(key: key, message: Array(encodedPayload.utf8))
    return encodedPayload + "." + Base64URL.encode(signature)
  }

  /// The claims of a well-formed, correctly signed token that has not expired at `now`;
  /// nil otherwise (the caller answers 401 without saying which).
  func verify(_ token: String, now: Timestamp) -> AccessTokenClaims? {
    // Byte-level parsing: this runs on every request.
    let bytes = Array(token.utf8)
    guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else { return nil }
    let encodedPayload = Array(bytes[..<dot])
    guard let signature = Base64URL.decode(utf8: Array(bytes[(dot + 1)...])) else { return nil }
    let expected = Crypto.hmacSHA256(key: key, message: encodedPayload)
    guard Crypto.constantTimeEquals(signature, expected),
      let payload = Base64URL.decode(utf8: encodedPayload)
    else { return nil }
    let fields = payload.split(separator: 0x0A, omittingEmptySubsequences: false).map {
      String(decoding: $0, as: UTF8.self)
    }
    guard fields.count == 4, fields[0] == "v1",
      Identifiers.isValidUserID(fields[1]), Identifiers.isValidDeviceID(fields[2]),
      let milliseconds = Int64(fields[3])
    else { return nil }
    let claims = AccessTokenClaims(
      userId: fields[1], deviceId: fields[2],
      expiresAt: Timestamp(millisecondsSince1970: milliseconds))
    return now < claims.expiresAt ? claims : nil
  }
}

import ChatIdentifiers
import Hashing
import Support

/// Who an access token speaks for, until when, and from which sign-in.
struct AccessTokenClaims: Equatable, Sendable {
  var userId: String
  var deviceId: String
  var expiresAt: Timestamp
  /// The refresh-token family (one sign-in and its rotations) it was issued from; nil for a
  /// `v1` token, signed before families existed (it expires within `accessTokenTTL` of the
  /// upgrade, and cannot be revoked before).
  var family: String?

  var device: DeviceKey { DeviceKey(userId: userId, deviceId: deviceId) }
}

/// Signs and checks access tokens.
///
/// A token is `base64url(payload) "." base64url(HMAC-SHA256(key, base64url(payload)))`, the
/// payload being `v2`, the user id, the device id, the expiry in milliseconds and the
/// refresh-token family, one per line (ids cannot hold a newline). A `v1` payload (no family)
/// is still read. Nothing is stored per token: the service refuses the tokens of a revoked
/// family by their `family` claim (`AccessTokenCache`), and the short TTL (default
/// 900 s) bounds everything else.
struct AccessTokenSigner: Sendable {
  private let key: [UInt8]

  init(key: SigningKey) {
    self.key = key.bytes
  }

  func sign(_ claims: AccessTokenClaims) -> String {
    var payload =
      "\(claims.userId)\n\(claims.deviceId)\n\(claims.expiresAt.millisecondsSince1970)"
    if let family = claims.family {
      payload = "v2\n" + payload + "\n" + family
    } else {
      payload = "v1\n" + payload
    }
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
    guard (fields.count == 4 && fields[0] == "v1") || (fields.count == 5 && fields[0] == "v2"),
      UserID(rawValue: fields[1]) != nil, DeviceID(rawValue: fields[2]) != nil,
      let milliseconds = Int64(fields[3])
    else { return nil }
    let claims = AccessTokenClaims(
      userId: fields[1], deviceId: fields[2],
      expiresAt: Timestamp(millisecondsSince1970: milliseconds),
      family: fields.count == 5 ? fields[4] : nil)
    return now < claims.expiresAt ? claims : nil
  }
}

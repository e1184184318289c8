import ChatAPI
import Support

/// Which access tokens are good: the signature checked once per token, and the refresh-token
/// families revoked.
///
/// Rules a reader could not guess:
/// - A client sends the same token for up to `accessTokenTTL`, so the HMAC is computed once per
///   token, not per request; the claims are kept (at most `limit` tokens, then all are
///   forgotten at once) and the expiry is still checked every time.
/// - A token of a revoked family is refused until that family's `forgetAfter`, the time after
///   which none of its access tokens can be unexpired; the entry may go then.
/// - The revoked families are the store's: the service loads them (`load(_:)`) before the
///   first request that needs a token, so a restart keeps them, and again after the node
///   relay was cut (`forgetLoaded()`), as a revocation may have been missed.
struct AccessTokenCache {
  let signer: AccessTokenSigner
  /// Tokens whose signature was checked, with their claims.
  private var verified: [String: AccessTokenClaims] = [:]
  private let limit: Int
  /// Revoked families, with the time after which the entry may go.
  private var revoked: [String: Timestamp] = [:]
  /// Whether `revoked` holds the store's.
  private(set) var isLoaded = false

  init(signer: AccessTokenSigner, limit: Int = 4_096) {
    self.signer = signer
    self.limit = limit
  }

  /// The claims of the token in an `Authorization: Bearer` header when it is valid, unexpired
  /// and of a family not revoked; nil otherwise.
  mutating func claims(ofHeader header: String?, at now: Timestamp) -> AccessTokenClaims? {
    guard let header, let token = Self.bearerToken(in: header),
      let claims = verifiedClaims(of: token, now: now),
      !isRevoked(claims.family, at: now)
    else { return nil }
    return claims
  }

  func sign(_ claims: AccessTokenClaims) -> String {
    signer.sign(claims)
  }

  /// The store's revoked families, merged with those known already.
  mutating func load(_ families: [RevokedFamily]) {
    for family in families { merge(family) }
    isLoaded = true
  }

  /// The revoked families are read from the store again before the next request.
  mutating func forgetLoaded() {
    isLoaded = false
  }

  /// Refuses the family's tokens until `family.forgetAfter`; forgets families past theirs.
  mutating func revoke(_ family: RevokedFamily, at now: Timestamp) {
    revoked = revoked.filter { now < $0.value }
    merge(family)
  }

  private mutating func merge(_ family: RevokedFamily) {
    revoked[family.family] = max(revoked[family.family] ?? family.forgetAfter, family.forgetAfter)
  }

  private mutating func verifiedClaims(of token: String, now: Timestamp) -> AccessTokenClaims? {
    if let known = verified[token] {
      return now < known.expiresAt ? known : nil
    }
    guard let claims = signer.verify(token, now: now) else { return nil }
    if verified.count >= limit {
      verified.removeAll(keepingCapacity: true)
    }
    verified[token] = claims
    return claims
  }

  private func isRevoked(_ family: String?, at now: Timestamp) -> Bool {
    guard let family, let forgetAfter = revoked[family] else { return false }
    return now < forgetAfter
  }

  private static func bearerToken(in header: String) -> String? {
    let parts = header.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    let token = parts[1].trimmingPrefix(" ")
    return token.isEmpty ? nil : String(token)
  }
}

import ChatAPI
import Hashing
import Support

extension ChatService {
  /// The caller of a request that needs a token: 401 unless `Authorization: Bearer` holds a
  /// valid, unexpired access token; then 429 when the caller's rate limit is spent.
  func authorize(_ request: APIRequest, at now: Timestamp) throws(ServiceError) -> AccessTokenClaims
  {
    guard let header = request.headers["authorization"],
      let token = Self.bearerToken(in: header),
      let claims = verifiedClaims(of: token, now: now)
    else { throw .unauthorized }
    if let wait = rateLimiter?.take(for: claims.userId, at: now) {
      throw ServiceError(.rateLimited, "Too many requests; retry later.", retryAfterSeconds: wait)
    }
    return claims
  }

  /// The claims of a valid, unexpired token: from `verifiedTokens`, else checked by `signer`.
  private func verifiedClaims(of token: String, now: Timestamp) -> AccessTokenClaims? {
    if let known = verifiedTokens[token] {
      return now < known.expiresAt ? known : nil
    }
    guard let claims = signer.verify(token, now: now) else { return nil }
    if verifiedTokens.count >= Self.verifiedTokensLimit {
      verifiedTokens.removeAll(keepingCapacity: true)
    }
    verifiedTokens[token] = claims
    return claims
  }

  private static func bearerToken(in header: String) -> String? {
    let parts = header.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    let token = parts[1].trimmingPrefix(" ")
    return token.isEmpty ? nil : String(token)
  }

  /// `POST /v1/auth/dev-login` (dev mode only): signs in as any valid user and device id.
  func devLogin(_ request: APIRequest, at now: Timestamp) async throws(ServiceError) -> APIResponse
  {
    let login = try RequestBody(request.body).decode(DevLogin.self)
    let owner = TokenOwner(userId: login.userId, deviceId: login.deviceId)
    guard Identifiers.isValidUserID(owner.userId) else {
      throw .badRequest("userId must be 1–64 characters of a-z, 0-9, '.', '_' or '-'.")
    }
    guard Identifiers.isValidDeviceID(owner.deviceId) else {
      throw .badRequest("deviceId must be 1–64 characters of a-z, 0-9, '.', '_' or '-'.")
    }
    let refreshToken = newRefreshToken()
    try await store.saveRefreshToken(
      hash: Crypto.sha256(Array(refreshToken.utf8)), for: owner,
      expiresAt: now + configuration.refreshTokenTTL)
    return tokens(for: owner, refreshToken: refreshToken, at: now)
  }

  /// `POST /v1/auth/refresh`: spends the refresh token (single use) and issues a new pair;
  /// 401 when it is unknown, spent or expired.
  func refresh(_ request: APIRequest, at now: Timestamp) async throws(ServiceError) -> APIResponse {
    let presented = try RequestBody(request.body).decode(Refresh.self).refreshToken
    let replacement = newRefreshToken()
    let owner = try await store.rotateRefreshToken(
      hash: Crypto.sha256(Array(presented.utf8)), at: now,
      replacement: Crypto.sha256(Array(replacement.utf8)),
      replacementExpiresAt: now + configuration.refreshTokenTTL)
    return tokens(for: owner, refreshToken: replacement, at: now)
  }

  /// 256 random bits, base64url: what a client holds. The store keeps only its SHA-256.
  private func newRefreshToken() -> String {
    Base64URL.encode(random.bytes(count: 32))
  }

  private func tokens(for owner: TokenOwner, refreshToken: String, at now: Timestamp) -> APIResponse
  {
    let claims = AccessTokenClaims(
      userId: owner.userId, deviceId: owner.deviceId, expiresAt: now + configuration.accessTokenTTL)
    return .json(
      200,
      Tokens(
        accessToken: signer.sign(claims), refreshToken: refreshToken,
        expiresAt: claims.expiresAt.rfc3339, userId: owner.userId, deviceId: owner.deviceId))
  }
}

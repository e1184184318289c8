import ChatAPI
import ChatIdentifiers
import Hashing
import Support

/// Sign-in, refresh and the checks of every token.
///
/// Each sign-in starts a refresh-token family; each rotation keeps it. A spent refresh token
/// presented again means two parties hold the same chain (a copy was stolen): the whole family
/// is revoked (`ServerStore.rotateRefreshToken`), so neither the thief's nor the user's newer
/// tokens work any more and the device signs in again. The access tokens already issued from
/// the family carry it (`AccessTokenClaims.family`) and are refused from then on
/// (`AccessTokenCache`, which loads them from the store before the first request that needs a
/// token, so a restart keeps them), and the family's live sockets close.
extension ChatService {
  /// The caller of a request that needs a token: 401 unless `Authorization: Bearer` holds a
  /// valid, unexpired access token of a family not revoked; then 429 when the caller's rate
  /// limit is spent. The caller loads the revoked families first (`loadRevokedFamilies()`).
  func authorize(_ request: APIRequest, at now: Timestamp) throws(ServiceError) -> AccessTokenClaims
  {
    guard let claims = tokens.claims(ofHeader: request.headers["authorization"], at: now) else {
      throw ServiceError.unauthorized
    }
    try rates.spend(user: claims.userId, at: now)
    return claims
  }

  /// Reads the revoked families from the store, once: before the first request that needs a
  /// token is authorized. A store that cannot answer is a 503 (nothing is authorized without
  /// them), and the next request tries again. Requests that read at once merge the same rows.
  func loadRevokedFamilies() async throws(ServiceError) {
    guard !tokens.isLoaded else { return }
    let families: [RevokedFamily]
    do {
      families = try await store.revokedFamilies(at: clock.now())
    } catch {
      log.write(LogRecord(.error, "revoked_families_unreadable", [("error", "\(error)")]))
      throw ServiceError.unavailable("the revoked token families could not be read: \(error)")
    }
    tokens.load(families)
  }

  /// Refuses the family's access tokens until `revoked.forgetAfter` (when none of them can be
  /// unexpired any more), and closes its live sockets, all of them `user`'s.
  func revoke(_ revoked: RevokedFamily, of user: String) {
    tokens.revoke(revoked, at: clock.now())
    forgetBudgets(of: fanOut.signOut(revoked.family, of: user))
  }

  /// A family another node revoked (`LiveRelay`).
  package func revokedElsewhere(_ revocation: RelayedRevocation) {
    revoke(revocation.revoked, of: revocation.user)
  }

  /// `POST /v1/auth/dev-login` (dev mode only): signs in as any valid user and device id,
  /// starting a refresh-token family.
  func devLogin(_ request: APIRequest, at now: Timestamp) async throws -> APIResponse {
    let login = try RequestBody(request.body).decode(DevLogin.self)
    let owner = TokenOwner(userId: login.userId, deviceId: login.deviceId)
    guard UserID(rawValue: owner.userId) != nil else {
      throw ServiceError.badRequest("userId must be 1–64 characters of a-z, 0-9, '.', '_' or '-'.")
    }
    guard DeviceID(rawValue: owner.deviceId) != nil else {
      throw ServiceError.badRequest(
        "deviceId must be 1–64 characters of a-z, 0-9, '.', '_' or '-'.")
    }
    let refreshToken = newRefreshToken()
    let family = random.uuidString()
    try await store.saveRefreshToken(
      hash: Crypto.sha256(Array(refreshToken.utf8)), for: owner, family: family,
      expiresAt: now + configuration.refreshTokenTTL)
    return tokens(for: owner, family: family, refreshToken: refreshToken, at: now)
  }

  /// `POST /v1/auth/refresh`: spends the refresh token (single use) and issues a new pair of
  /// the same family; 401 when it is unknown, expired, or spent already. A spent one revokes
  /// its family (see the extension's comment): logged as `refresh_token_reused` with the user,
  /// device and family (never a token) and counted in `/metrics`.
  func refresh(_ request: APIRequest, at now: Timestamp) async throws -> APIResponse {
    let presented = try RequestBody(request.body).decode(Refresh.self).refreshToken
    let replacement = newRefreshToken()
    let rotation = try await store.rotateRefreshToken(
      hash: Crypto.sha256(Array(presented.utf8)), at: now,
      replacement: Crypto.sha256(Array(replacement.utf8)),
      replacementExpiresAt: now + configuration.refreshTokenTTL,
      revocationLasts: configuration.accessTokenTTL)
    switch rotation {
    case .rotated(let owner, let family):
      return tokens(for: owner, family: family, refreshToken: replacement, at: now)
    case .reused(let owner, let revoked):
      metrics.refreshTokenReuses += 1
      log.write(
        LogRecord(
          .warning, "refresh_token_reused",
          [("user", owner.userId), ("device", owner.deviceId), ("family", revoked.family)]))
      revoke(revoked, of: owner.userId)
      fanOut.relay?.forward(RelayedRevocation(revoked: revoked, user: owner.userId))
      throw ServiceError.unauthorized
    }
  }

  /// 256 random bits, base64url: what a client holds. The store keeps only its SHA-256.
  private func newRefreshToken() -> String {
    Base64URL.encode(random.bytes(count: 32))
  }

  private func tokens(
    for owner: TokenOwner, family: String, refreshToken: String, at now: Timestamp
  ) -> APIResponse {
    let claims = AccessTokenClaims(
      userId: owner.userId, deviceId: owner.deviceId,
      expiresAt: now + configuration.accessTokenTTL, family: family)
    return .json(
      200,
      Tokens(
        accessToken: tokens.sign(claims), refreshToken: refreshToken,
        expiresAt: claims.expiresAt.rfc3339, userId: owner.userId, deviceId: owner.deviceId))
  }
}

import ChatAPI
import SQLite
import Support

/// The user and device a refresh token was issued to.
struct TokenOwner: Sendable, Equatable {
  var userId: String
  var deviceId: String
}

extension ServerStore {
  /// Keeps a new refresh token, by its SHA-256 only: a copy of the database signs nobody in.
  func saveRefreshToken(
    hash: [UInt8], for owner: TokenOwner, expiresAt: Timestamp
  ) async throws(ServiceError) {
    try await enqueueWrite { db in
      try db.run(
        """
        INSERT INTO refresh_tokens (token_hash, user_id, device_id, expires_at)
        VALUES (?, ?, ?, ?)
        """, hash, owner.userId, owner.deviceId, expiresAt.millisecondsSince1970)
    }
  }

  /// Spends the refresh token with `hash` and keeps `replacement` in its place, in one
  /// savepoint; 401 when the token is unknown, already spent or expired at `now`.
  func rotateRefreshToken(
    hash: [UInt8], at now: Timestamp, replacement: [UInt8], replacementExpiresAt: Timestamp
  ) async throws(ServiceError) -> TokenOwner {
    try await enqueueWrite { db in
      // One statement spends it: of two nodes rotating one token at once, one finds it
      // unspent (the other waits for its row lock, then finds it spent).
      let found = try db.query(
        """
        UPDATE refresh_tokens SET spent_at = ?
        WHERE token_hash = ? AND spent_at IS NULL AND expires_at > ?
        RETURNING user_id, device_id
        """, now.millisecondsSince1970, hash, now.millisecondsSince1970
      ) { TokenOwner(userId: $0.string(0), deviceId: $0.string(1)) }
      guard let owner = found.first else { throw ServiceError.unauthorized }
      try db.run(
        """
        INSERT INTO refresh_tokens (token_hash, user_id, device_id, expires_at)
        VALUES (?, ?, ?, ?)
        """, replacement, owner.userId, owner.deviceId, replacementExpiresAt.millisecondsSince1970)
      return owner
    }
  }
}

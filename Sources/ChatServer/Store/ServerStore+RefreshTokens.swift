import ChatAPI
import SQLite
import Support

/// The user and device a refresh token was issued to.
struct TokenOwner: Sendable, Equatable {
  var userId: String
  var deviceId: String
}

/// What presenting a refresh token did (`ServerStore.rotateRefreshToken`).
enum RefreshRotation: Sendable, Equatable {
  /// It was unspent: now spent, and its replacement kept in the same family.
  case rotated(TokenOwner, family: String)
  /// It had been spent already: someone else holds a copy (the theft signal). Its whole
  /// family is revoked: every token of it is gone, and the family is recorded in
  /// `token_family_revocations` until `revoked.forgetAfter`.
  case reused(TokenOwner, revoked: RevokedFamily)
}

/// A family whose access tokens the service refuses until `forgetAfter` (after it, every
/// access token issued from the family has expired anyway).
public struct RevokedFamily: Sendable, Equatable {
  public var family: String
  public var forgetAfter: Timestamp

  public init(family: String, forgetAfter: Timestamp) {
    self.family = family
    self.forgetAfter = forgetAfter
  }
}

extension ServerStore {
  /// Keeps a new refresh token, by its SHA-256 only: a copy of the database signs nobody in.
  /// `family` is new at a sign-in and carried over by each rotation.
  func saveRefreshToken(
    hash: [UInt8], for owner: TokenOwner, family: String, expiresAt: Timestamp
  ) async throws(StoreError) {
    try await writing { db in
      try Self.insertRefreshToken(db, hash: hash, for: owner, family: family, expiresAt: expiresAt)
    }
  }

  /// Spends the refresh token with `hash` and keeps `replacement` in its family, in one
  /// transaction. A token spent before, and not expired, revokes its family instead
  /// (`.reused`), in the same transaction, until `now + revocationLasts`. 401 when the token
  /// is unknown (a revoked family's tokens included) or expired.
  ///
  /// Of two nodes rotating one token at once, one wins the `UPDATE` (the other waits for its
  /// row lock, then finds it spent): exactly one 200. The other's presentation is a reuse,
  /// and revokes the family, the winner's new tokens with it: a client never presents one
  /// token twice at once (its refreshes are one at a time), a thief racing it may.
  func rotateRefreshToken(
    hash: [UInt8], at now: Timestamp, replacement: [UInt8], replacementExpiresAt: Timestamp,
    revocationLasts: Duration
  ) async throws(StoreError) -> RefreshRotation {
    try await writing { db in
      let found = try db.query(
        """
        UPDATE refresh_tokens SET spent_at = ?
        WHERE token_hash = ? AND spent_at IS NULL AND expires_at > ?
        RETURNING user_id, device_id, family_id
        """, now.millisecondsSince1970, hash, now.millisecondsSince1970
      ) { (owner: TokenOwner(userId: $0.string(0), deviceId: $0.string(1)), family: $0.string(2)) }
      if let spent = found.first {
        try Self.insertRefreshToken(
          db, hash: replacement, for: spent.owner, family: spent.family,
          expiresAt: replacementExpiresAt)
        return .rotated(spent.owner, family: spent.family)
      }
      let reused = try db.query(
        """
        SELECT user_id, device_id, family_id FROM refresh_tokens
        WHERE token_hash = ? AND spent_at IS NOT NULL AND expires_at > ?
        """, hash, now.millisecondsSince1970
      ) { (owner: TokenOwner(userId: $0.string(0), deviceId: $0.string(1)), family: $0.string(2)) }
      guard let theft = reused.first else { throw StoreError.unknownToken }
      let revoked = RevokedFamily(family: theft.family, forgetAfter: now + revocationLasts)
      try db.run("DELETE FROM refresh_tokens WHERE family_id = ?", theft.family)
      try db.run(
        "DELETE FROM token_family_revocations WHERE forget_after <= ?", now.millisecondsSince1970)
      try db.run(
        """
        INSERT INTO token_family_revocations
          (family_id, user_id, device_id, revoked_at, forget_after)
        VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (family_id) DO NOTHING
        """, theft.family, theft.owner.userId, theft.owner.deviceId, now.millisecondsSince1970,
        revoked.forgetAfter.millisecondsSince1970)
      return .reused(theft.owner, revoked: revoked)
    }
  }

  /// The families revoked and not yet forgotten at `now`: what the service loads at start.
  func revokedFamilies(at now: Timestamp) async throws(StoreError) -> [RevokedFamily] {
    try await reading { db in
      try db.query(
        """
        SELECT family_id, forget_after FROM token_family_revocations
        WHERE forget_after > ? ORDER BY family_id
        """, now.millisecondsSince1970
      ) {
        RevokedFamily(
          family: $0.string(0), forgetAfter: Timestamp(millisecondsSince1970: Int64($0.int(1))))
      }
    }
  }

  private static func insertRefreshToken(
    _ db: any StoreDatabase, hash: [UInt8], for owner: TokenOwner, family: String,
    expiresAt: Timestamp
  ) throws {
    try db.run(
      """
      INSERT INTO refresh_tokens (token_hash, user_id, device_id, family_id, expires_at)
      VALUES (?, ?, ?, ?, ?)
      """, hash, owner.userId, owner.deviceId, family, expiresAt.millisecondsSince1970)
  }
}

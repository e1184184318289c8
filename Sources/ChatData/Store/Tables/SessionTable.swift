import ChatDomain
import ChatIdentifiers
import Foundation
import SQLite

/// The `session` table: one row at most (`id = 1`), who this device is signed in as and its
/// tokens. The record is `SessionRecord`; sign-out deletes the whole database file.
enum SessionTable {
  /// The saved session; nil when signed out (or unreadable).
  static func session(db: Database) throws -> SessionRecord? {
    try db.query(
      "SELECT user_id, device_id, access_token, refresh_token, expires_at FROM session"
    ) { row -> SessionRecord? in
      guard let user = UserID(rawValue: row.string(0)),
        let device = DeviceID(rawValue: row.string(1))
      else { return nil }
      return SessionRecord(
        userID: user, deviceID: device, accessToken: row.string(2),
        refreshToken: row.string(3), expiresAt: Date(timeIntervalSince1970: row.double(4)))
    }.first ?? nil
  }

  /// Saves the session, replacing the one saved.
  static func save(_ session: SessionRecord, tx: StoreTransaction) throws {
    try tx.db.run(
      """
      INSERT INTO session (id, user_id, device_id, access_token, refresh_token, expires_at)
      VALUES (1, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id,
        device_id = excluded.device_id, access_token = excluded.access_token,
        refresh_token = excluded.refresh_token, expires_at = excluded.expires_at
      """, session.userID.rawValue, session.deviceID.rawValue, session.accessToken,
      session.refreshToken, session.expiresAt.timeIntervalSince1970)
  }
}

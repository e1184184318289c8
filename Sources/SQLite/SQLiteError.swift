import CSQLite
import Foundation

/// An error from SQLite, with the statement that caused it.
///
/// `isCorrupt` and `isBusy` name the two cases a caller handles differently: a corrupt file is
/// not retried (the user's data needs rescue), a busy one may be. `isFull` is a disk with no
/// room left: nothing was written, and the same write goes through once space returns.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
  /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_CORRUPT`, …).
  public let code: Int32
  /// The extended result code, e.g. `SQLITE_CONSTRAINT_UNIQUE`.
  public let extendedCode: Int32
  public let message: String
  /// The SQL that failed, when there was one. Never includes bound values.
  public let sql: String?
  /// The operating system's `errno` behind an I/O error (`sqlite3_system_errno`), else 0.
  public let systemErrno: Int32

  public init(
    code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil,
    systemErrno: Int32 = 0
  ) {
    self.code = code & 0xFF
    self.extendedCode = extendedCode ?? code
    self.message = message
    self.sql = sql
    self.systemErrno = systemErrno
  }

  init(db: OpaquePointer?, code: Int32, sql: String? = nil) {
    let message = db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
    let extended = db.map { sqlite3_extended_errcode($0) } ?? code
    self.init(
      code: code, extendedCode: extended,
      message: message ?? String(cString: sqlite3_errstr(code)), sql: sql,
      systemErrno: db.map { sqlite3_system_errno($0) } ?? 0)
  }

  public var isCorrupt: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }
  public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
  public var isConstraint: Bool { code == SQLITE_CONSTRAINT }
  /// The disk (or the user's quota) is full: `SQLITE_FULL`, or an I/O error whose `errno` says
  /// so (growing the `-shm` file of a database opened on a full disk, say).
  public var isFull: Bool {
    code == SQLITE_FULL || (code == SQLITE_IOERR && [ENOSPC, EDQUOT].contains(systemErrno))
  }

  public var description: String {
    var text = "SQLite error \(extendedCode): \(message)"
    if let sql { text += " (in: \(sql))" }
    return text
  }
}

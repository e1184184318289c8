import CSQLite

/// An error from SQLite, with the statement that caused it.
///
/// `isCorrupt` and `isBusy` name the two cases a caller handles differently: a corrupt file is
/// not retried (the user's data needs rescue), a busy one may be.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
  /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_CORRUPT`, …).
  public let code: Int32
  /// The extended result code, e.g. `SQLITE_CONSTRAINT_UNIQUE`.
  public let extendedCode: Int32
  public let message: String
  /// The SQL that failed, when there was one. Never includes bound values.
  public let sql: String?

  public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil) {
    self.code = code & 0xFF
    self.extendedCode = extendedCode ?? code
    self.message = message
    self.sql = sql
  }

  init(db: OpaquePointer?, code: Int32, sql: String? = nil) {
    let message = db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
    let extended = db.map { sqlite3_extended_errcode($0) } ?? code
    self.init(
      code: code, extendedCode: extended,
      message: message ?? String(cString: sqlite3_errstr(code)), sql: sql)
  }

  public var isCorrupt: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }
  public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
  public var isConstraint: Bool { code == SQLITE_CONSTRAINT }

  public var description: String {
    var text = "SQLite error \(extendedCode): \(message)"
    if let sql { text += " (in: \(sql))" }
    return text
  }
}

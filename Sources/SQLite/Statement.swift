import CSQLite

/// `sqliteTransient`: SQLite copies bound text and blobs before the call returns.
/// The C macro does not import into Swift, so it is spelled out here.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement. Owned by one `Database`, which caches it by SQL text; use it only on
/// the database's executor and never keep a `Row` past the closure that received it.
public final class Statement {
  let handle: OpaquePointer
  public let sql: String
  unowned let database: Database

  init(database: Database, sql: String) throws(SQLiteError) {
    var handle: OpaquePointer?
    let code = sqlite3_prepare_v3(
      database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
    guard code == SQLITE_OK, let handle else {
      throw SQLiteError(db: database.handle, code: code, sql: sql)
    }
    self.handle = handle
    self.sql = sql
    self.database = database
  }

  deinit {
    sqlite3_finalize(handle)
  }

  /// Binds values to the `?` parameters, in order.
  public func bind(_ values: [any SQLBindable]) throws(SQLiteError) {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
    let expected = Int(sqlite3_bind_parameter_count(handle))
    guard values.count == expected else {
      throw SQLiteError(
        code: SQLITE_RANGE, message: "expected \(expected) values, got \(values.count)", sql: sql)
    }
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let code: Int32
      switch value.sqlValue {
      case .null: code = sqlite3_bind_null(handle, index)
      case .integer(let int): code = sqlite3_bind_int64(handle, index, int)
      case .real(let double): code = sqlite3_bind_double(handle, index, double)
      case .text(var text):
        // An explicit length keeps text after an embedded NUL.
        code = text.withUTF8 {
          sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), sqliteTransient)
        }
      case .blob(let bytes):
        code = bytes.withUnsafeBytes {
          sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), sqliteTransient)
        }
      }
      guard code == SQLITE_OK else { throw SQLiteError(db: database.handle, code: code, sql: sql) }
    }
  }

  /// Steps once. Returns true while a row is available.
  func step() throws(SQLiteError) -> Bool {
    let code = sqlite3_step(handle)
    switch code {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      sqlite3_reset(handle)
      throw SQLiteError(db: database.handle, code: code, sql: sql)
    }
  }

  /// Runs the statement to completion, ignoring rows.
  public func run(_ values: [any SQLBindable] = []) throws(SQLiteError) {
    try bind(values)
    defer { sqlite3_reset(handle) }
    while try step() {}
  }

  /// Runs the statement and maps every row.
  public func query<T>(
    _ values: [any SQLBindable] = [], capacity: Int = 0, _ map: (Row) throws -> T
  ) throws -> [T] {
    try bind(values)
    defer { sqlite3_reset(handle) }
    var result: [T] = []
    result.reserveCapacity(capacity)
    while try step() {
      result.append(try map(Row(statement: self)))
    }
    return result
  }

  /// Runs the statement and hands every row to `body`, for a caller that builds its own
  /// result (in place, without an array of mapped rows in between).
  public func forEachRow(_ values: [any SQLBindable] = [], _ body: (Row) throws -> Void) throws {
    try bind(values)
    defer { sqlite3_reset(handle) }
    while try step() {
      try body(Row(statement: self))
    }
  }
}

/// The current row of a statement, valid only inside the closure that received it.
public struct Row {
  let statement: Statement

  private var handle: OpaquePointer { statement.handle }

  public var columnCount: Int { Int(sqlite3_column_count(handle)) }

  public func isNull(_ column: Int) -> Bool {
    sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL
  }

  public func int(_ column: Int) -> Int {
    Int(sqlite3_column_int64(handle, Int32(column)))
  }

  public func optionalInt(_ column: Int) -> Int? {
    isNull(column) ? nil : int(column)
  }

  public func double(_ column: Int) -> Double {
    sqlite3_column_double(handle, Int32(column))
  }

  public func string(_ column: Int) -> String {
    guard let text = sqlite3_column_text(handle, Int32(column)) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, Int32(column)))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  public func optionalString(_ column: Int) -> String? {
    isNull(column) ? nil : string(column)
  }

  public func blob(_ column: Int) -> [UInt8] {
    let count = Int(sqlite3_column_bytes(handle, Int32(column)))
    guard count > 0, let pointer = sqlite3_column_blob(handle, Int32(column)) else { return [] }
    return Array(UnsafeRawBufferPointer(start: pointer, count: count))
  }

  public func value(_ column: Int) -> SQLValue {
    switch sqlite3_column_type(handle, Int32(column)) {
    case SQLITE_INTEGER: .integer(sqlite3_column_int64(handle, Int32(column)))
    case SQLITE_FLOAT: .real(double(column))
    case SQLITE_TEXT: .text(string(column))
    case SQLITE_BLOB: .blob(blob(column))
    default: .null
    }
  }
}

@preconcurrency import CLibPQ
import Glibc
import Support

/// One connection to PostgreSQL through libpq: blocking calls, for a thread of its own (the
/// server runs each on a `ThreadExecutor`).
///
/// Statements take `?` placeholders (turned into `$1`, `$2`, … once per SQL text) and text
/// parameters; each SQL text is prepared once per connection and then executed by name, so
/// the server parses and plans it once. Results come back in text format.
///
/// Not thread-safe: one thread uses a connection at a time.
public final class PostgresConnection {
  private var handle: OpaquePointer?
  /// The prepared statements of this connection: SQL text (with `?`) → name.
  private var prepared: [String: String] = [:]
  /// Connects, or throws with libpq's reason (the URL's password is never part of it).
  public init(url: String) throws(PostgresError) {
    handle = PQconnectdb(Self.withConnectTimeout(url))
    guard let handle, PQstatus(handle) == CONNECTION_OK else {
      let reason = handle.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
      PQfinish(handle)
      self.handle = nil
      throw PostgresError(message: reason.trimmingTrailingNewlines, sqlState: "08001")
    }
    // Notices (e.g. "relation already exists, skipping") are not errors: keep them off stderr.
    PQsetNoticeProcessor(handle, { _, _ in }, nil)
  }

  deinit { PQfinish(handle) }

  /// Whether the connection is still up as far as libpq knows (a lost server shows here only
  /// after a call failed).
  public var isConnected: Bool {
    handle.map { PQstatus($0) == CONNECTION_OK } ?? false
  }

  /// Runs one or more statements with no parameters (a migration, `BEGIN`, `LISTEN`).
  public func execute(_ sql: String) throws(PostgresError) {
    let result = PQexec(try connected(), sql)
    defer { PQclear(result) }
    try check(result)
  }

  /// Runs a statement with `?` parameters, ignoring any rows.
  public func run(_ sql: String, parameters: [String?] = []) throws(PostgresError) {
    let result = try executePrepared(sql, parameters)
    PQclear(result)
  }

  /// Runs a query and maps each row.
  public func query<T>(
    _ sql: String, parameters: [String?] = [], map: (PostgresRow) throws -> T
  ) throws -> [T] {
    let result = try executePrepared(sql, parameters)
    defer { PQclear(result) }
    let count = PQntuples(result)
    var rows: [T] = []
    rows.reserveCapacity(Int(count))
    for index in 0..<count {
      rows.append(try map(PostgresRow(result: result, index: index)))
    }
    return rows
  }

  /// Sends `NOTIFY channel, payload` (delivered to listeners when the transaction commits).
  public func notify(channel: String, payload: String) throws(PostgresError) {
    try run("SELECT pg_notify(?, ?)", parameters: [channel, payload])
  }

  /// Waits up to `timeout` for notifications on the channels this connection `LISTEN`s to,
  /// and returns those that arrived (none on timeout). Throws when the connection is lost.
  public func waitForNotifications(timeout: Duration) throws(PostgresError) -> [Notification] {
    let connection = try connected()
    var found = drainNotifications(connection)
    if !found.isEmpty { return found }
    var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
    let ready = poll(&descriptor, 1, Int32(clamping: timeout.milliseconds))
    if ready < 0 && errno != EINTR {
      throw PostgresError(message: "poll failed: errno \(errno)", sqlState: "08006")
    }
    if ready > 0 {
      guard PQconsumeInput(connection) == 1 else {
        throw PostgresError(
          message: String(cString: PQerrorMessage(connection)).trimmingTrailingNewlines,
          sqlState: "08006")
      }
      found = drainNotifications(connection)
    }
    return found
  }

  private func drainNotifications(_ connection: OpaquePointer) -> [Notification] {
    var found: [Notification] = []
    while let notice = PQnotifies(connection) {
      found.append(
        Notification(
          channel: String(cString: notice.pointee.relname),
          payload: String(cString: notice.pointee.extra)))
      PQfreemem(notice)
    }
    return found
  }

  /// Closes the connection; later calls throw.
  public func close() {
    PQfinish(handle)
    handle = nil
    prepared = [:]
  }

  private func connected() throws(PostgresError) -> OpaquePointer {
    guard let handle else {
      throw PostgresError(message: "the connection is closed", sqlState: "08003")
    }
    return handle
  }

  private func executePrepared(_ sql: String, _ parameters: [String?]) throws(PostgresError)
    -> OpaquePointer?
  {
    let connection = try connected()
    let name: String
    if let known = prepared[sql] {
      name = known
    } else {
      name = "s\(prepared.count + 1)"
      let result = PQprepare(connection, name, Self.numberingPlaceholders(sql), 0, nil)
      defer { PQclear(result) }
      try check(result)
      prepared[sql] = name
    }
    // libpq copies the values before it returns: the C strings live for the call only.
    let result = withCStrings(parameters) { pointers in
      PQexecPrepared(connection, name, Int32(pointers.count), pointers, nil, nil, 0)
    }
    do {
      try check(result)
    } catch {
      PQclear(result)
      throw error
    }
    return result
  }

  private func check(_ result: OpaquePointer?) throws(PostgresError) {
    let status = result.map { PQresultStatus($0) } ?? PGRES_FATAL_ERROR
    guard status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK else { return }
    var message = result.map { String(cString: PQresultErrorMessage($0)) } ?? ""
    if message.isEmpty, let handle { message = String(cString: PQerrorMessage(handle)) }
    var sqlState = result.flatMap { result in
      PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
    }
    // A lost connection leaves no SQLSTATE in the result: it is class 08 all the same.
    if let handle, PQstatus(handle) != CONNECTION_OK { sqlState = sqlState ?? "08006" }
    throw PostgresError(message: message.trimmingTrailingNewlines, sqlState: sqlState)
  }

  /// How long a connection attempt may take unless the URL says (`connect_timeout`): without
  /// one libpq waits for the operating system's TCP timeout, minutes, on a host that does not
  /// answer, and a request would wait as long.
  static let defaultConnectTimeoutSeconds = 10

  /// `url` with `connect_timeout` added when it has none (a `postgres://` URL; libpq's
  /// `key=value` form gets it as one more pair).
  static func withConnectTimeout(_ url: String) -> String {
    guard !url.contains("connect_timeout") else { return url }
    let setting = "connect_timeout=\(defaultConnectTimeoutSeconds)"
    guard url.contains("://") else { return url + " " + setting }
    return url + (url.contains("?") ? "&" : "?") + setting
  }

  /// `?` → `$1`, `$2`, … outside quoted literals and identifiers.
  static func numberingPlaceholders(_ sql: String) -> String {
    var output = ""
    output.reserveCapacity(sql.utf8.count + 16)
    var number = 0
    var quote: Character?
    for character in sql {
      if let open = quote {
        if character == open { quote = nil }
        output.append(character)
      } else if character == "'" || character == "\"" {
        quote = character
        output.append(character)
      } else if character == "?" {
        number += 1
        output += "$\(number)"
      } else {
        output.append(character)
      }
    }
    return output
  }
}

/// A `NOTIFY` this connection heard.
public struct Notification: Sendable, Equatable {
  public var channel: String
  public var payload: String
}

/// A row of a result, in text format.
public struct PostgresRow {
  let result: OpaquePointer?
  let index: Int32

  public func isNull(_ column: Int) -> Bool {
    PQgetisnull(result, index, Int32(column)) == 1
  }

  public func optionalString(_ column: Int) -> String? {
    isNull(column) ? nil : String(cString: PQgetvalue(result, index, Int32(column)))
  }

  public func string(_ column: Int) -> String { optionalString(column) ?? "" }

  /// An integer column (a boolean reads as 1 or 0).
  public func optionalInt(_ column: Int) -> Int? {
    guard let text = optionalString(column) else { return nil }
    if text == "t" { return 1 }
    if text == "f" { return 0 }
    return Int(text)
  }

  public func int(_ column: Int) -> Int { optionalInt(column) ?? 0 }

  /// A one-dimensional text array column (`{a,"b c",NULL}`), NULL elements left out; empty
  /// for NULL.
  public func stringArray(_ column: Int) -> [String] {
    guard let text = optionalString(column) else { return [] }
    return postgresTextArrayElements(text)
  }
}

/// `values` as PostgreSQL's text form of a `TEXT[]`, each element quoted (so that no value is
/// read as `NULL` or split at a comma).
public func postgresTextArray(_ values: [String]) -> String {
  let quoted = values.map { value in
    var element = "\""
    for character in value {
      if character == "\"" || character == "\\" { element.append("\\") }
      element.append(character)
    }
    return element + "\""
  }
  return "{" + quoted.joined(separator: ",") + "}"
}

/// The elements of a one-dimensional text array in PostgreSQL's output form: quoted elements
/// unescaped, an unquoted `NULL` left out.
func postgresTextArrayElements(_ text: String) -> [String] {
  var elements: [String] = []
  var current = ""
  var quoted = false
  var wasQuoted = false
  var escaped = false
  func finish() {
    if wasQuoted || current.uppercased() != "NULL" { elements.append(current) }
    (current, wasQuoted) = ("", false)
  }
  let body = text.dropFirst().dropLast()
  guard text.first == "{", text.last == "}", !body.isEmpty else { return [] }
  for character in body {
    if escaped {
      current.append(character)
      escaped = false
    } else if character == "\\" {
      escaped = true
    } else if character == "\"" {
      quoted.toggle()
      wasQuoted = true
    } else if character == "," && !quoted {
      finish()
    } else {
      current.append(character)
    }
  }
  finish()
  return elements
}

/// What PostgreSQL (or libpq) said went wrong.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
  public var message: String
  /// The five-character SQLSTATE, when there is one.
  public var sqlState: String?

  public init(message: String, sqlState: String?) {
    self.message = message
    self.sqlState = sqlState
  }

  /// The connection is gone or the server is shutting down or starting (class 08, 57P0x):
  /// try again on a new connection.
  public var isConnectionLost: Bool {
    guard let sqlState else { return false }
    return sqlState.hasPrefix("08") || sqlState.hasPrefix("57P")
  }

  /// Another transaction got in the way (a unique key both inserted, a serialization failure,
  /// a deadlock): running the whole transaction again may well succeed.
  public var isConflict: Bool {
    sqlState == "23505" || sqlState == "40001" || sqlState == "40P01"
  }

  public var description: String {
    "PostgreSQL error\(sqlState.map { " \($0)" } ?? ""): \(message)"
  }
}

/// Bytes as PostgreSQL's text form of `bytea`.
public func postgresBytea(_ bytes: [UInt8]) -> String {
  let digits = Array("0123456789abcdef".utf8)
  var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
  for byte in bytes {
    text.append(digits[Int(byte >> 4)])
    text.append(digits[Int(byte & 0xF)])
  }
  return String(decoding: text, as: UTF8.self)
}

extension String {
  fileprivate var trimmingTrailingNewlines: String {
    var text = self
    while text.last?.isNewline == true { text.removeLast() }
    return text
  }
}

/// Runs `body` with C strings for `values` (NULL for nil).
private func withCStrings<R>(
  _ values: [String?], _ body: ([UnsafePointer<CChar>?]) -> R
) -> R {
  let copies = values.map { $0.map { strdup($0) } ?? nil }
  defer { for copy in copies { free(copy) } }
  return body(copies.map { $0.map { UnsafePointer($0) } })
}

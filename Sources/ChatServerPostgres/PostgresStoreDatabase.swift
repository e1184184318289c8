import ChatServer
import Postgres
import SQLite

/// The PostgreSQL side of `StoreDatabase`: one pooled connection, for one transaction.
final class PostgresStoreDatabase: StoreDatabase {
  let connection: PostgresConnection
  var dialect: SQLDialect { .postgres }

  init(_ connection: PostgresConnection) {
    self.connection = connection
  }

  func run(_ sql: String, values: [any SQLBindable]) throws {
    try connection.run(sql, parameters: values.map(Self.parameter))
  }

  func query<T>(
    _ sql: String, values: [any SQLBindable], map: (any StoreRow) throws -> T
  ) throws -> [T] {
    try connection.query(sql, parameters: values.map(Self.parameter)) { row in try map(row) }
  }

  /// A value in PostgreSQL's text format (a boolean as 1 or 0, which PostgreSQL reads as one).
  static func parameter(_ value: any SQLBindable) -> String? {
    switch value.sqlValue {
    case .null: nil
    case .integer(let integer): String(integer)
    case .real(let real): String(real)
    case .text(let text): text
    case .blob(let bytes): postgresBytea(bytes)
    }
  }
}

extension PostgresRow: StoreRow {}

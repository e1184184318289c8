/// Named, versioned schema migrations, recorded in the database itself.
///
/// Each migration runs once, in its own transaction, in the order registered; the table
/// `schema_migrations` lists those applied. A database that lists a migration this code does not
/// know was written by a newer version: opening it is refused rather than guessed at.
public struct Migrator {
  private var migrations: [(identifier: String, migrate: (Database) throws -> Void)] = []

  public init() {}

  /// Adds a migration. Identifiers are never renamed or reused once shipped.
  public mutating func register(
    _ identifier: String, _ migrate: @escaping (Database) throws -> Void
  ) {
    precondition(
      !migrations.contains { $0.identifier == identifier }, "duplicate migration \(identifier)")
    migrations.append((identifier, migrate))
  }

  /// The identifiers, in order.
  public var identifiers: [String] { migrations.map(\.identifier) }

  /// Applies every migration not yet applied. Returns the identifiers it applied.
  @discardableResult
  public func migrate(_ db: Database) throws -> [String] {
    try db.execute(
      "CREATE TABLE IF NOT EXISTS schema_migrations (identifier TEXT PRIMARY KEY NOT NULL)")
    let applied = Set(try db.query("SELECT identifier FROM schema_migrations") { $0.string(0) })
    let unknown = applied.subtracting(identifiers)
    guard unknown.isEmpty else {
      throw MigrationError.unknownMigrations(unknown.sorted())
    }
    var done: [String] = []
    for migration in migrations where !applied.contains(migration.identifier) {
      try db.write { db in
        try migration.migrate(db)
        try db.run("INSERT INTO schema_migrations (identifier) VALUES (?)", migration.identifier)
      }
      done.append(migration.identifier)
    }
    return done
  }

  /// The migrations recorded in `db`.
  public static func appliedIdentifiers(in db: Database) throws -> [String] {
    let exists = try db.scalarInt(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    guard exists == 1 else { return [] }
    return try db.query("SELECT identifier FROM schema_migrations ORDER BY rowid") { $0.string(0) }
  }
}

/// Why a migration could not run.
public enum MigrationError: Error, Equatable, CustomStringConvertible {
  /// The file was written by a newer version of the app: update the app.
  case unknownMigrations([String])

  public var description: String {
    switch self {
    case .unknownMigrations(let ids):
      "the database was written by a newer version (unknown migrations: \(ids.joined(separator: ", ")))"
    }
  }
}

import ChatServer
import Postgres
import Support

/// What `chat-server` opens `--database postgres://…` with (`SharedDatabaseOpener`): the
/// store on `PostgresStoreBackend`, the `NodeRelay` between the nodes of that database, and
/// the secrets they share in its `server_secrets` table. Only `chat-server` links this module,
/// and with it libpq.
public struct PostgresDatabases: SharedDatabaseOpener {
  public init() {}

  public func open(
    url: String, connections: Int, executor: any SerialTaskExecutor, log: any LogSink
  ) throws -> SharedDatabase {
    let backend = try PostgresStoreBackend(url: url, connections: connections)
    return SharedDatabase(
      store: ServerStore(backend: backend, executor: executor),
      relay: NodeRelay(url: url, log: log),
      sharedSecret: { name, candidate in
        try Self.sharedSecret(at: url, named: name, candidate: candidate)
      })
  }

  /// The secret named `name` every node of the PostgreSQL database at `url` shares, made from
  /// `candidate` by whichever node asks first (a SQLite server keeps its key in its data
  /// folder). Blocking: for a node's start.
  static func sharedSecret(at url: String, named name: String, candidate: [UInt8])
    throws -> [UInt8]
  {
    let connection = try PostgresConnection(url: url)
    defer { connection.close() }
    let db = PostgresStoreDatabase(connection)
    try db.run(
      "INSERT INTO server_secrets (name, secret) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
      name, Hex.encode(candidate))
    let stored = try db.query("SELECT secret FROM server_secrets WHERE name = ?", name) {
      $0.string(0)
    }
    guard let secret = stored.first.flatMap(Hex.decode) else {
      throw StoreError.internal("the shared secret \(name) is unreadable")
    }
    return secret
  }
}

import Support

/// Opens what `--database URL` names: a database several `chat-server` nodes share, with the
/// store on it, the relay between its nodes and the secrets they share. `chat-server` hands
/// one to `ReferenceServer.start` (`ChatServerPostgres.PostgresDatabases`); a program that
/// hands none (the terminal client's demo, the tests) serves SQLite only, and links no
/// database client library.
public protocol SharedDatabaseOpener: Sendable {
  /// Opens the database at `url` (migrating it; a wrong URL fails with the reason), with at
  /// most `connections` of this node's, the store on `executor`. Blocking: for a node's start.
  func open(
    url: String, connections: Int, executor: any SerialTaskExecutor, log: any LogSink
  ) throws -> SharedDatabase
}

/// A database several nodes share, opened.
public struct SharedDatabase: Sendable {
  /// The store on it.
  public var store: ServerStore
  /// Hands this node's live events to the other nodes, and theirs to this one.
  public var relay: any LiveRelay
  /// The secret named `name` every node shares, made from `candidate` by whichever node asks
  /// first (the signing key: every node signs and checks the same tokens). Blocking.
  public var sharedSecret: @Sendable (_ name: String, _ candidate: [UInt8]) throws -> [UInt8]

  public init(
    store: ServerStore, relay: any LiveRelay,
    sharedSecret: @escaping @Sendable (_ name: String, _ candidate: [UInt8]) throws -> [UInt8]
  ) {
    self.store = store
    self.relay = relay
    self.sharedSecret = sharedSecret
  }
}

import ChatServer
import Foundation
import Postgres
import Support
import Synchronization

/// Live events between the `chat-server` nodes of one PostgreSQL database, through `LISTEN` /
/// `NOTIFY` on the channel `chat_live`.
///
/// Every event a node publishes (`ChatService.publish`) is forwarded after it was handed to
/// the node's own sockets: the frame and its recipients, already filtered by the node that
/// checked membership and visibility. Each other node hands it to its own sockets and long
/// polls of those users. An event small enough travels in the notification itself; a larger
/// one (PostgreSQL's payload limit is 8,000 bytes) is written to the unlogged `live_relay`
/// table, and the notification carries its row id for the other nodes to read.
///
/// Two threads of its own, each with its own connection (libpq blocks): the sender sends in
/// publish order, a batch of waiting events per transaction (PostgreSQL delivers a
/// transaction's notifications at its commit, in order); the listener waits on its socket. A
/// listener that lost its connection may have missed events: once it is back, the node closes
/// its live sockets and wakes its long polls, and each client catches up from the last
/// sequence it holds, as after any drop. The items themselves are in the database already:
/// nothing acknowledged depends on a notification.
///
/// A revoked refresh-token family travels the same way (`forward(_:)` of a revocation), so every
/// node refuses its access tokens and closes its sockets at once, not only the node that saw
/// the reuse; a node whose listener was cut reads the revoked families from the database again
/// (`ChatService.relayResumed`).
public final class NodeRelay: LiveRelay {
  /// What other nodes hand to their sockets: the frame, for these users.
  typealias Event = RelayedEvent

  /// A refresh-token family revoked on one node, for the others.
  typealias Revocation = RelayedRevocation

  /// What the sender sends, in order.
  private enum Outgoing {
    case event(Event)
    case revocation(Revocation)
  }

  static let channel = "chat_live"
  /// How the listener waits between attempts to reach the database again: soon, since a node
  /// without it misses other nodes' events.
  static let reconnectPolicy = RetryPolicy(base: .milliseconds(100), cap: .seconds(2))
  /// Above this many bytes an event goes through `live_relay`.
  static let inlineLimit = 7_900

  let url: String
  /// This node's id in notifications, to skip its own.
  let node: String
  let log: any LogSink
  private let state = Mutex(State())

  private struct State {
    var outbox: [Outgoing] = []
    var stopped = false
    var service: ChatService?
  }

  private let wakeSender = NSCondition()

  public init(url: String, log: any LogSink) {
    self.url = url
    var random = SystemRandomNumberGenerator()
    node = String(random.next(), radix: 36)
    self.log = log
  }

  /// Starts listening and sending; other nodes' events go to `service`.
  public func start(delivering service: ChatService) {
    state.withLock { $0.service = service }
    let sender = Thread { [self] in runSender() }
    sender.name = "chat-server.relay-send"
    sender.start()
    let listener = Thread { [self] in runListener() }
    listener.name = "chat-server.relay-listen"
    listener.start()
  }

  /// Ends both threads (the listener within a second).
  public func stop() {
    state.withLock {
      $0.stopped = true
      $0.service = nil
    }
    wakeSender.lock()
    wakeSender.broadcast()
    wakeSender.unlock()
  }

  /// Queues an event this node published, for the other nodes.
  public func forward(_ event: RelayedEvent) {
    enqueue(.event(event))
  }

  /// Queues a family this node revoked, for the other nodes.
  public func forward(_ revocation: RelayedRevocation) {
    enqueue(.revocation(revocation))
  }

  private func enqueue(_ outgoing: Outgoing) {
    state.withLock { $0.outbox.append(outgoing) }
    wakeSender.lock()
    wakeSender.signal()
    wakeSender.unlock()
  }

  // MARK: - Sending

  private func runSender() {
    var connection: PostgresConnection?
    var sent = 0
    while true {
      wakeSender.lock()
      var batch: [Outgoing] = []
      var stopped = false
      while batch.isEmpty && !stopped {
        (batch, stopped) = state.withLock { state in
          defer { state.outbox.removeAll() }
          return (state.outbox, state.stopped)
        }
        if batch.isEmpty && !stopped { wakeSender.wait() }
      }
      wakeSender.unlock()
      if stopped { break }
      // One retry on a fresh connection: a connection cut since the last batch.
      for attempt in 1...2 {
        do {
          if connection?.isConnected != true { connection = try PostgresConnection(url: url) }
          try send(batch, on: connection!)
          sent += batch.count
          break
        } catch {
          connection = nil
          if attempt == 2 {
            log.write(
              LogRecord(.warning, "relay_send_failed", [("events", String(batch.count))]))
          }
        }
      }
      // Rows of large events are read within moments; an occasional sweep keeps the table small.
      if sent >= 1_000, let open = connection {
        sent = 0
        try? open.run(
          "DELETE FROM live_relay WHERE created_at < now() - interval '10 minutes'")
      }
    }
    connection?.close()
  }

  private func send(_ batch: [Outgoing], on connection: PostgresConnection) throws {
    // The usual batch, every payload small enough: one statement, one round trip, its own
    // transaction; `pg_notify` runs row by row in the array's order, which PostgreSQL keeps.
    let inline = batch.compactMap { outgoing -> String? in
      switch outgoing {
      case .event(let event): Self.inline(event, from: node)
      case .revocation(let revocation): RelayPayload.payload(of: revocation, from: node)
      }
    }
    if inline.count == batch.count {
      try connection.run(
        """
        SELECT pg_notify(?, payload)
        FROM unnest(CAST(? AS TEXT[])) WITH ORDINALITY AS sent(payload, position)
        ORDER BY position
        """, parameters: [Self.channel, postgresTextArray(inline)])
      return
    }
    try connection.execute("BEGIN")
    do {
      for outgoing in batch {
        let event: Event
        switch outgoing {
        case .event(let one): event = one
        case .revocation(let revocation):
          try connection.notify(
            channel: Self.channel, payload: RelayPayload.payload(of: revocation, from: node))
          continue
        }
        if let inline = Self.inline(event, from: node) {
          try connection.notify(channel: Self.channel, payload: inline)
        } else {
          let id =
            try connection.query(
              "INSERT INTO live_relay (users, frame) VALUES (?, ?) RETURNING id",
              parameters: [event.users.joined(separator: ","), event.frame]
            ) { $0.string(0) }.first ?? ""
          try connection.notify(
            channel: Self.channel, payload: RelayPayload.payload(row: id, of: event, from: node))
        }
      }
      try connection.execute("COMMIT")
    } catch {
      try? connection.execute("ROLLBACK")
      throw error
    }
  }

  // MARK: - Listening

  private func runListener() {
    var listenedBefore = false
    var backoff = Backoff(Self.reconnectPolicy)
    let random = SystemRandomSource()
    while !state.withLock({ $0.stopped }) {
      do {
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try connection.execute("LISTEN \(Self.channel)")
        backoff.reset()
        if listenedBefore {
          log.write(LogRecord(.warning, "relay_resumed", []))
          deliverToService { await $0.relayResumed() }
        }
        listenedBefore = true
        while !state.withLock({ $0.stopped }) {
          for notification in try connection.waitForNotifications(timeout: .seconds(1)) {
            guard let event = try event(from: notification.payload, on: connection) else {
              continue
            }
            deliverToService { await $0.deliverRelayed(event) }
          }
        }
      } catch {
        // The database is away: try again, waiting longer each time (the project's policy).
        Thread.sleep(forTimeInterval: backoff.failed(random: random).secondsValue)
      }
    }
  }

  /// The event of another node's notification; nil for this node's own, or a malformed one.
  private func event(from payload: String, on connection: PostgresConnection) throws -> Event? {
    switch RelayPayload.parse(payload, at: node) {
    case .event(let event):
      return event
    case .revocation(let revocation):
      deliverToService { await $0.revokedElsewhere(revocation) }
      return nil
    case .row(let id, let isChange):
      return try connection.query(
        "SELECT users, frame FROM live_relay WHERE id = ?", parameters: [id]
      ) { row in
        Event(
          users: row.string(0).split(separator: ",").map(String.init), frame: row.string(1),
          isChange: isChange)
      }.first
    case nil:
      return nil
    }
  }

  /// The notification carrying `event` itself; nil when it would exceed `inlineLimit` (the
  /// event then goes through a row of `live_relay`).
  static func inline(_ event: Event, from node: String) -> String? {
    let payload = RelayPayload.payload(of: event, from: node)
    return payload.utf8.count <= inlineLimit ? payload : nil
  }

  /// Runs `body` on the service's executor, in the order called (one job each, FIFO).
  private func deliverToService(_ body: @escaping @Sendable (ChatService) async -> Void) {
    guard let service = state.withLock({ $0.service }) else { return }
    service.executor.spawn { await body(service) }
  }
}

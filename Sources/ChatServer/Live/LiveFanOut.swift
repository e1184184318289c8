import ChatAPI
import Support

/// Where the service's live events go: this node's sockets (`LiveHub`), its held long polls
/// (`LongPolls`), and, with other nodes, the node relay (`LiveRelay`); and where the other
/// nodes' events arrive.
///
/// Rules a reader could not guess:
/// - Every event but typing is a change `/v1/sync` shows: it wakes the users' long polls too.
/// - A frame is encoded only when someone listens (a socket here, or other nodes).
/// - A socket whose buffer is full is closed (`fellBehind`): it has fallen behind, and its
///   client reconnects and catches up; the drop is logged and counted. Its buffer is full
///   past `liveEventBufferLimit` events unread by the network layer, or past the bytes the
///   network layer holds for a peer that stopped reading (`chat-server --live-buffer-bytes`).
/// - When the relay was cut, events may have been missed: every socket closes (`catchUp`)
///   and every long poll looks again.
///
/// The functions that close sockets return their ids, for the service to forget what it keeps
/// per socket (its typing budget).
struct LiveFanOut {
  /// What `/metrics` counts of the fan-out.
  struct Counters {
    var eventsFannedOut = 0
    var eventsRelayed = 0
    var relayResumes = 0
    var subscriptionsDropped = 0
  }

  private(set) var hub = LiveHub()
  /// `GET /v1/sync?wait=` requests held until something changes for their user.
  var longPolls = LongPolls()
  /// Where this node's events go to the other nodes of its database; nil on one node.
  let relay: (any LiveRelay)?
  private let log: any LogSink
  private(set) var counters = Counters()

  init(relay: (any LiveRelay)?, log: any LogSink) {
    self.relay = relay
    self.log = log
  }

  /// An id for a subscription about to be added.
  mutating func nextID() -> UInt64 {
    hub.nextID()
  }

  mutating func add(_ subscriber: LiveHub.Subscriber) {
    hub.add(subscriber)
  }

  /// Ends subscription `id`, saying why when the service ends it (`LiveSubscription.closure`);
  /// nil when its socket closed. Nothing when it was closed already.
  mutating func close(_ id: UInt64, because closure: LiveClosure? = nil) {
    guard let subscriber = hub.remove(id) else { return }
    subscriber.expiry.cancel()
    if let closure { subscriber.ending.record(closure) }
    subscriber.continuation.finish()
  }

  /// Hands `event` to every open subscription of `users` (sorted member ids), in order, and to
  /// the other nodes for theirs.
  mutating func publish(
    _ event: @autoclosure () -> LiveEvent, to users: [String], isChange: Bool = true
  ) -> [UInt64] {
    if isChange { longPolls.wake(users) }
    let subscribers = hub.subscribers(of: users)
    guard !subscribers.isEmpty || relay != nil else { return [] }
    let frame = event().text
    relay?.forward(RelayedEvent(users: users, frame: frame, isChange: isChange))
    return deliver(frame, to: subscribers)
  }

  /// Another node's event, for this node's sockets and long polls of its users.
  mutating func deliverRelayed(_ event: RelayedEvent) -> [UInt64] {
    counters.eventsRelayed += 1
    if event.isChange { longPolls.wake(event.users) }
    return deliver(event.frame, to: hub.subscribers(of: event.users))
  }

  /// The relay is back after a cut: every socket closes to catch up, every long poll looks
  /// again.
  mutating func relayResumed() -> [UInt64] {
    counters.relayResumes += 1
    let closed = hub.subscribers(of: hub.users).map(\.id)
    for id in closed { close(id, because: .catchUp) }
    longPolls.wakeAll()
    return closed
  }

  /// A refresh-token family was revoked: `user`'s sockets opened with its tokens close.
  mutating func signOut(_ family: String, of user: String) -> [UInt64] {
    let closed = hub.subscribers(of: [user]).filter { $0.family == family }.map(\.id)
    for id in closed { close(id, because: .signedOut) }
    return closed
  }

  private mutating func deliver(_ frame: String, to subscribers: [LiveHub.Subscriber]) -> [UInt64] {
    var closed: [UInt64] = []
    var fallenBehind: [LiveHub.Subscriber] = []
    for subscriber in subscribers {
      switch subscriber.continuation.yield(frame) {
      case .enqueued: counters.eventsFannedOut += 1
      case .dropped: fallenBehind.append(subscriber)
      case .terminated:
        close(subscriber.id)
        closed.append(subscriber.id)
      @unknown default:
        close(subscriber.id)
        closed.append(subscriber.id)
      }
    }
    for subscriber in fallenBehind {
      dropBehind(subscriber, unread: "events")
      closed.append(subscriber.id)
    }
    return closed
  }

  /// Subscription `id`'s peer stopped reading: more bytes wait for it than the network layer
  /// holds. Closed as fallen behind; nothing when it was closed already.
  mutating func peerStoppedReading(_ id: UInt64) {
    guard let subscriber = hub.subscriber(id) else { return }
    dropBehind(subscriber, unread: "bytes")
  }

  /// Closes a subscription that fell behind (`unread`: what piled up), logged and counted.
  private mutating func dropBehind(_ subscriber: LiveHub.Subscriber, unread: String) {
    close(subscriber.id, because: .fellBehind)
    counters.subscriptionsDropped += 1
    log.write(
      LogRecord(
        .warning, "live_dropped",
        [("user", subscriber.userId), ("device", subscriber.deviceId), ("unread", unread)]))
  }
}

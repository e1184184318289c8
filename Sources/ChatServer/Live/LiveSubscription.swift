import ChatAPI
import Synchronization

/// One device's open `/v1/live` socket, as the service sees it.
///
/// The network layer writes each string of `events` as one text frame, passes each text frame
/// it receives to `receive(_:)`, and calls `close()` when the socket closes. The service closes
/// the subscription itself (ending `events`, and saying why in `closure`) when it falls more
/// than `ServerConfiguration.liveEventBufferLimit` events behind, when the access token it
/// opened with expires (after `ServerConfiguration.liveTokenGrace`), or when that token's
/// family is revoked; the client then reconnects (refreshing or signing in again first when
/// told) and catches up, as after any drop. Cancelling the task that iterates `events`, or
/// dropping every reference to `events`, closes it too: hold the subscription while the socket
/// is open.
///
/// Events are handed over before the request that caused them returns: once `handle(_:)` has
/// answered a send, its `message` event is already in every member subscription's `events`.
public final class LiveSubscription: Sendable {
  public let userId: String
  public let deviceId: String
  /// Server → client frames, one JSON object each, in the order the service published them.
  public let events: AsyncStream<String>
  let id: UInt64
  private let ending: LiveEnding
  private let service: ChatService

  init(
    id: UInt64, userId: String, deviceId: String, events: AsyncStream<String>,
    ending: LiveEnding, service: ChatService
  ) {
    self.id = id
    self.userId = userId
    self.deviceId = deviceId
    self.events = events
    self.ending = ending
    self.service = service
  }

  /// Why the service ended `events`, set before they end; nil while open, and when the
  /// socket's side closed it.
  public var closure: LiveClosure? { ending.closure }

  /// Handles one client → server text frame. The only frame API.md defines is
  /// `{ "type": "typing", "conversationId" }`, relayed to the conversation's other members if
  /// the sender is a member. Anything else (not JSON, another type, a malformed or unknown id,
  /// a conversation the user is not in) is ignored without an answer, and counted in
  /// `chat_live_frames_ignored_total`: API.md defines no error frame, and a best-effort socket
  /// should not be closed over a typing hint.
  public func receive(_ text: String) async {
    await service.receiveLiveFrame(text, on: id)
  }

  /// Removes the subscription from fan-out and ends `events`. Safe to call more than once.
  public func close() async {
    await service.closeLive(id)
  }

  /// The network layer dropped the socket: its peer stopped reading and more bytes waited for
  /// it than the layer holds. The subscription closes as fallen behind (logged, counted in
  /// `chat_live_subscriptions_dropped_total`); the client catches up when it is back.
  public func peerStoppedReading() async {
    await service.peerStoppedReading(id)
  }
}

/// Why the service ended a live subscription. The network layer says it in the close frame
/// (`ChatHTTPServer.bridge`); the client reconnects either way.
public enum LiveClosure: Sendable, Equatable {
  /// More than `liveEventBufferLimit` events unread: reconnect and catch up.
  case fellBehind
  /// Events may have been missed (the relay between nodes was cut): reconnect and catch up.
  case catchUp
  /// The access token the socket opened with expired `liveTokenGrace` ago: refresh, then
  /// reconnect.
  case tokenExpired
  /// The family of that token was revoked (its refresh token was used twice): sign in again.
  case signedOut
}

/// The one value the service writes when it ends a subscription, read by the network layer
/// once `events` ended (`LiveSubscription.closure`).
final class LiveEnding: Sendable {
  private let value = Mutex<LiveClosure?>(nil)

  var closure: LiveClosure? { value.withLock { $0 } }

  func record(_ closure: LiveClosure) {
    value.withLock { $0 = $0 ?? closure }
  }
}

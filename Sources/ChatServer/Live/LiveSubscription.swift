import ChatAPI

/// One device's open `/v1/live` socket, as the service sees it.
///
/// The network layer writes each string of `events` as one text frame, passes each text frame
/// it receives to `receive(_:)`, and calls `close()` when the socket closes. The service closes
/// the subscription itself (ending `events`) when it falls more than
/// `ServerConfiguration.liveEventBufferLimit` events behind; the client then reconnects and
/// catches up, as after any drop. Cancelling the task that iterates `events`, or dropping
/// every reference to `events`, closes it too: hold the subscription while the socket is open.
///
/// Events are handed over before the request that caused them returns: once `handle(_:)` has
/// answered a send, its `message` event is already in every member subscription's `events`.
public final class LiveSubscription: Sendable {
  public let userId: String
  public let deviceId: String
  /// Server → client frames, one JSON object each, in the order the service published them.
  public let events: AsyncStream<String>
  let id: UInt64
  private let service: ChatService

  init(
    id: UInt64, userId: String, deviceId: String, events: AsyncStream<String>,
    service: ChatService
  ) {
    self.id = id
    self.userId = userId
    self.deviceId = deviceId
    self.events = events
    self.service = service
  }

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
}

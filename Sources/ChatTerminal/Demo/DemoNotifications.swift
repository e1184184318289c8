import ChatAPI
import Foundation
import Support
import Wire

/// The demo's own push gateway: a webhook on loopback that the reference server posts pushes to
/// (`--push-webhook`), as APNs would receive them. It keeps what a phone's lock screen shows:
/// per conversation (the push's collapse id) only the newest notification, with how many pushes
/// it replaced; and it hands every push on, as the system wakes the app with it.
final class DemoNotifications: Sendable {
  /// One conversation's notification, as a phone shows it.
  struct Notification: Sendable, Equatable {
    var title: String
    var body: String
    var badge: Int
    /// Pushes that came for this conversation (the newest replaced the others).
    var pushes: Int
  }

  private struct State {
    /// Newest first.
    var shown: [(collapseId: String, notification: Notification)] = []
    var server: HTTPServer?
  }

  private let state = Locked(State())
  /// Every push, in the order it came: the app's wake-ups.
  let pushes: AsyncStream<PushPayload>
  private let continuation: AsyncStream<PushPayload>.Continuation

  init() {
    (pushes, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
  }

  /// Listens on a free loopback port; returns the URL to give the server.
  func start() throws -> String {
    let server = HTTPServer(configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0)) {
      [self] request in
      guard let delivery = try? APICoding.decode(PushDelivery.self, from: request.body) else {
        return HTTPResponse(status: .badRequest)
      }
      received(delivery)
      return HTTPResponse(status: .ok)
    }
    let port = try server.start()
    state.withLock { $0.server = server }
    return "http://127.0.0.1:\(port)/push"
  }

  func stop() async {
    continuation.finish()
    await state.withLock { $0.server }?.shutdown()
  }

  private func received(_ delivery: PushDelivery) {
    state.withLock { state in
      let earlier = state.shown.firstIndex { $0.collapseId == delivery.collapseId }
      let pushes = earlier.map { state.shown[$0].notification.pushes + 1 } ?? 1
      if let earlier { state.shown.remove(at: earlier) }
      let alert = delivery.payload.aps.alert
      state.shown.insert(
        (
          delivery.collapseId,
          Notification(
            title: alert.title, body: alert.body, badge: delivery.payload.aps.badge,
            pushes: pushes)
        ), at: 0)
    }
    continuation.yield(delivery.payload)
  }

  /// The notifications shown now, newest first.
  var shown: [Notification] {
    state.withLock { $0.shown.map(\.notification) }
  }

  /// The app opened: the notifications go.
  func clear() {
    state.withLock { $0.shown.removeAll() }
  }
}

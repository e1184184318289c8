import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatPresentation
import ChatServerTool
import ChatTransports
import Foundation
import Support
import Wire

/// B13: the background paths of seed 003, on loopback, with the reference server as
/// `chat-server --push-webhook` runs it.
///
/// - Push: from a post reaching the service (its commit, one fsync, included) to the push
///   arriving at the webhook gateway (the push queued in the message's transaction, the
///   dispatcher's round, the payload built, the gateway's `POST`). One conversation per push,
///   since pushes of one conversation and device collapse to one per 2 s. Beside it: the post
///   alone (its commit), the part of the path the push cannot beat.
/// - Long poll: from the post to a screen on a device that only long-polls showing the row
///   (the held `GET /v1/sync?wait=` answered, the catch-up's page, the save, the view state);
///   beside it, the same message on a device with the socket.
enum PushFigure {
  @MainActor
  static func run(folder: String, pushes: Int, polls: Int) async throws -> [ResultRow] {
    let webhook = WebhookReceiver()
    let webhookPort = try webhook.start()
    var options = ServerOptions(dataFolder: folder + "/push-server")
    options.port = 0
    options.devMode = true
    options.rateLimit = nil
    options.pushWebhook = "http://127.0.0.1:\(webhookPort)/push"
    let server = try ReferenceServer.start(options, log: DiscardingLogSink())
    defer {
      Task {
        await server.stop()
        await webhook.stop()
      }
    }
    let service = server.service
    let sender = try await service.signIn("ivan")

    // Push: the recipient has a token and no socket.
    let recipient = try await service.signIn("judy")
    _ = try await service.call(
      APIRequest(.registerPush, json: PushRegistration(provider: .webhook, token: "b13-judy")),
      token: recipient)
    let warmUp = max(5, pushes / 10)
    var conversations: [String] = []
    for index in 0..<(warmUp + pushes) {
      conversations.append(
        try await service.createConversation(
          token: sender, title: "B13 \(index)", members: ["judy"]))
    }
    var push = Samples()
    var commit = Samples()
    for (index, conversation) in conversations.enumerated() {
      let started = Nanos.now()
      let sequence = try await service.post(
        token: sender, conversation: conversation, text: "B13 push \(index)")
      let committed = Nanos.now()
      let arrived = await webhook.arrival(of: conversation, sequence: sequence)
      if index >= warmUp {
        push.add(arrived - started)
        commit.add(committed - started)
      }
    }
    progress(
      "B13: push median \(push.median / 1_000_000) ms (post alone \(commit.median / 1_000_000) ms)")

    // Long poll: one device of kim's long-polls, another has the socket.
    func device(_ name: String, _ updates: LiveUpdates) async throws -> ChatEngine {
      var environment = ChatEngine.Environment(
        http: try WireHTTPTransport(baseURL: URL(string: server.url)!),
        live: WireLiveTransport(url: "ws://127.0.0.1:\(server.port)/v1/live"),
        clock: BenchClock())
      environment.liveUpdates = updates
      return try await ChatEngine.devSignIn(
        user: UserID("kim"), device: DeviceID(name),
        database: .file(folder + "/push-kim-\(name).sqlite"), environment: environment)
    }
    let chat = try await service.createConversation(
      token: sender, title: "B13 polls", members: ["kim"])
    let polling = try await device("tablet", .longPollOnly)
    let socket = try await device("laptop", .automatic)
    try await polling.startAndReach(.polling)
    try await socket.startAndConnect()
    let id = ConversationID(rawValue: chat)!
    let pollScreen = ConversationViewModel(conversation: id, sources: polling.sources)
    let socketScreen = ConversationViewModel(conversation: id, sources: socket.sources)
    let watching = [
      Task { @MainActor in await pollScreen.onAppear() },
      Task { @MainActor in await socketScreen.onAppear() },
    ]
    var byPoll = Samples()
    var bySocket = Samples()
    let pollWarmUp = max(5, polls / 10)
    for index in 0..<(pollWarmUp + polls) {
      let text = "B13 poll \(index)"
      let started = Nanos.now()
      try await service.post(token: sender, conversation: chat, text: text)
      async let socketShown: Int64 = shown(text, on: socketScreen)
      async let pollShown: Int64 = shown(text, on: pollScreen)
      let (viaSocket, viaPoll) = await (socketShown, pollShown)
      if index >= pollWarmUp {
        bySocket.add(viaSocket - started)
        byPoll.add(viaPoll - started)
      }
      // The device polls again (its next request held) before the next message.
      try? await Task.sleep(for: .milliseconds(20))
    }
    for task in watching { task.cancel() }
    await polling.close()
    await socket.close()
    progress(
      "B13: long poll median \(byPoll.median / 1_000_000) ms (socket \(bySocket.median / 1_000_000) ms)"
    )
    return [
      ResultRow.latency(
        "B13", "push: post → webhook gateway",
        workload: "\(pushes) pushes, one conversation each, loopback webhook",
        samples: push, baselineName: "the post alone (commit)", baseline: commit,
        target: "p99 ≤ 100 ms", met: { _, p99 in p99 <= 100 },
        note: "a burst in one conversation collapses to one push per 2 s by design"),
      ResultRow.latency(
        "B13", "long poll: post → screen",
        workload: "\(polls) messages to a device that only long-polls",
        samples: byPoll, baselineName: "the same message by socket", baseline: bySocket,
        target: "p50 ≤ 50 ms", met: { median, _ in median <= 50 },
        note: "the held poll answers, then the catch-up's page: one more round trip"),
    ]
  }

  /// Waits until `screen` shows a row with `text`; returns when.
  @MainActor
  private static func shown(_ text: String, on screen: ConversationViewModel) async -> Int64 {
    await ViewStateProbe.wait(for: screen) { state in state.rows.contains { $0.text == text } }
    return Nanos.now()
  }
}

/// The push gateway's other end: a webhook on loopback that notes when each push arrived.
final class WebhookReceiver: Sendable {
  private struct State {
    var arrivals: [String: (sequence: Int, at: Int64)] = [:]
    var waiters:
      [(conversation: String, sequence: Int, continuation: CheckedContinuation<Int64, Never>)] = []
  }

  private let state = Locked(State())
  private let server: Locked<HTTPServer?> = Locked(nil)

  func start() throws -> Int {
    let http = HTTPServer(configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0)) {
      [self] request in
      let at = Nanos.now()
      if let delivery = try? APICoding.decode(PushDelivery.self, from: request.body) {
        arrived(delivery.collapseId, sequence: delivery.payload.sequence, at: at)
      }
      return HTTPResponse(status: .ok)
    }
    server.withLock { $0 = http }
    return try http.start()
  }

  func stop() async {
    await server.withLock { $0 }?.shutdown()
  }

  private func arrived(_ conversation: String, sequence: Int, at: Int64) {
    let ready = state.withLock { state in
      state.arrivals[conversation] = (sequence, at)
      let ready = state.waiters.filter {
        $0.conversation == conversation && $0.sequence <= sequence
      }
      state.waiters.removeAll { $0.conversation == conversation && $0.sequence <= sequence }
      return ready
    }
    for waiter in ready { waiter.continuation.resume(returning: at) }
  }

  /// When the push of `sequence` (or a later one) of `conversation` arrived.
  func arrival(of conversation: String, sequence: Int) async -> Int64 {
    await withCheckedContinuation { continuation in
      let at: Int64? = state.withLock { state in
        if let arrival = state.arrivals[conversation], arrival.sequence >= sequence {
          return arrival.at
        }
        state.waiters.append((conversation, sequence, continuation))
        return nil
      }
      if let at { continuation.resume(returning: at) }
    }
  }
}

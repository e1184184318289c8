import ChatData
import ChatDomain
import ChatIdentifiers
import ChatPresentation
import Foundation

/// B5: end to end. Device A sends; device B, a separate engine with its own database and
/// socket, shows it: the time from A's `send()` to B's `ConversationViewState` holding the row.
/// One message at a time (the next 1 ms after the last was shown), so each sample is one
/// message's path: A saves, posts, the server commits (fsync) and fans out, B's socket
/// receives, B saves, B's screen reads the window again and renders.
enum EndToEndFigure {
  @MainActor
  static func run(server: BenchServer, messages: Int) async throws -> (ResultRow, Samples) {
    let alice = try await server.device("carol")
    let bob = try await server.device("dave")
    let chat = try await alice.conversationList.createConversation(
      title: "B5", memberIDs: [UserID("dave")])
    try await alice.startAndConnect()
    try await bob.startAndConnect()
    let screen = ConversationViewModel(conversation: chat, sources: bob.sources)
    let watching = Task { @MainActor in await screen.onAppear() }

    let warmUp = max(50, messages / 10)
    var samples = Samples()
    for index in 0..<(warmUp + messages) {
      let started = Nanos.now()
      let id = try await alice.messages.send("B5 message \(index)", in: chat)
      await ViewStateProbe.wait(for: screen) { state in state.rows.contains { $0.id == id } }
      if index >= warmUp { samples.add(Nanos.now() - started) }
      try? await Task.sleep(for: .milliseconds(1))
    }
    watching.cancel()
    await alice.close()
    await bob.close()
    progress("B5: end to end median \(samples.median / 1000) µs, p99 \(samples.p99 / 1000) µs")
    let row = ResultRow.latency(
      "B5", "end to end: A sends, B's view state", workload: "two engines, loopback, one at a time",
      samples: samples, target: "p50 ≤ 1 ms, p99 ≤ 5 ms",
      met: { median, p99 in median <= 1 && p99 <= 5 },
      note: "seed 003 asks for 500 ms")
    return (row, samples)
  }
}

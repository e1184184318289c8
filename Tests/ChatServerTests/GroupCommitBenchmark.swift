import ChatAPI
import ChatServer
import Foundation
import SQLite
import Support
import Testing

/// Durable sends per second with many concurrent clients, over a real file store (WAL,
/// `synchronous=FULL`) and, for comparison, an in-memory one; without the network, the load
/// generated in the same process. A measurement, not a check: it runs only with `CHAT_BENCH=1`
/// and prints its figures. (`-enable-testing` because other files of this target use
/// `@testable import`.)
///
///     CHAT_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter GroupCommitBenchmark
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["CHAT_BENCH"] != nil))
struct GroupCommitBenchmark {
  static let clients = 100
  static let duration = Duration.seconds(3)

  @Test(arguments: [false, true], [true, false])
  func durableSendsPerSecond(storeOnItsOwnExecutor: Bool, onDisk: Bool) async throws {
    let folder = try TemporaryFolder()
    let serviceExecutor = ThreadExecutor(name: "bench.service")
    let storeExecutor =
      storeOnItsOwnExecutor ? ThreadExecutor(name: "bench.store") : serviceExecutor
    defer {
      serviceExecutor.shutdown()
      storeExecutor.shutdown()
    }
    let store = try ServerStore(
      onDisk ? .dataFolder(folder.path) : .memory, executor: storeExecutor)
    let service = ChatService(
      store: store, configuration: ServerConfiguration(devMode: true, rateLimit: nil),
      clock: SystemTimeSource(), random: SystemRandomNumberGenerator(), executor: serviceExecutor)

    var requests: [APIRequest] = []
    for pair in 0..<(Self.clients / 2) {
      var tokens: [String] = []
      for user in ["a\(pair)", "b\(pair)"] {
        let login = await service.handle(
          APIRequest(
            method: "POST", path: "/v1/auth/dev-login",
            body: Array(#"{"userId":"\#(user)","deviceId":"phone"}"#.utf8)))
        tokens.append(TestResponse(login).object["accessToken"] as? String ?? "")
      }
      let created = await service.handle(
        APIRequest(
          method: "POST", path: "/v1/conversations",
          headers: ["authorization": "Bearer \(tokens[0])"],
          body: Array(#"{"memberIds":["b\#(pair)"]}"#.utf8)))
      let conversation = TestResponse(created).object["id"] as? String ?? ""
      for token in tokens {
        requests.append(
          APIRequest(
            method: "POST", path: "/v1/conversations/\(conversation)/messages",
            headers: ["authorization": "Bearer \(token)"]))
      }
    }

    let clock = ContinuousClock()
    let deadline = clock.now + Self.duration
    let started = clock.now
    let total = await withTaskGroup(of: Int.self) { group in
      for template in requests {
        group.addTask {
          var request = template
          var sent = 0
          while clock.now < deadline {
            let body = #"{"clientMessageId":"\#(UUID().uuidString)","text":"benchmark message"}"#
            request.body = Array(body.utf8)
            let response = await service.handle(request)
            precondition(response.status == 201, "send failed: \(response.status)")
            sent += 1
          }
          return sent
        }
      }
      return await group.reduce(0, +)
    }
    let elapsed = clock.now - started
    let seconds: Double = elapsed.secondsValue
    let metrics = TestResponse(await service.handle(APIRequest(method: "GET", path: "/metrics")))
      .text
    let commits = metrics.split(separator: "\n").first { $0.hasPrefix("chat_store_commits_total ") }
    print(
      "GroupCommitBenchmark storeOnItsOwnExecutor=\(storeOnItsOwnExecutor) onDisk=\(onDisk): "
        + "\(total) sends in "
        + "\(String(format: "%.2f", seconds)) s = \(Int(Double(total) / seconds)) durable sends/s, "
        + "\(commits ?? "?") (\(Self.clients) clients)")
    #expect(total > 0)
  }
}

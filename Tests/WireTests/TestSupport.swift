import Foundation
import Glibc
import Synchronization

@testable import Wire

struct TimedOut: Error {}

/// Runs `operation`, failing with `TimedOut` if it takes longer than `seconds`: a bound on a
/// wait for an event, never a sleep used to synchronise. The bounds the tests pass are there to
/// turn a hang into a failure, not to time anything: CI runs every suite at once on two cores,
/// where a round trip over loopback that takes a millisecond alone once took over 10 s (so
/// they are 30–60 s).
///
/// On time-out the operation is cancelled but not waited for: a wait that ignores
/// cancellation (such as `WebSocket.waitUntilClosed()`) cannot turn a failure into a hang.
func withTimeout<T: Sendable>(
  seconds: Double, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
  let first = FirstOutcome<T>()
  return try await withCheckedThrowingContinuation { continuation in
    first.set(continuation)
    let work = Task {
      do {
        first.finish(.success(try await operation()))
      } catch {
        first.finish(.failure(error))
      }
    }
    let timer = Task {
      try? await Task.sleep(for: .seconds(seconds))
      first.finish(.failure(TimedOut()))
    }
    first.onFinish {
      work.cancel()
      timer.cancel()
    }
  }
}

/// The first of several outcomes resumes the continuation; the others are dropped.
private final class FirstOutcome<T: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<T, any Error>?
    var outcome: Result<T, any Error>?
    var cleanup: (@Sendable () -> Void)?
  }

  private let state = Mutex(State())

  func set(_ continuation: CheckedContinuation<T, any Error>) {
    state.withLock { $0.continuation = continuation }
  }

  /// Runs `body` once an outcome is in (at once if it already is).
  func onFinish(_ body: @escaping @Sendable () -> Void) {
    let finished = state.withLock { state in
      if state.outcome == nil { state.cleanup = body }
      return state.outcome != nil
    }
    if finished { body() }
  }

  func finish(_ result: Result<T, any Error>) {
    let taken = state.withLock {
      state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?)? in
      guard state.outcome == nil else { return nil }
      state.outcome = result
      defer {
        state.continuation = nil
        state.cleanup = nil
      }
      return (state.continuation, state.cleanup)
    }
    guard let (continuation, cleanup) = taken else { return }
    continuation?.resume(with: result)
    cleanup?()
  }
}

/// Sends raw bytes to 127.0.0.1:`port` and reads until the server closes (or 5 s pass), on a
/// thread of its own.
func rawExchange(port: Int, _ request: String) async -> String {
  String(decoding: await rawBytesExchange(port: port, Array(request.utf8)).reply, as: UTF8.self)
}

/// Connects to 127.0.0.1:`port`, sends `bytes` (then shuts its write side with
/// `closeAfterSending`), and reads until the server closes (or 30 s pass: a bound on a hang,
/// since CI runs every suite at once on two cores, where a 5 s bound once ended a keep-alive
/// exchange before the server had answered): what came back and how long the server took to
/// close.
func rawBytesExchange(port: Int, _ bytes: [UInt8], closeAfterSending: Bool = false) async
  -> (reply: [UInt8], elapsed: Duration)
{
  await onOwnThread {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { return ([], .zero) }
    let started = ContinuousClock.now
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    if closeAfterSending { shutdown(fd, Int32(SHUT_WR)) }
    var reply: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = recv(fd, &buffer, buffer.count, 0)
      if count <= 0 { break }
      reply.append(contentsOf: buffer[..<count])
    }
    return (reply, ContinuousClock.now - started)
  }
}

/// Runs blocking `work` on a thread of its own, never on one of the cooperative pool's few
/// threads: on a 2-core machine two blocking waits there (two raw exchanges from tests running
/// in parallel) would starve the server's handler tasks they wait for, until their time-outs.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    Thread { continuation.resume(returning: work()) }.start()
  }
}

/// A serial executor with its own thread, like the client engine's `ThreadExecutor`.
final class ThreadExecutor: SerialExecutor, @unchecked Sendable {
  // @unchecked: `jobs` and `stopped` are touched only while holding `condition`.
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var stopped = false
  private(set) var threadID: pthread_t?

  init() {
    let thread = Thread { [self] in run() }
    thread.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  func shutdown() {
    condition.lock()
    stopped = true
    condition.signal()
    condition.unlock()
  }

  private func run() {
    condition.lock()
    threadID = pthread_self()
    condition.unlock()
    while true {
      condition.lock()
      while jobs.isEmpty && !stopped { condition.wait() }
      if jobs.isEmpty {
        condition.unlock()
        return
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedSerialExecutor())
    }
  }
}

/// A server with the routes the integration tests use, on a free port.
func startTestServer(
  configure: (inout HTTPServer.Configuration) -> Void = { _ in }
) throws -> (HTTPServer, Int) {
  var router = Router()
  router.get("/healthz") { _ in .text("ok") }
  router.get("/big") { request in
    .text(String(repeating: "x", count: Int(request.queryParameters["size"] ?? "") ?? 0))
  }
  router.get("/echo") { request in
    guard request.headers["Authorization"] == "Bearer good" else {
      return .error(.unauthorized, code: "unauthorized", message: "Sign in again.")
    }
    return .webSocket { socket in
      for await text in socket.messages { try? socket.send(text: "echo: \(text)") }
    }
  }
  router.get("/push") { request in
    let count = Int(request.queryParameters["count"] ?? "") ?? 1
    let padding = String(repeating: ".", count: Int(request.queryParameters["size"] ?? "") ?? 0)
    return .webSocket { socket in
      for index in 0..<count { try? socket.send(text: "push \(index)\(padding)") }
      for await _ in socket.messages {}
    }
  }
  router.get("/push-only") { _ in
    .webSocket { socket in
      try? socket.send(text: "hello")
      await socket.waitUntilClosed()
    }
  }
  var configuration = HTTPServer.Configuration(port: 0, loopCount: 2)
  configuration.shutdownTimeout = .seconds(3)
  // Not these tests' subject (those that are set their own): the test process starts dozens
  // of suites at once on a 2-core machine, and a client task can wait seconds for a thread
  // before it writes its request; the default 10 s then closed connections under it.
  configuration.headerTimeout = .seconds(60)
  configure(&configuration)
  let server = HTTPServer(configuration: configuration, router: router)
  return (server, try server.start())
}

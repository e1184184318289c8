import ChatServer
import Dispatch
import Foundation
import Synchronization

/// `chat-server`: parses the options, starts the `ReferenceServer`, prints where it listens and
/// where its data is, and stops gracefully on the first SIGINT or SIGTERM (a second one ends
/// the process at once).
public enum ServerCommand {
  /// Exit statuses: 0 after a graceful stop, 64 for a wrong command line, 1 when it could not
  /// start.
  public static func main(arguments: [String], environment: [String: String]) async -> Int32 {
    let options: ServerOptions
    do {
      options = try ServerOptions.parse(arguments, environment: environment)
    } catch {
      printError("chat-server: \(error)\nRun chat-server --help for the options.")
      return 64
    }
    if options.showHelp {
      say(ServerOptions.help)
      return 0
    }
    // Watch the signals before starting, so one that arrives during start-up is not lost.
    let signals = SignalWatcher(signals: [SIGINT, SIGTERM])
    let server: ReferenceServer
    do {
      server = try ReferenceServer.start(options, log: try logSink(options.log))
    } catch {
      printError("chat-server: \(error)")
      return 1
    }
    say("chat-server listening on \(server.url)")
    say("data folder: \(options.dataFolder) (chat.sqlite, signing-key)")
    if options.devMode {
      say("dev mode: POST /v1/auth/dev-login signs anyone in")
    }
    if options.rateLimit == nil {
      say("rate limit: off")
    }

    let received = await signals.next()
    say("chat-server: \(received == SIGINT ? "SIGINT" : "SIGTERM"), stopping")
    signals.onNext { _ in
      printError("chat-server: second signal, exiting now")
      exit(130)
    }
    await server.stop()
    say("chat-server: stopped")
    return 0
  }

  static func logSink(_ destination: ServerOptions.LogDestination) throws(ServerStartError)
    -> any LogSink
  {
    switch destination {
    case .standardError: return FileLogSink()
    case .off: return DiscardingLogSink()
    case .file(let path):
      do {
        return try FileLogSink(path: path)
      } catch {
        throw .log(error.description)
      }
    }
  }

  /// One line on standard output, written at once (a pipe reader sees it without buffering).
  private static func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
  }

  private static func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }
}

/// Turns POSIX signals into awaitable events: the signals are ignored by the default handler
/// and delivered through dispatch sources instead.
final class SignalWatcher: @unchecked Sendable {
  // @unchecked: `sources` is written once in `init` and only kept alive afterwards (their
  // handlers run on their own queue); everything else is inside the `Mutex`.
  private let sources: [any DispatchSourceSignal]
  private let state = Mutex(State())

  private struct State {
    var pending: [Int32] = []
    var waiter: CheckedContinuation<Int32, Never>?
    var handler: (@Sendable (Int32) -> Void)?
  }

  init(signals: [Int32]) {
    let queue = DispatchQueue(label: "chat-server.signals")
    var sources: [any DispatchSourceSignal] = []
    for number in signals {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      sources.append(source)
    }
    self.sources = sources
    for (number, source) in zip(signals, sources) {
      source.setEventHandler { [weak self] in self?.deliver(number) }
      source.resume()
    }
  }

  private func deliver(_ number: Int32) {
    let action: (() -> Void)? = state.withLock { state in
      if let handler = state.handler { return { handler(number) } }
      if let waiter = state.waiter {
        state.waiter = nil
        return { waiter.resume(returning: number) }
      }
      state.pending.append(number)
      return nil
    }
    action?()
  }

  /// Waits for the next signal.
  func next() async -> Int32 {
    await withCheckedContinuation { continuation in
      let ready: Int32? = state.withLock { state in
        if !state.pending.isEmpty { return state.pending.removeFirst() }
        state.waiter = continuation
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  /// Calls `handler` for every later signal.
  func onNext(_ handler: @escaping @Sendable (Int32) -> Void) {
    let pending: [Int32] = state.withLock { state in
      state.handler = handler
      defer { state.pending = [] }
      return state.pending
    }
    for number in pending { handler(number) }
  }
}

import Dispatch
import Foundation

/// Standard input as an async sequence of key presses and window resizes. A thread of its own
/// does the blocking reads, so the main actor never waits on the keyboard.
final class KeyboardInput: @unchecked Sendable {
  // @unchecked: `running` is read by the reader thread and written once by `stop()`; a torn
  // read only delays the stop by one poll.
  enum Event: Sendable {
    case keys([Key])
    case resized
  }

  let events: AsyncStream<Event>
  private let continuation: AsyncStream<Event>.Continuation
  private var running = true
  private var resize: (any DispatchSourceSignal)?

  init() {
    (events, continuation) = AsyncStream.makeStream(of: Event.self)
  }

  func start() {
    let continuation = continuation
    let thread = Thread { [self] in
      var decoder = KeyDecoder()
      var buffer = [UInt8](repeating: 0, count: 1024)
      var idleAfterData = false
      while running {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 50)
        if ready > 0 {
          let count = read(STDIN_FILENO, &buffer, buffer.count)
          if count <= 0 {
            if count < 0 && errno == EINTR { continue }
            continuation.finish()
            return
          }
          let keys = decoder.decode(Array(buffer[0..<count]))
          if !keys.isEmpty { continuation.yield(.keys(keys)) }
          idleAfterData = true
        } else if idleAfterData {
          idleAfterData = false
          let keys = decoder.flush()
          if !keys.isEmpty { continuation.yield(.keys(keys)) }
        }
      }
      continuation.finish()
    }
    thread.start()
    signal(SIGWINCH, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
    source.setEventHandler { continuation.yield(.resized) }
    source.resume()
    resize = source
  }

  func stop() {
    running = false
    resize?.cancel()
    continuation.finish()
  }
}

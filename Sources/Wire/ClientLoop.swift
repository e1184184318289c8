import Glibc

/// An event loop on a thread of its own, for a caller that drives many client connections
/// itself from callbacks: a load generator. Its ``ClientChannel``s connect, write, and hand
/// over what Wire's codecs decode, all on this one thread; the caller reaches the thread with
/// ``execute(_:)``.
///
/// It is Wire's loop (edge-triggered `epoll`, one receive buffer shared by every connection,
/// a tick every 100 ms for the timeouts): nothing run on it may block. ``stop()`` ends the
/// thread once the jobs already queued have run; close the channels first.
///
/// ```swift
/// let loop = try ClientLoop(name: "load")
/// ClientChannel.connect(host: "127.0.0.1", port: 8080, on: loop) { result in
///   // on the loop's thread
///   guard case .success(let channel) = result else { return }
///   channel.onResponse = { head, body in print(head.status.code) }
///   channel.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
/// }
/// ```
public final class ClientLoop: Sendable {
  let loop: EventLoop

  /// Starts the thread, named `name`.
  public init(name: String) throws(SystemError) {
    do {
      loop = try EventLoop(name: name, tickMilliseconds: 100)
    } catch let error as SystemError {
      throw error
    } catch {
      throw SystemError("epoll_create1")
    }
    loop.start()
  }

  /// Runs `job` on the loop's thread, soon. Safe from any thread.
  public func execute(_ job: @escaping @Sendable () -> Void) {
    loop.execute(job)
  }

  /// Ends the thread after the jobs already queued.
  public func stop() {
    loop.stop()
  }
}

extension ClientLoop {
  /// Connects to `host` (a numeric IPv4 or IPv6 address): `done` hears the connection, or why
  /// there is none, on the loop's thread. The one connect of ``ClientChannel`` and
  /// ``StreamChannel``.
  func connect(
    host: String, port: Int, timeout: Duration,
    then done: @escaping (Result<TCPConnection, ConnectError>) -> Void
  ) {
    let attempt: ConnectAttempt
    do throws(ConnectError) {
      guard
        let address = try ClientConnect.addresses(of: host, port: port, flags: AI_NUMERICHOST)?
          .first
      else { throw .unknownHost(host, reason: "not a numeric address") }
      let deadline = monotonicMilliseconds() + timeout.milliseconds
      attempt = try ConnectAttempt.make(address, deadline: deadline, on: loop).get()
    } catch {
      let box = UncheckedDone(done)
      execute { box.done(.failure(error)) }
      return
    }
    let box = UncheckedDone(done)
    execute { attempt.start { box.done($0) } }
  }
}

/// A completion carried to the loop's thread, where alone it runs.
private struct UncheckedDone: @unchecked Sendable {
  let done: (Result<TCPConnection, ConnectError>) -> Void
  init(_ done: @escaping (Result<TCPConnection, ConnectError>) -> Void) { self.done = done }
}

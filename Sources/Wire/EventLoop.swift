import CEpoll
import Foundation
import Glibc
import Synchronization

/// Something registered with an ``EventLoop``: told about readiness and, on every tick, the
/// time (for its timeouts). Called only on the loop's thread.
protocol Selectable: AnyObject {
  func handleEvents(_ events: UInt32)
  func tick(now: Int64)
}

/// One thread running `epoll_wait` over non-blocking sockets.
///
/// Loops only do I/O and parsing; request handlers run as Swift tasks and come back with
/// ``execute(_:)``, which queues a job and wakes the loop through an eventfd. Timeouts are
/// checked by a tick every `tickMilliseconds` over every registered channel, which costs
/// little next to the I/O and keeps each connection's timers a pair of numbers.
final class EventLoop: @unchecked Sendable {
  // @unchecked: `channels`, `nextID`, `stopping` and every channel are touched only on the
  // loop's thread (the jobs of `execute` run there too); `inbox` is a Mutex.
  private struct Inbox {
    var jobs: [@Sendable () -> Void] = []
    var wakePending = false
    /// Set when the thread ends; later jobs are dropped.
    var isStopped = false
  }

  static let readable: UInt32 = 0x001
  static let writable: UInt32 = 0x004
  static let error: UInt32 = 0x008
  static let hangUp: UInt32 = 0x010
  static let readHangUp: UInt32 = 0x2000
  static let exclusive: UInt32 = 1 << 28
  static let edgeTriggered: UInt32 = 1 << 31

  let name: String
  let tickMilliseconds: Int64
  /// The time of the current iteration (monotonic milliseconds).
  private(set) var now: Int64
  /// One receive buffer shared by every connection of this loop.
  let readBuffer: UnsafeMutableRawBufferPointer

  private let epollFD: Int32
  private let wakeFD: Int32
  private let inbox = Mutex(Inbox())
  private var channels: [UInt64: any Selectable] = [:]
  private var nextID: UInt64 = 1
  private var stopping = false

  init(name: String, tickMilliseconds: Int64 = 250) throws {
    self.name = name
    self.tickMilliseconds = tickMilliseconds
    now = monotonicMilliseconds()
    epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
    guard epollFD >= 0 else { throw SystemError("epoll_create1") }
    wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
    guard wakeFD >= 0 else {
      let error = SystemError("eventfd")
      Glibc.close(epollFD)
      throw error
    }
    readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
    var event = epoll_event()
    event.events = EventLoop.readable
    event.data.u64 = 0
    epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
  }

  deinit {
    readBuffer.deallocate()
  }

  /// Starts the loop's thread.
  func start() {
    let thread = Thread { [self] in
      Thread.current.name = name
      run()
    }
    thread.start()
  }

  /// Runs `job` on the loop's thread, soon. Safe from any thread. After the loop has stopped
  /// the job is dropped.
  func execute(_ job: @escaping @Sendable () -> Void) {
    inbox.withLock { inbox in
      guard !inbox.isStopped else { return }
      inbox.jobs.append(job)
      if inbox.wakePending { return }
      inbox.wakePending = true
      // Written under the lock: once the loop has stopped, the descriptor may belong to
      // another file.
      eventfd_write(wakeFD, 1)
    }
  }

  /// Ends the loop after the jobs already queued; the thread closes the epoll and eventfd.
  func stop() {
    execute { [self] in stopping = true }
  }

  /// Adds `fd` with the interest `events`; returns the id that identifies `channel` in
  /// events (ids are never reused, so a late event for a closed socket finds nothing).
  @discardableResult
  func register(_ channel: any Selectable, fd: Int32, events: UInt32) throws -> UInt64 {
    let id = nextID
    nextID += 1
    var event = epoll_event()
    event.events = events
    event.data.u64 = id
    guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
      throw SystemError("epoll_ctl")
    }
    channels[id] = channel
    return id
  }

  /// Adds `channel` for ticks only (no socket).
  @discardableResult
  func addTicker(_ channel: any Selectable) -> UInt64 {
    let id = nextID
    nextID += 1
    channels[id] = channel
    return id
  }

  /// Removes a channel added with ``addTicker(_:)``.
  func removeTicker(id: UInt64) {
    channels[id] = nil
  }

  /// Removes `fd` from the interest list (before closing it, or to stop accepting).
  func deregister(id: UInt64, fd: Int32) {
    channels[id] = nil
    var event = epoll_event()
    epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
  }

  var channelCount: Int { channels.count }

  private func run() {
    let capacity = 256
    let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
    defer {
      events.deallocate()
      inbox.withLock { inbox in
        inbox.isStopped = true
        inbox.jobs = []
        Glibc.close(wakeFD)
      }
      Glibc.close(epollFD)
    }
    var nextTick = now + tickMilliseconds
    while !stopping {
      let timeout = Int32(clamping: max(0, nextTick - now))
      let count = epoll_wait(epollFD, events, Int32(capacity), timeout)
      now = monotonicMilliseconds()
      if count > 0 {
        for index in 0..<Int(count) {
          let id = events[index].data.u64
          let ready = events[index].events
          if id == 0 {
            var value: eventfd_t = 0
            eventfd_read(wakeFD, &value)
          } else if let channel = channels[id] {
            channel.handleEvents(ready)
          }
        }
      }
      runJobs()
      if now >= nextTick {
        nextTick = now + tickMilliseconds
        for channel in Array(channels.values) { channel.tick(now: now) }
      }
    }
  }

  private func runJobs() {
    let jobs = inbox.withLock { inbox in
      inbox.wakePending = false
      let jobs = inbox.jobs
      inbox.jobs = []
      return jobs
    }
    for job in jobs { job() }
  }
}

/// A set of loops, one per core by default, used round-robin.
final class EventLoopGroup: Sendable {
  let loops: [EventLoop]
  private let next = Atomic<Int>(0)

  init(count: Int, name: String, tickMilliseconds: Int64 = 250, start: Bool = true) throws {
    loops = try (0..<max(1, count)).map {
      try EventLoop(name: "\(name)-\($0)", tickMilliseconds: tickMilliseconds)
    }
    if start { self.start() }
  }

  func start() {
    for loop in loops { loop.start() }
  }

  func nextLoop() -> EventLoop {
    loops[next.add(1, ordering: .relaxed).oldValue % loops.count]
  }

  func stop() {
    for loop in loops { loop.stop() }
  }

  /// The group the clients (WebSocket and HTTP) use: one loop, started on first use, never
  /// stopped.
  static let shared: EventLoopGroup = {
    do {
      return try EventLoopGroup(count: 1, name: "wire-client", tickMilliseconds: 100)
    } catch {
      fatalError("Cannot start the clients' event loop: \(error)")
    }
  }()
}

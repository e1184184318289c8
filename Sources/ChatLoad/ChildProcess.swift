import Foundation
import Glibc
import Synchronization

/// A process the benchmarks and load tools start (a `chat-server`, `pgbench`, `curl`, a peer),
/// with the signal state of a process started from a shell: no signal blocked and every
/// handler at its default.
///
/// `posix_spawn` (and Foundation's `Process`, built on it) otherwise hands a child the calling
/// thread's signal mask and every signal its parent ignores. A tool that blocks or ignores a
/// signal for its own threads then starts children that never see it: `pgbench -T 10` ends
/// on SIGALRM, and with it blocked ran forever, taking the whole benchmark run with it.
///
/// Every child alive is known, with the job that started it (`owner`, a task-local value): a
/// benchmark figure that ran out of time is `retire`d, which kills what it started and refuses
/// it anything new, so that nothing of it goes on running beside the next figures.
public final class ChildProcess: @unchecked Sendable {
  /// Where one of the child's standard streams goes.
  public enum Stream: Sendable {
    /// The parent's own.
    case inherit
    /// `/dev/null`.
    case null
    /// A pipe: the parent's end is `input` (for standard input) or `output` / `errors`.
    case pipe
  }

  /// How a child ended.
  public enum Termination: Equatable, Sendable {
    case exited(Int32)
    case signalled(Int32)
  }

  public let pid: pid_t
  /// The write end of the child's standard input, when it is a pipe.
  public let input: FileHandle?
  /// The read end of its standard output, when it is a pipe.
  public let output: FileHandle?
  /// The read end of its standard error, when it is a pipe.
  public let errors: FileHandle?
  private let ended = Mutex<Termination?>(nil)

  /// The job the children started in this task belong to (0: none in particular).
  @TaskLocal public static var owner = 0
  private static let alive = Mutex<[pid_t: Int]>([:])
  private static let retired = Mutex<Set<Int>>([])

  /// Starts `executable` with `arguments`; `environment` replaces the parent's when given.
  public init(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    input inputStream: Stream = .inherit, output outputStream: Stream = .inherit,
    errors errorStream: Stream = .inherit
  ) throws(LoadError) {
    let owner = Self.owner
    guard !Self.retired.withLock({ $0.contains(owner) }) else {
      throw LoadError("not starting \(executable): its job ran out of time")
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // Each pipe: (the child's end, the parent's end).
    var pipes: [Int32: (child: Int32, parent: Int32)] = [:]
    let streams: [(Int32, Stream)] = [
      (STDIN_FILENO, inputStream), (STDOUT_FILENO, outputStream), (STDERR_FILENO, errorStream),
    ]
    for (descriptor, stream) in streams {
      switch stream {
      case .inherit: break
      case .null:
        posix_spawn_file_actions_addopen(
          &actions, descriptor, "/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
      case .pipe:
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
          let reason = errno
          for (_, made) in pipes {
            close(made.child)
            close(made.parent)
          }
          throw LoadError("cannot start \(executable): pipe failed, errno \(reason)")
        }
        // Neither end goes to other children (a child spawned by another thread between these
        // two calls could take one: the tools spawn from one thread at a time); the child gets
        // its end by `dup2`.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (child, parent) = descriptor == STDIN_FILENO ? (ends[0], ends[1]) : (ends[1], ends[0])
        pipes[descriptor] = (child, parent)
        posix_spawn_file_actions_adddup2(&actions, child, descriptor)
      }
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var nothing = sigset_t()
    sigemptyset(&nothing)
    posix_spawnattr_setsigmask(&attributes, &nothing)
    var everything = sigset_t()
    sigfillset(&everything)
    posix_spawnattr_setsigdefault(&attributes, &everything)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0)=\($1)" }
    let envp = variables.map { strdup($0) } + [nil]
    defer { for variable in envp { free(variable) } }
    var started: pid_t = 0
    let status = posix_spawn(&started, executable, &actions, &attributes, argv, envp)
    for (_, ends) in pipes { close(ends.child) }
    guard status == 0 else {
      for (_, ends) in pipes { close(ends.parent) }
      throw LoadError("cannot start \(executable): \(String(cString: strerror(status)))")
    }
    pid = started
    func handle(_ descriptor: Int32) -> FileHandle? {
      pipes[descriptor].map { FileHandle(fileDescriptor: $0.parent, closeOnDealloc: true) }
    }
    input = handle(STDIN_FILENO)
    output = handle(STDOUT_FILENO)
    errors = handle(STDERR_FILENO)
    Self.alive.withLock { $0[started] = owner }
  }

  /// Whether it has not ended yet (reaps it when it has).
  public var isRunning: Bool { poll(blocking: false) == nil }

  /// Waits for it to end.
  @discardableResult
  public func wait() -> Termination {
    while true {
      if let termination = poll(blocking: true) { return termination }
    }
  }

  /// Sends `signal` (nothing once it ended and was reaped).
  public func send(_ signal: Int32) {
    if ended.withLock({ $0 == nil }) { kill(pid, signal) }
  }

  /// SIGKILLs every child `owner` started that is still alive, and refuses it new ones.
  public static func retire(_ owner: Int) {
    retired.withLock { _ = $0.insert(owner) }
    for (pid, started) in alive.withLock({ $0 }) where started == owner { kill(pid, SIGKILL) }
  }

  /// SIGKILLs every child still alive (a tool about to exit).
  public static func killAll() {
    for pid in alive.withLock({ $0.keys }) { kill(pid, SIGKILL) }
  }

  /// Reaps it when it ended (waiting for that when `blocking`). `waitpid` runs outside the
  /// lock, so `send` and `isRunning` never wait behind a blocking `wait()`; a thread that
  /// finds the child reaped by another (ECHILD) reads what that one stored.
  private func poll(blocking: Bool) -> Termination? {
    var yields = 0
    while true {
      if let known = ended.withLock({ $0 }) { return known }
      var status: Int32 = 0
      let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
      if result == 0 { return nil }
      if result < 0 {
        if errno == EINTR { continue }
        if errno == ECHILD {
          // Another thread reaped it and is storing how it ended (or, after a while of
          // nothing stored, something else of the process reaped it: how it ended is lost).
          guard blocking else { return ended.withLock { $0 } }
          yields += 1
          guard yields > 10_000 else {
            sched_yield()
            continue
          }
          return store(.exited(-1))
        }
        return store(.exited(-1))
      }
      let signal = status & 0x7f
      return store(signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal))
    }
  }

  private func store(_ termination: Termination) -> Termination {
    ended.withLock { $0 = $0 ?? termination }
    _ = Self.alive.withLock { $0.removeValue(forKey: pid) }
    return termination
  }
}

import ChatLoad
import Foundation
import Glibc
import Testing

/// The processes the tools start (`pgbench`, `chat-server`, peers) begin with the signal state
/// of a shell's child, whatever their parent blocks or ignores.
@Suite(.timeLimit(.minutes(1)))
struct ChildProcessTests {
  /// `pgbench -T` ends on SIGALRM: started from a thread that blocks it, it never ended.
  @Test func aChildStartedWhereSIGALRMIsBlockedStillWakesOnItsAlarm() throws {
    let child = try withSignalBlocked(SIGALRM) {
      try ChildProcess(
        "/usr/bin/python3",
        ["-c", "import signal, time\nsignal.alarm(1)\ntime.sleep(20)"], errors: .null)
    }
    #expect(child.wait() == .signalled(SIGALRM))
  }

  /// The tools ignore SIGPIPE (a write to a closed socket is an error, not death); their
  /// children get it back at its default, with every other standard signal (1–31: glibc keeps
  /// its own two real-time signals, 32 and 33, for itself).
  @Test func aChildStartsWithNoSignalBlockedAndNoneIgnored() throws {
    signal(SIGPIPE, SIG_IGN)
    let child = try withSignalBlocked(SIGALRM) {
      try ChildProcess("/bin/grep", ["-E", "^Sig(Blk|Ign)", "/proc/self/status"], output: .pipe)
    }
    let text = String(decoding: child.output?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
    #expect(child.wait() == .exited(0))
    var masks: [String: UInt64] = [:]
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: "\t")
      if fields.count == 2 { masks[String(fields[0])] = UInt64(fields[1], radix: 16) }
    }
    let standard: UInt64 = 0x7fff_ffff
    #expect(masks["SigBlk:"].map { $0 & standard } == 0)
    #expect(masks["SigIgn:"].map { $0 & standard } == 0)
  }

  @Test func aProgramThatCannotStartIsAClearError() {
    #expect(throws: LoadError.self) {
      try ChildProcess("/nonexistent/pgbench", [])
    }
  }

  /// Runs `body` on this thread with `signal` blocked (as a dispatch or tool thread may have
  /// it), then restores the thread's mask.
  private func withSignalBlocked<T>(_ signal: Int32, _ body: () throws -> T) rethrows -> T {
    var blocked = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, signal)
    var previous = sigset_t()
    pthread_sigmask(SIG_BLOCK, &blocked, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    return try body()
  }
}

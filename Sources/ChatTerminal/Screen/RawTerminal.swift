import Dispatch
import Foundation

/// The terminal in raw mode, on the alternate screen, restored on every way out: a normal exit,
/// SIGTERM, and the crash signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT), whose handler
/// restores the saved settings and re-raises.
public final class RawTerminal: @unchecked Sendable {
  // @unchecked: `saved` is written once in `enter()` before any handler can run.
  public struct Size: Equatable, Sendable {
    public var rows: Int
    public var columns: Int

    public init(rows: Int, columns: Int) {
      self.rows = rows
      self.columns = columns
    }
  }

  private var entered = false

  public init() {}

  /// True when standard input and output are a terminal.
  public static var isAvailable: Bool {
    isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
  }

  /// Raw mode (no echo, no line buffering, no signals from keys), alternate screen, hidden
  /// cursor.
  public func enter() {
    guard !entered else { return }
    var original = termios()
    tcgetattr(STDIN_FILENO, &original)
    savedTerminal = original
    hasSavedTerminal = true
    // Handlers first: a crash after the screen switch must find them in place.
    for signalNumber in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT] {
      signal(signalNumber, restoreAndReraise)
    }
    var raw = original
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
    raw.c_oflag &= ~tcflag_t(OPOST)
    raw.c_cflag |= tcflag_t(CS8)
    withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
      bytes[Int(VMIN)] = 1
      bytes[Int(VTIME)] = 0
    }
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
    write(Self.enterSequence)
    entered = true
  }

  /// Back to how the terminal was.
  public func restore() {
    guard entered else { return }
    entered = false
    write(Self.leaveSequence)
    if hasSavedTerminal { tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedTerminal) }
  }

  /// The window's size now.
  public var size: Size {
    var window = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 else {
      return Size(rows: 24, columns: 80)
    }
    return Size(rows: Int(window.ws_row), columns: Int(window.ws_col))
  }

  /// Writes a whole frame at once.
  public func write(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeMutableBytes {
        Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset)
      }
      if written <= 0 {
        if errno == EINTR { continue }
        return
      }
      offset += written
    }
  }

  static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J"
  static let leaveSequence = "\u{1B}[?1049l\u{1B}[0m\u{1B}[?25h"
}

// What the crash handler needs, reachable without captures from a C signal handler.
nonisolated(unsafe) private var savedTerminal = termios()
nonisolated(unsafe) private var hasSavedTerminal = false

private func restoreAndReraise(_ signalNumber: Int32) {
  let leave = "\u{1B}[?1049l\u{1B}[0m\u{1B}[?25h"
  leave.withCString { _ = Glibc.write(STDOUT_FILENO, $0, strlen($0)) }
  if hasSavedTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal) }
  signal(signalNumber, SIG_DFL)
  raise(signalNumber)
}

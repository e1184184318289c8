/// Marks a wait that waits for nothing but the other side or the passing of time: a long poll
/// held until something changes, the timer that closes a live socket when its token expires.
/// A simulated world that must go quiet may call itself quiet with only such waits left (a
/// device that long-polls, or holds a socket, is never idle otherwise); nothing else reads it.
public enum IdleWait {
  /// True inside `IdleWait.$isActive.withValue(true) { … }`.
  @TaskLocal public static var isActive = false
}

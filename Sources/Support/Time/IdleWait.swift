/// Marks a wait that waits for nothing but the other side: a long poll held until something
/// changes. A simulated world that must go quiet may call itself quiet with only such waits
/// left (a device that long-polls is never idle otherwise); nothing else reads it.
public enum IdleWait {
  /// True inside `IdleWait.$isActive.withValue(true) { … }`.
  @TaskLocal public static var isActive = false
}

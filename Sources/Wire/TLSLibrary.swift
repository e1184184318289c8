import CCryptoLifetime

/// OpenSSL as a process uses it: started before `main` with its exit-time clean-up off
/// (`Sources/CCryptoLifetime/lifetime.c` says why: a process that exits during a handshake on
/// another thread crashed in that clean-up).
public enum TLSLibrary {
  /// Whether OpenSSL was started without its clean-up at exit, as every process linking Wire
  /// or Hashing starts it.
  public static var skipsCleanUpAtExit: Bool { crypto_lifetime_kept_at_exit() == 1 }
}

import CPowerLoss

/// The world's disk under SQLite: what a simulated machine wrote since its last sync is still in
/// its page cache, and a power loss takes it (the storage seam of `docs/simulation.md`).
///
/// `install()` makes the C VFS of `CPowerLoss` SQLite's default for the process. It passes every
/// file through to the unix VFS unchanged, and keeps, for files whose path starts with a prefix
/// given to `track`, what each write replaced since that file's last fsync. `losePower` gives
/// those files back the bytes and size of their last fsync, as a disk keeps only what was
/// synced, and kills every connection open on them (each later call is an I/O error).
///
/// A process killed without a power loss loses nothing SQLite handed to the kernel; this is the
/// fault beyond it, where `PRAGMA synchronous` decides what survives.
public enum PageCache {
  /// Installs the VFS (once per process; later calls do nothing).
  public static func install() throws(PageCacheError) {
    let code = power_loss_install()
    guard code == 0 else { throw PageCacheError(reason: "SQLite refused the VFS (\(code))") }
  }

  /// Tracks the files whose full path starts with `prefix` (a database's path tracks it and its
  /// `-wal` and `-shm`). Files opened before this call are not tracked.
  public static func track(_ prefix: String) {
    power_loss_track(prefix)
  }

  /// The power goes for the files under `prefix`; returns how many bytes they had not synced.
  public static func losePower(under prefix: String) throws(PageCacheError) -> Int {
    let lost = power_loss_cut(prefix)
    guard lost >= 0 else {
      throw PageCacheError(reason: "a file under \(prefix) could not get its synced bytes back")
    }
    return Int(lost)
  }

  /// Stops tracking `prefix` and forgets what was kept (the run is over).
  public static func forget(_ prefix: String) {
    power_loss_forget(prefix)
  }
}

/// The page-cache model could not do what it was asked.
public struct PageCacheError: Error, CustomStringConvertible {
  public let reason: String
  public var description: String { "page cache: \(reason)" }
}

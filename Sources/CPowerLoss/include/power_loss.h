#ifndef POWER_LOSS_H
#define POWER_LOSS_H

// A SQLite VFS that models the page cache, so a simulated machine can lose its power.
//
// Installed as SQLite's default VFS, it hands every file to the VFS that was the default (unix)
// and changes nothing for a file outside a folder given to `power_loss_track`. For a file inside
// one, it keeps what each write replaced since the file's last sync (xSync: fsync), and the
// file's size then. `power_loss_cut` is the power going: every such file gets back the bytes and
// the size it had at its last sync, as a disk holds only what was synced, and every connection
// open on one is dead (each later call fails with an I/O error, as a process that died makes
// none). A deletion is durable at once (the unix VFS syncs the folder).

/// Installs the VFS as the default (once; later calls do nothing). SQLITE_OK or SQLite's error.
int power_loss_install(void);

/// Files whose full path starts with `prefix` (a folder ending in '/', or a database's path for
/// it and its `-wal` and `-shm`) are tracked from now on: open them after this call. A file's
/// state at its first open counts as synced.
void power_loss_track(const char *prefix);

/// The power goes for the files under `prefix`: see above. Returns how many bytes of tracked
/// files were not yet synced (the bytes lost: writes undone, plus growth cut off), or -1 when a
/// file could not be given its synced bytes back.
long long power_loss_cut(const char *prefix);

/// Stops tracking the files under `prefix` and forgets what was kept for them (a run that ends).
void power_loss_forget(const char *prefix);

#endif

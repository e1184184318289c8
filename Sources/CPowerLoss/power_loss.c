// A SQLite VFS that models the page cache: see include/power_loss.h for what it promises.
//
// Each tracked file has one record per path (every connection's handle on the path shares it,
// as every file descriptor shares the inode): its size at the last sync and, newest first, the
// bytes each write or truncation replaced since then inside that size. Undoing the records
// newest first and cutting the file to that size gives back exactly what the last sync made
// durable. The records live until a sync, a deletion or `power_loss_forget`, however many
// connections open and close meanwhile: a process that ends does not sync what it wrote.

#include "power_loss.h"

#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/// The bytes [offset, offset + length) held before a write or truncation changed them.
typedef struct Undo {
  sqlite3_int64 offset;
  int length;
  struct Undo *previous;
  unsigned char bytes[];
} Undo;

/// A tracked database's shared-memory index (see `shmOf`).
typedef struct Shm {
  int references;
  int regionCount;
  void **regions;
  int shared[SQLITE_SHM_NLOCK];
  struct PLFile *exclusive[SQLITE_SHM_NLOCK];
} Shm;

/// One tracked path.
typedef struct Tracked {
  char *path;
  /// The size at the last sync (-1 until the first open reads it).
  sqlite3_int64 syncedSize;
  /// The file the record is about: a path deleted and made again outside SQLite (`unlink`) is
  /// another file, whose record starts anew.
  dev_t device;
  ino_t inode;
  /// Newest first.
  Undo *last;
  /// A database's shared-memory index while a connection maps it.
  Shm *shm;
  struct Tracked *next;
} Tracked;

typedef struct Prefix {
  char *path;
  struct Prefix *next;
} Prefix;

/// A handle: ours, then the base VFS's own file right after it.
typedef struct PLFile {
  sqlite3_file base;
  sqlite3_file *real;
  /// NULL: the file is passed through untouched.
  Tracked *tracked;
  /// The power went: every call fails, nothing reaches the file.
  int dead;
  /// The shared-memory index it mapped (tracked databases), and the slots it holds shared.
  struct Shm *shm;
  unsigned sharedMask;
  struct PLFile *nextOpen;
} PLFile;

#define HEADER_SIZE ((sizeof(PLFile) + 7) & ~(size_t)7)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sqlite3_vfs *baseVfs;
static sqlite3_vfs vfs;
static Prefix *prefixes;
static Tracked *trackedFiles;
/// The open handles of tracked files.
static PLFile *openFiles;

static int startsWith(const char *path, const char *prefix) {
  return strncmp(path, prefix, strlen(prefix)) == 0;
}

static void freeUndo(Tracked *t) {
  while (t->last) {
    Undo *u = t->last;
    t->last = u->previous;
    free(u);
  }
}

/// Keeps the bytes [offset, end) as they are now (clipped to the synced size and the file's
/// current size), before a write or truncation changes them. Called with the lock held.
static int remember(PLFile *p, sqlite3_int64 offset, sqlite3_int64 end) {
  Tracked *t = p->tracked;
  // Past the synced size there is nothing to keep (the cut takes it all): a log that grows
  // costs no system call here.
  if (end > t->syncedSize) end = t->syncedSize;
  if (end <= offset) return SQLITE_OK;
  sqlite3_int64 size = 0;
  int rc = p->real->pMethods->xFileSize(p->real, &size);
  if (rc != SQLITE_OK) return rc;
  if (end > size) end = size;
  if (end <= offset) return SQLITE_OK;
  int length = (int)(end - offset);
  Undo *u = malloc(sizeof(Undo) + (size_t)length);
  if (!u) return SQLITE_IOERR_NOMEM;
  rc = p->real->pMethods->xRead(p->real, u->bytes, length, offset);
  if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) {
    free(u);
    return rc;
  }
  u->offset = offset;
  u->length = length;
  u->previous = t->last;
  t->last = u;
  return SQLITE_OK;
}

/// The shared-memory index of a tracked database, in this process's memory instead of a
/// `-shm` file: the power cut detaches it from its path (its dead connections keep reading the
/// memory they mapped, which stays until they unmap it), so the next connection finds none and
/// rebuilds the index from what the log holds after the cut, as after a reboot. Called with
/// the lock held.
static Shm *shmOf(PLFile *p) {
  if (p->shm) return p->shm;
  Tracked *t = p->tracked;
  if (!t->shm) {
    t->shm = calloc(1, sizeof(Shm));
    if (!t->shm) return NULL;
  }
  p->shm = t->shm;
  p->shm->references += 1;
  return p->shm;
}

static void releaseShm(PLFile *p) {
  Shm *shm = p->shm;
  if (!shm) return;
  for (int slot = 0; slot < SQLITE_SHM_NLOCK; slot++) {
    if (p->sharedMask & (1u << slot)) shm->shared[slot] -= 1;
    if (shm->exclusive[slot] == p) shm->exclusive[slot] = 0;
  }
  p->sharedMask = 0;
  p->shm = 0;
  shm->references -= 1;
  if (shm->references > 0) return;
  if (p->tracked && p->tracked->shm == shm) p->tracked->shm = 0;
  for (int region = 0; region < shm->regionCount; region++) free(shm->regions[region]);
  free(shm->regions);
  free(shm);
}

// MARK: - The file's methods

static int plClose(sqlite3_file *file) {
  PLFile *p = (PLFile *)file;
  int rc = SQLITE_OK;
  if (!p->dead) rc = p->real->pMethods->xClose(p->real);
  pthread_mutex_lock(&lock);
  releaseShm(p);
  for (PLFile **link = &openFiles; *link; link = &(*link)->nextOpen) {
    if (*link == p) {
      *link = p->nextOpen;
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

static int plRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
  PLFile *p = (PLFile *)file;
  if (p->dead) return SQLITE_IOERR_READ;
  return p->real->pMethods->xRead(p->real, buffer, amount, offset);
}

static int plWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
  PLFile *p = (PLFile *)file;
  if (p->dead) return SQLITE_IOERR_WRITE;
  pthread_mutex_lock(&lock);
  int rc = p->tracked ? remember(p, offset, offset + amount) : SQLITE_OK;
  pthread_mutex_unlock(&lock);
  if (rc != SQLITE_OK) return rc;
  return p->real->pMethods->xWrite(p->real, buffer, amount, offset);
}

static int plTruncate(sqlite3_file *file, sqlite3_int64 size) {
  PLFile *p = (PLFile *)file;
  if (p->dead) return SQLITE_IOERR_TRUNCATE;
  pthread_mutex_lock(&lock);
  int rc = p->tracked ? remember(p, size, (sqlite3_int64)1 << 62) : SQLITE_OK;
  pthread_mutex_unlock(&lock);
  if (rc != SQLITE_OK) return rc;
  return p->real->pMethods->xTruncate(p->real, size);
}

static int plSync(sqlite3_file *file, int flags) {
  PLFile *p = (PLFile *)file;
  if (p->dead) return SQLITE_IOERR_FSYNC;
  int rc = p->real->pMethods->xSync(p->real, flags);
  if (rc != SQLITE_OK) return rc;
  pthread_mutex_lock(&lock);
  Tracked *t = p->tracked;
  if (t) {
    sqlite3_int64 size = 0;
    rc = p->real->pMethods->xFileSize(p->real, &size);
    if (rc == SQLITE_OK) {
      freeUndo(t);
      t->syncedSize = size;
    }
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

static int plFileSize(sqlite3_file *file, sqlite3_int64 *size) {
  PLFile *p = (PLFile *)file;
  if (p->dead) return SQLITE_IOERR_FSTAT;
  return p->real->pMethods->xFileSize(p->real, size);
}

static int plLock(sqlite3_file *file, int level) {
  PLFile *p = (PLFile *)file;
  if (p->dead) return SQLITE_IOERR_LOCK;
  return p->real->pMethods->xLock(p->real, level);
}

static int plUnlock(sqlite3_file *file, int level) {
  PLFile *p = (PLFile *)file;
  if (p->dead) return SQLITE_OK;
  return p->real->pMethods->xUnlock(p->real, level);
}

static int plCheckReservedLock(sqlite3_file *file, int *reserved) {
  PLFile *p = (PLFile *)file;
  if (p->dead) return SQLITE_IOERR_CHECKRESERVEDLOCK;
  return p->real->pMethods->xCheckReservedLock(p->real, reserved);
}

static int plFileControl(sqlite3_file *file, int op, void *argument) {
  PLFile *p = (PLFile *)file;
  if (p->dead) return SQLITE_NOTFOUND;
  return p->real->pMethods->xFileControl(p->real, op, argument);
}

static int plSectorSize(sqlite3_file *file) {
  PLFile *p = (PLFile *)file;
  if (p->dead) return 4096;
  return p->real->pMethods->xSectorSize(p->real);
}

static int plDeviceCharacteristics(sqlite3_file *file) {
  PLFile *p = (PLFile *)file;
  if (p->dead) return 0;
  return p->real->pMethods->xDeviceCharacteristics(p->real);
}

static int plShmMap(sqlite3_file *file, int page, int size, int extend, void volatile **memory) {
  PLFile *p = (PLFile *)file;
  *memory = 0;
  if (p->dead) return SQLITE_IOERR_SHMMAP;
  if (!p->tracked && !p->shm) {
    return p->real->pMethods->xShmMap(p->real, page, size, extend, memory);
  }
  int rc = SQLITE_OK;
  pthread_mutex_lock(&lock);
  Shm *shm = shmOf(p);
  if (!shm) {
    rc = SQLITE_IOERR_NOMEM;
  } else if (page >= shm->regionCount && extend) {
    void **regions = realloc(shm->regions, sizeof(void *) * (size_t)(page + 1));
    if (!regions) {
      rc = SQLITE_IOERR_NOMEM;
    } else {
      shm->regions = regions;
      for (; shm->regionCount <= page; shm->regionCount++) {
        regions[shm->regionCount] = calloc(1, (size_t)size);
        if (!regions[shm->regionCount]) {
          rc = SQLITE_IOERR_NOMEM;
          break;
        }
      }
    }
  }
  if (rc == SQLITE_OK && shm && page < shm->regionCount) *memory = shm->regions[page];
  pthread_mutex_unlock(&lock);
  return rc;
}

static int plShmLock(sqlite3_file *file, int offset, int count, int flags) {
  PLFile *p = (PLFile *)file;
  if (p->dead) return (flags & SQLITE_SHM_UNLOCK) ? SQLITE_OK : SQLITE_IOERR_SHMLOCK;
  if (!p->tracked && !p->shm) return p->real->pMethods->xShmLock(p->real, offset, count, flags);
  int rc = SQLITE_OK;
  pthread_mutex_lock(&lock);
  Shm *shm = shmOf(p);
  if (!shm) {
    pthread_mutex_unlock(&lock);
    return SQLITE_IOERR_NOMEM;
  }
  if (flags & SQLITE_SHM_UNLOCK) {
    for (int slot = offset; slot < offset + count; slot++) {
      if (p->sharedMask & (1u << slot)) {
        p->sharedMask &= ~(1u << slot);
        shm->shared[slot] -= 1;
      }
      if (shm->exclusive[slot] == p) shm->exclusive[slot] = 0;
    }
  } else if (flags & SQLITE_SHM_SHARED) {
    for (int slot = offset; slot < offset + count && rc == SQLITE_OK; slot++) {
      if (shm->exclusive[slot] && shm->exclusive[slot] != p) rc = SQLITE_BUSY;
    }
    for (int slot = offset; slot < offset + count && rc == SQLITE_OK; slot++) {
      if (!(p->sharedMask & (1u << slot))) {
        p->sharedMask |= 1u << slot;
        shm->shared[slot] += 1;
      }
    }
  } else {
    for (int slot = offset; slot < offset + count && rc == SQLITE_OK; slot++) {
      int mine = (p->sharedMask & (1u << slot)) ? 1 : 0;
      if ((shm->exclusive[slot] && shm->exclusive[slot] != p) || shm->shared[slot] > mine) {
        rc = SQLITE_BUSY;
      }
    }
    for (int slot = offset; slot < offset + count && rc == SQLITE_OK; slot++) {
      shm->exclusive[slot] = p;
    }
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

static void plShmBarrier(sqlite3_file *file) {
  PLFile *p = (PLFile *)file;
  if (p->dead || p->tracked || p->shm) {
    __sync_synchronize();
    return;
  }
  p->real->pMethods->xShmBarrier(p->real);
}

static int plShmUnmap(sqlite3_file *file, int deleteFlag) {
  PLFile *p = (PLFile *)file;
  if (p->dead || p->shm) {
    pthread_mutex_lock(&lock);
    releaseShm(p);
    pthread_mutex_unlock(&lock);
    return SQLITE_OK;
  }
  if (p->tracked) return SQLITE_OK;
  return p->real->pMethods->xShmUnmap(p->real, deleteFlag);
}

static int plFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **memory) {
  PLFile *p = (PLFile *)file;
  *memory = 0;
  if (p->dead || p->real->pMethods->iVersion < 3) return SQLITE_OK;
  return p->real->pMethods->xFetch(p->real, offset, amount, memory);
}

static int plUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *memory) {
  PLFile *p = (PLFile *)file;
  if (p->dead || p->real->pMethods->iVersion < 3) return SQLITE_OK;
  return p->real->pMethods->xUnfetch(p->real, offset, memory);
}

static const sqlite3_io_methods methods = {
    3, plClose, plRead, plWrite, plTruncate, plSync, plFileSize, plLock, plUnlock,
    plCheckReservedLock, plFileControl, plSectorSize, plDeviceCharacteristics, plShmMap,
    plShmLock, plShmBarrier, plShmUnmap, plFetch, plUnfetch,
};

// MARK: - The VFS's methods

/// The record of `path` when it starts with a tracked prefix (made on first use), else NULL.
/// Called with the lock held.
static Tracked *trackedRecord(const char *path) {
  int inside = 0;
  for (Prefix *f = prefixes; f && !inside; f = f->next) inside = startsWith(path, f->path);
  if (!inside) return NULL;
  for (Tracked *t = trackedFiles; t; t = t->next) {
    if (strcmp(t->path, path) == 0) return t;
  }
  Tracked *t = calloc(1, sizeof(Tracked));
  if (!t) return NULL;
  t->path = strdup(path);
  if (!t->path) {
    free(t);
    return NULL;
  }
  t->syncedSize = -1;
  t->next = trackedFiles;
  trackedFiles = t;
  return t;
}

static int plOpen(
    sqlite3_vfs *unused, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
  (void)unused;
  PLFile *p = (PLFile *)file;
  memset(p, 0, sizeof(PLFile));
  p->real = (sqlite3_file *)((char *)p + HEADER_SIZE);
  int rc = baseVfs->xOpen(baseVfs, name, p->real, flags, outFlags);
  if (rc != SQLITE_OK) {
    p->base.pMethods = 0;
    return rc;
  }
  p->base.pMethods = &methods;
  if (!name) return SQLITE_OK;
  pthread_mutex_lock(&lock);
  Tracked *t = trackedRecord(name);
  if (t) {
    struct stat status;
    if (stat(name, &status) != 0) {
      rc = SQLITE_IOERR_FSTAT;
    } else if (t->syncedSize < 0 || status.st_dev != t->device || status.st_ino != t->inode) {
      freeUndo(t);
      t->syncedSize = status.st_size;
      t->device = status.st_dev;
      t->inode = status.st_ino;
    }
    p->tracked = t;
    p->nextOpen = openFiles;
    openFiles = p;
  }
  pthread_mutex_unlock(&lock);
  if (rc != SQLITE_OK) {
    plClose(file);
    p->base.pMethods = 0;
  }
  return rc;
}

/// Forgets `t` (unlinked by the caller); open handles on it are passed through from now on.
/// Called with the lock held.
static void dropRecord(Tracked *t) {
  for (PLFile **link = &openFiles; *link;) {
    PLFile *p = *link;
    if (p->tracked == t) {
      p->tracked = 0;
      *link = p->nextOpen;
    } else {
      link = &p->nextOpen;
    }
  }
  freeUndo(t);
  free(t->path);
  free(t);
}

static int plDelete(sqlite3_vfs *unused, const char *name, int syncFolder) {
  (void)unused;
  int rc = baseVfs->xDelete(baseVfs, name, syncFolder);
  pthread_mutex_lock(&lock);
  for (Tracked **link = &trackedFiles; *link; link = &(*link)->next) {
    if (strcmp((*link)->path, name) == 0) {
      Tracked *t = *link;
      *link = t->next;
      dropRecord(t);
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

static pthread_once_t installed = PTHREAD_ONCE_INIT;
static int installCode = SQLITE_OK;

static void installOnce(void) {
  installCode = sqlite3_initialize();
  if (installCode != SQLITE_OK) return;
  baseVfs = sqlite3_vfs_find(0);
  if (!baseVfs) {
    installCode = SQLITE_ERROR;
    return;
  }
  // The base's own functions for everything but files: they read only what is copied here.
  vfs = *baseVfs;
  vfs.pNext = 0;
  vfs.zName = "power-loss";
  vfs.szOsFile = (int)(HEADER_SIZE + (size_t)baseVfs->szOsFile);
  vfs.xOpen = plOpen;
  vfs.xDelete = plDelete;
  installCode = sqlite3_vfs_register(&vfs, 1);
}

int power_loss_install(void) {
  pthread_once(&installed, installOnce);
  return installCode;
}

void power_loss_track(const char *prefix) {
  pthread_mutex_lock(&lock);
  Prefix *f = calloc(1, sizeof(Prefix));
  if (f) {
    f->path = strdup(prefix);
    f->next = prefixes;
    prefixes = f;
  }
  pthread_mutex_unlock(&lock);
}

long long power_loss_cut(const char *prefix) {
  long long lost = 0;
  int failed = 0;
  pthread_mutex_lock(&lock);
  // Every connection on a file under the prefix dies with the machine: its locks, its
  // descriptors and its shared-memory index go as a process's do.
  for (PLFile **link = &openFiles; *link;) {
    PLFile *p = *link;
    if (startsWith(p->tracked->path, prefix)) {
      p->real->pMethods->xClose(p->real);
      p->dead = 1;
      // Its index stays mapped for it alone; the next connection starts a new one.
      if (p->tracked->shm == p->shm) p->tracked->shm = 0;
      *link = p->nextOpen;
    } else {
      link = &p->nextOpen;
    }
  }
  for (Tracked *t = trackedFiles; t; t = t->next) {
    if (!startsWith(t->path, prefix) || t->syncedSize < 0) continue;
    int fd = open(t->path, O_RDWR | O_CLOEXEC);
    struct stat status;
    if (fd < 0 || fstat(fd, &status) != 0 || status.st_dev != t->device
        || status.st_ino != t->inode) {
      // Gone or replaced outside SQLite: nothing of this record is on it.
      if (fd >= 0) close(fd);
      freeUndo(t);
      continue;
    }
    for (Undo *u = t->last; u; u = u->previous) {
      lost += u->length;
      if (pwrite(fd, u->bytes, (size_t)u->length, u->offset) != u->length) failed = 1;
    }
    freeUndo(t);
    if (fstat(fd, &status) != 0) failed = 1;
    if (status.st_size > t->syncedSize) lost += status.st_size - t->syncedSize;
    if (ftruncate(fd, t->syncedSize) != 0) failed = 1;
    close(fd);
  }
  pthread_mutex_unlock(&lock);
  return failed ? -1 : lost;
}

void power_loss_forget(const char *prefix) {
  pthread_mutex_lock(&lock);
  for (Tracked **link = &trackedFiles; *link;) {
    Tracked *t = *link;
    if (startsWith(t->path, prefix)) {
      *link = t->next;
      dropRecord(t);
    } else {
      link = &t->next;
    }
  }
  for (Prefix **link = &prefixes; *link;) {
    Prefix *f = *link;
    if (strcmp(f->path, prefix) == 0) {
      *link = f->next;
      free(f->path);
      free(f);
    } else {
      link = &f->next;
    }
  }
  pthread_mutex_unlock(&lock);
}

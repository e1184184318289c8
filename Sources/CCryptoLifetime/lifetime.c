// OpenSSL frees its global state (locks, algorithm tables) from an atexit handler. A process
// that exits while another of its threads is inside OpenSSL, say a client's handshake still
// deriving keys when `chat send` has finished its work, then crashes in that thread on a freed
// lock (SIGSEGV in pthread_rwlock_rdlock under TLS13-KDF). Exit status 139 instead of 0, a
// backtrace on the user's terminal.
//
// OPENSSL_INIT_NO_ATEXIT turns the handler off, and it counts only in the call that first
// initialises the library, so it runs here, before `main` and before any Swift code can reach
// OpenSSL. The kernel takes the memory back at exit; nothing is left to flush.
#include "crypto_lifetime.h"

#include <openssl/crypto.h>
#include <openssl/ssl.h>

static int kept_at_exit = 0;

__attribute__((constructor)) static void crypto_lifetime_start(void) {
  kept_at_exit = OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT, NULL) == 1;
}

int crypto_lifetime_kept_at_exit(void) { return kept_at_exit; }

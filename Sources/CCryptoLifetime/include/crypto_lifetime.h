#ifndef CRYPTO_LIFETIME_H
#define CRYPTO_LIFETIME_H

// 1 when OpenSSL was initialised before `main` with OPENSSL_INIT_NO_ATEXIT (see lifetime.c).
int crypto_lifetime_kept_at_exit(void);

#endif

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bio.h>

// Functions for the OpenSSL macros Swift cannot import (they expand to SSL_ctrl and friends,
// or to 64-bit shifts).

static inline int ctls_set_minimum_version(SSL_CTX *context, int version) {
  return (int)SSL_CTX_set_min_proto_version(context, version);
}

// No renegotiation (a TLS 1.2 peer cannot restart the handshake under a running connection),
// no compression (CRIME), the server's cipher order.
static inline void ctls_set_safe_options(SSL_CTX *context) {
  SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION
                                   | SSL_OP_CIPHER_SERVER_PREFERENCE);
}

// An idle connection gives its record buffers back.
static inline void ctls_release_idle_buffers(SSL_CTX *context) {
  SSL_CTX_set_mode(context, SSL_MODE_RELEASE_BUFFERS);
}

static inline int ctls_set_server_name(SSL *ssl, const char *name) {
  return (int)SSL_set_tlsext_host_name(ssl, name);
}

// An empty memory BIO reads as "try again" (not as end of file).
static inline void ctls_set_mem_eof_retry(BIO *bio) {
  BIO_set_mem_eof_return(bio, -1);
}

// A passphrase callback that gives none: an encrypted key fails to load (with a clear error)
// instead of OpenSSL prompting on the terminal and blocking the server's start.
static inline int ctls_no_passphrase(char *buffer, int size, int rwflag, void *userdata) {
  (void)buffer; (void)size; (void)rwflag; (void)userdata;
  return 0;
}

static inline EVP_PKEY *ctls_read_private_key(BIO *bio) {
  return PEM_read_bio_PrivateKey(bio, NULL, ctls_no_passphrase, NULL);
}

static inline int ctls_error_reason(unsigned long error) {
  return ERR_GET_REASON(error);
}

static inline int ctls_error_library(unsigned long error) {
  return ERR_GET_LIB(error);
}

// The certificate the peer presented, even after it failed verification (the session's peer is
// set only once it passes; the received chain, leaf first on a client, is kept either way).
static inline X509 *ctls_presented_certificate(const SSL *ssl) {
  STACK_OF(X509) *chain = SSL_get_peer_cert_chain(ssl);
  if (chain != NULL && sk_X509_num(chain) > 0) {
    return sk_X509_value(chain, 0);
  }
  return SSL_get0_peer_certificate(ssl);
}

// A new EC P-256 key (EVP_EC_gen is a macro over a variadic function).
static inline EVP_PKEY *ctls_generate_p256_key(void) {
  return EVP_EC_gen("P-256");
}

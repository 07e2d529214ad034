/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* OpenSSL's libssl, loaded on first use: the Kubernetes API client of the
 * DRA driver speaks HTTPS through it. As with libcurl (curl_lazy.h), an
 * agent that never talks to the API server does not map it, and the
 * static CNI plugin cannot load it. The API client needs TLS and nothing
 * else: libcurl would bring thirty libraries more (Kerberos, LDAP, SSH,
 * GnuTLS through librtmp...), about 1.9 MiB of the agent's resident pages
 * (selftests/bench/bench_rss_all.sh). */
#ifndef RDMANET_OPENSSL_LAZY_H
#define RDMANET_OPENSSL_LAZY_H

#include <stdint.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "error.h"

/* Every function the callers use; the table rn_ssl() fills has one
 * pointer of each name. */
#define RN_SSL_FUNCS(X) \
	X(OPENSSL_init_ssl) \
	X(TLS_client_method) \
	X(SSL_CTX_new) \
	X(SSL_CTX_free) \
	X(SSL_CTX_set_verify) \
	X(SSL_CTX_set_default_verify_paths) \
	X(SSL_CTX_load_verify_locations) \
	X(SSL_CTX_get_cert_store) \
	X(SSL_CTX_use_certificate) \
	X(SSL_CTX_use_PrivateKey) \
	X(SSL_CTX_check_private_key) \
	X(SSL_CTX_ctrl) \
	X(SSL_new) \
	X(SSL_free) \
	X(SSL_set_fd) \
	X(SSL_ctrl) \
	X(SSL_set1_host) \
	X(SSL_set_alpn_protos) \
	X(SSL_connect) \
	X(SSL_read) \
	X(SSL_pending) \
	X(SSL_write) \
	X(SSL_shutdown) \
	X(SSL_get_error) \
	X(SSL_get_verify_result) \
	X(X509_verify_cert_error_string) \
	X(X509_STORE_add_cert) \
	X(X509_STORE_set_flags) \
	X(X509_free) \
	X(PEM_read_bio_X509) \
	X(PEM_read_bio_PrivateKey) \
	X(EVP_PKEY_free) \
	X(BIO_new_mem_buf) \
	X(BIO_free) \
	X(ERR_get_error) \
	X(ERR_peek_last_error) \
	X(ERR_error_string_n) \
	X(ERR_clear_error)

struct rn_ssl_api {
#define RN_SSL_PTR(f) __typeof__(f) *f;
	RN_SSL_FUNCS(RN_SSL_PTR)
#undef RN_SSL_PTR
};

/* The loaded and initialised libssl (and libcrypto, its dependency), or
 * NULL with e set ("OpenSSL: ..."; callers prefix what needed it). */
const struct rn_ssl_api *rn_ssl(struct rn_error *e);

#endif

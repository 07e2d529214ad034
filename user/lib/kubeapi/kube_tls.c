// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The client's TLS context (made once, at the first request): the CA it
 * trusts, its client certificate and key, from files or the kubeconfig's
 * inline data; and the session of one connection, the server's name
 * checked against its certificate. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeapi/kube_conn.h"
#include "read_file.h"

#define PEM_MAX (1 << 20)

/* OpenSSL's last error as text (the queue emptied), or fallback */
static const char *ssl_err(const struct rn_ssl_api *api, char *buf, size_t size,
			   const char *fallback)
{
	unsigned long code = api->ERR_peek_last_error();

	api->ERR_clear_error();
	if (!code)
		return fallback;
	api->ERR_error_string_n(code, buf, size);
	return buf;
}

/* p's PEM text in a memory BIO (*text to free after it) */
static BIO *pem_bio(const struct rn_ssl_api *api, const struct rn_kube_pem *p, const char *what,
		    char **text, struct rn_error *e)
{
	size_t len = p->len;
	BIO *b;

	*text = NULL;
	if (!p->data && rn_read_file(what, p->file, PEM_MAX, text, &len, e))
		return NULL;
	b = api->BIO_new_mem_buf(p->data ? p->data : *text, (int)len);
	if (!b) {
		free(*text);
		*text = NULL;
		rn_fail(e, -ENOMEM, "%s: out of memory", what);
	}
	return b;
}

static const char *pem_name(const struct rn_kube_pem *p)
{
	return p->data ? "(inline data)" : p->file;
}

/* every certificate of the CA bundle into the context's store */
static int load_ca(const struct rn_ssl_api *api, SSL_CTX *ctx, const struct rn_kube_pem *p,
		   struct rn_error *e)
{
	X509_STORE *store = api->SSL_CTX_get_cert_store(ctx);
	char *text, msg[160];
	int n = 0, err = 0;
	BIO *b = pem_bio(api, p, "CA", &text, e);
	X509 *x;

	if (!b)
		return e && e->code ? e->code : -EPROTO;
	while ((x = api->PEM_read_bio_X509(b, NULL, NULL, NULL))) {
		if (!api->X509_STORE_add_cert(store, x))
			err = rn_fail(e, -EPROTO, "CA %s: %s", pem_name(p),
				      ssl_err(api, msg, sizeof(msg), "cannot add a certificate"));
		api->X509_free(x);
		if (err)
			break;
		n++;
	}
	api->ERR_clear_error();	/* the end of the bundle reads as an error */
	if (!err && !n)
		err = rn_fail(e, -EPROTO, "CA %s: no PEM certificate in it", pem_name(p));
	/* any certificate of the bundle is a trust anchor, as Go's client
	 * and libcurl take it: a cluster CA signed by another (only the
	 * intermediate in ca.crt) verifies */
	if (!err)
		api->X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN);
	api->BIO_free(b);
	free(text);
	return err;
}

/* the client certificate, the certificates after it as its chain, and
 * the key (from the certificate's own PEM when no key is named, as
 * kubectl and curl allow) */
static int load_client(const struct rn_ssl_api *api, SSL_CTX *ctx, const struct rn_kube *k,
		       struct rn_error *e)
{
	const struct rn_kube_pem *kp = k->key.data || k->key.file[0] ? &k->key : &k->cert;
	char *text, msg[160];
	BIO *b = pem_bio(api, &k->cert, "client certificate", &text, e);
	EVP_PKEY *key;
	X509 *x;
	int err = 0;

	if (!b)
		return e && e->code ? e->code : -EPROTO;
	x = api->PEM_read_bio_X509(b, NULL, NULL, NULL);
	if (!x || !api->SSL_CTX_use_certificate(ctx, x))
		err = rn_fail(e, -EPROTO, "client certificate %s: %s", pem_name(&k->cert),
			      ssl_err(api, msg, sizeof(msg), "no PEM certificate in it"));
	api->X509_free(x);
	while (!err && (x = api->PEM_read_bio_X509(b, NULL, NULL, NULL)))
		if (!api->SSL_CTX_ctrl(ctx, SSL_CTRL_EXTRA_CHAIN_CERT, 0, x)) {
			api->X509_free(x);
			err = rn_fail(e, -EPROTO, "client certificate %s: %s",
				      pem_name(&k->cert), ssl_err(api, msg, sizeof(msg), "bad chain"));
		}
	api->ERR_clear_error();
	api->BIO_free(b);
	free(text);
	if (err)
		return err;
	b = pem_bio(api, kp, "client key", &text, e);
	if (!b)
		return e && e->code ? e->code : -EPROTO;
	key = api->PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
	if (!key || !api->SSL_CTX_use_PrivateKey(ctx, key) || !api->SSL_CTX_check_private_key(ctx))
		err = rn_fail(e, -EPROTO, "client key %s: %s", pem_name(kp),
			      ssl_err(api, msg, sizeof(msg), "no PEM private key in it"));
	api->EVP_PKEY_free(key);
	api->BIO_free(b);
	free(text);
	return err;
}

/* the mtime of each PEM file the context is made from (zero for inline
 * data or none); a file that cannot be stat'ed reads as changed */
static void pem_mtimes(const struct rn_kube *k, struct timespec t[3])
{
	const struct rn_kube_pem *p[3] = { &k->ca, &k->cert, &k->key };

	for (int i = 0; i < 3; i++) {
		struct stat st;

		t[i] = (struct timespec){ 0 };
		if (!p[i]->data && p[i]->file[0])
			t[i] = stat(p[i]->file, &st) ? (struct timespec){ -1, 0 } : st.st_mtim;
	}
}

static bool pem_changed(const struct rn_kube *k)
{
	struct timespec t[3];

	pem_mtimes(k, t);
	for (int i = 0; i < 3; i++)
		if (t[i].tv_sec != k->pem_mtime[i].tv_sec ||
		    t[i].tv_nsec != k->pem_mtime[i].tv_nsec || t[i].tv_sec < 0)
			return true;
	return false;
}

/* No CA named: the system's roots, the bundle ca-certificates keeps
 * first (OpenSSL's own default directory belongs to the openssl package,
 * which a host or an image may lack) */
#define SYSTEM_CA_BUNDLE "/etc/ssl/certs/ca-certificates.crt"

static int load_system_ca(const struct rn_ssl_api *api, SSL_CTX *ctx, struct rn_error *e)
{
	char msg[160];

	if (!access(SYSTEM_CA_BUNDLE, R_OK)) {
		if (api->SSL_CTX_load_verify_locations(ctx, SYSTEM_CA_BUNDLE, NULL))
			return 0;
		return rn_fail(e, -EPROTO, "the system's CA bundle %s: %s", SYSTEM_CA_BUNDLE,
			       ssl_err(api, msg, sizeof(msg), "cannot load"));
	}
	if (!api->SSL_CTX_set_default_verify_paths(ctx))
		return rn_fail(e, -EPROTO, "the system's CA certificates: %s",
			       ssl_err(api, msg, sizeof(msg), "cannot load"));
	return 0;
}

int rn_kube_tls_context(struct rn_kube *k, struct rn_error *e)
{
	const struct rn_ssl_api *api;
	struct timespec t[3];
	SSL_CTX *ctx;
	char msg[160];
	int err = 0;

	/* made again when a file it came from changed: a rotated client
	 * certificate or CA (kubelet-style *-current.pem) is taken by the
	 * next connection, as libcurl's per-connection context took it */
	if (k->ssl_ctx && !pem_changed(k))
		return 0;
	api = rn_ssl(e);
	if (!api)
		return e && e->code ? e->code : -ENOENT;
	pem_mtimes(k, t);
	ctx = api->SSL_CTX_new(api->TLS_client_method());
	if (!ctx)
		return rn_fail(e, -ENOMEM, "TLS context: %s",
			       ssl_err(api, msg, sizeof(msg), "out of memory"));
	api->SSL_CTX_set_verify(ctx, k->insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, NULL);
	if (k->ca.data || k->ca.file[0])
		err = load_ca(api, ctx, &k->ca, e);
	else if (!k->insecure)
		err = load_system_ca(api, ctx, e);
	if (!err && (k->cert.data || k->cert.file[0]))
		err = load_client(api, ctx, k, e);
	if (err) {
		api->SSL_CTX_free(ctx);
		return err;
	}
	if (k->ssl_ctx)
		api->SSL_CTX_free(k->ssl_ctx);
	k->ssl_api = api;
	k->ssl_ctx = ctx;
	memcpy(k->pem_mtime, t, sizeof(t));
	return 0;
}

static bool is_ip_literal(const char *host)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

int rn_kube_tls_handshake(struct rn_kube *k, const char *host, long long deadline,
			  struct rn_error *e)
{
	static const unsigned char alpn[] = "\x08http/1.1";
	const struct rn_ssl_api *api = k->ssl_api;
	SSL *ssl = api->SSL_new(k->ssl_ctx);
	char msg[160];
	long verify;
	int rc, err;

	if (!ssl)
		return rn_fail(e, -ENOMEM, "TLS: %s", ssl_err(api, msg, sizeof(msg), "out of memory"));
	k->ssl = ssl;
	api->SSL_set_fd(ssl, k->fd);
	/* SNI names a host, never an address (RFC 6066 3) */
	if (!is_ip_literal(host))
		api->SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
			      (void *)host);
	/* the certificate must name the server: its DNS name, or its IP
	 * address as an IP SAN (OpenSSL 3 tells them apart) */
	if (!k->insecure && !api->SSL_set1_host(ssl, host))
		return rn_fail(e, -ENOMEM, "TLS: %s", ssl_err(api, msg, sizeof(msg), "out of memory"));
	api->SSL_set_alpn_protos(ssl, alpn, sizeof(alpn) - 1);
	/* the socket is non-blocking: wait for what the handshake wants */
	for (;;) {
		rc = api->SSL_connect(ssl);
		if (rc == 1)
			return 0;
		switch (api->SSL_get_error(ssl, rc)) {
		case SSL_ERROR_WANT_READ:
			err = rn_kube_wait(k->fd, POLLIN, deadline);
			break;
		case SSL_ERROR_WANT_WRITE:
			err = rn_kube_wait(k->fd, POLLOUT, deadline);
			break;
		default:
			err = -EPROTO;
		}
		if (err == -ETIMEDOUT)
			return rn_fail(e, -ETIMEDOUT, "the TLS handshake timed out");
		if (err)
			break;
	}
	verify = k->insecure ? X509_V_OK : api->SSL_get_verify_result(ssl);
	if (verify != X509_V_OK) {
		api->ERR_clear_error();
		return rn_fail(e, -EPROTO, "the server's certificate: %s",
			       api->X509_verify_cert_error_string(verify));
	}
	return rn_fail(e, -EPROTO, "the TLS handshake failed: %s",
		       ssl_err(api, msg, sizeof(msg), "the server closed the connection"));
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/auxv.h>

#include "openssl_lazy.h"

/* libssl-dev's runtime (libssl3); libcrypto comes as its dependency */
#define LIBSSL_SONAME "libssl.so.3"

static struct rn_ssl_api api;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool ready;

static int load(struct rn_error *e)
{
	void *lib;

	/* as for libcurl (curl_lazy.c): not from a static program */
	if (!getauxval(AT_BASE))
		return rn_fail(e, -ENOTSUP, "OpenSSL: a static program cannot load %s",
			       LIBSSL_SONAME);
	lib = dlopen(LIBSSL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return rn_fail(e, -ENOENT, "OpenSSL: cannot load %s (install libssl3): %s",
			       LIBSSL_SONAME, dlerror());
	/* dlsym on libssl's handle also finds libcrypto's symbols: it is
	 * among the dependencies the handle searches */
#define RN_SSL_SYM(f)								\
	if (!(*(void **)&api.f = dlsym(lib, #f)))				\
		return rn_fail(e, -ENOENT, "OpenSSL: %s lacks %s", LIBSSL_SONAME, #f);
	RN_SSL_FUNCS(RN_SSL_SYM)
#undef RN_SSL_SYM
	/* the host's openssl.cnf applies (its minimum protocol and security
	 * level), as it did through libcurl; error strings for the messages */
	if (!api.OPENSSL_init_ssl(OPENSSL_INIT_LOAD_SSL_STRINGS | OPENSSL_INIT_LOAD_CRYPTO_STRINGS,
				  NULL))
		return rn_fail(e, -EIO, "OpenSSL: initialisation failed");
	return 0;
}

const struct rn_ssl_api *rn_ssl(struct rn_error *e)
{
	int err = 0;

	pthread_mutex_lock(&lock);
	if (!ready) {
		err = load(e);
		ready = !err;
	}
	pthread_mutex_unlock(&lock);
	return err ? NULL : &api;
}

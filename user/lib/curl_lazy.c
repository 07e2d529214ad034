// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "curl_lazy.h"

/* libcurl4-openssl-dev's runtime (libcurl4) ships libcurl.so.4 */
#define LIBCURL_SONAME "libcurl.so.4"

const struct rn_curl_api *rn_curl(struct rn_error *e)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
		{ "curl_global_init", offsetof(struct rn_curl_api, global_init) },
		{ "curl_easy_init", offsetof(struct rn_curl_api, easy_init) },
		{ "curl_easy_setopt", offsetof(struct rn_curl_api, easy_setopt) },
		{ "curl_easy_perform", offsetof(struct rn_curl_api, easy_perform) },
		{ "curl_easy_getinfo", offsetof(struct rn_curl_api, easy_getinfo) },
		{ "curl_easy_cleanup", offsetof(struct rn_curl_api, easy_cleanup) },
		{ "curl_easy_strerror", offsetof(struct rn_curl_api, easy_strerror) },
		{ "curl_slist_append", offsetof(struct rn_curl_api, slist_append) },
		{ "curl_slist_free_all", offsetof(struct rn_curl_api, slist_free_all) },
	};
	static struct rn_curl_api api;
	static bool ready;
	void *lib;

	if (ready)
		return &api;
	/* glibc cannot load a library into a static program built with
	 * another glibc than the host's: the static CNI plugin hands etcd
	 * requests to rdmanet-etcd before it gets here (cni/handoff.h) */
	if (!getauxval(AT_BASE)) {
		rn_fail(e, -ENOTSUP, "libcurl: a static program cannot load %s", LIBCURL_SONAME);
		return NULL;
	}
	lib = dlopen(LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		rn_fail(e, -ENOENT, "libcurl: cannot load %s (install libcurl4): %s", LIBCURL_SONAME,
			dlerror());
		return NULL;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(lib, syms[i].name);

		if (!f) {
			rn_fail(e, -ENOENT, "libcurl: %s lacks %s", LIBCURL_SONAME, syms[i].name);
			return NULL;
		}
		*(void **)((char *)&api + syms[i].off) = f;
	}
	if (api.global_init(CURL_GLOBAL_DEFAULT)) {
		rn_fail(e, -EIO, "libcurl: initialisation failed");
		return NULL;
	}
	ready = true;
	return &api;
}

size_t rn_curl_answer_write(char *data, size_t size, size_t n, void *answer)
{
	struct rn_curl_answer *a = answer;
	size_t add = size * n;

	if (a->len + add + 1 > a->cap) {
		size_t cap = a->cap ? a->cap : 4096;
		char *grown;

		while (cap < a->len + add + 1)
			cap *= 2;
		if (cap > a->max) {
			a->overflow = true;
			return 0;
		}
		grown = realloc(a->buf, cap);
		if (!grown)
			return 0;
		a->buf = grown;
		a->cap = cap;
	}
	memcpy(a->buf + a->len, data, add);
	a->len += add;
	a->buf[a->len] = '\0';
	return add;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* dlopen of gRPC core (see grpc_dl.h). RTLD_LOCAL: nothing else in the
 * agent sees its symbols (or abseil's). Loaded once, never unloaded: its
 * C++ runtime does not survive dlclose. */
#define DP_GRPC_DL_IMPL
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>

#include "grpcrt/grpcrt.h"

#ifndef DP_LIBGRPC
#define DP_LIBGRPC "libgrpc.so"
#endif
#ifndef DP_LIBGPR
#define DP_LIBGPR "libgpr.so"
#endif

struct dp_grpc_api dp_grpc;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool loaded;

static void *sym(void *grpc, void *gpr, const char *name)
{
	void *p = dlsym(grpc, name);

	return p ? p : dlsym(gpr, name);
}

int dp_grpc_load(struct rn_error *e)
{
	void *grpc, *gpr;
	int err = 0;

	pthread_mutex_lock(&lock);
	if (loaded)
		goto out;
	if (!DP_LIBGRPC[0] || !DP_LIBGPR[0]) {	/* dlopen("") is the program itself */
		err = rn_fail(e, -ENOENT, "device plugin: built without libgrpc-dev (make deps)");
		goto out;
	}
	gpr = dlopen(DP_LIBGPR, RTLD_NOW | RTLD_LOCAL);
	grpc = dlopen(DP_LIBGRPC, RTLD_NOW | RTLD_LOCAL);
	if (!grpc || !gpr) {
		err = rn_fail(e, -ENOENT, "device plugin: cannot load gRPC (%s): %s (install "
			      "libgrpc29)", !grpc ? DP_LIBGRPC : DP_LIBGPR, dlerror());
		goto out;
	}
#define DP_GRPC_SYM(f)								\
	if (!err && !(*(void **)&dp_grpc.f = sym(grpc, gpr, #f)))		\
		err = rn_fail(e, -ENOENT, "device plugin: %s has no %s", DP_LIBGRPC, #f);
	DP_GRPC_FUNCS(DP_GRPC_SYM)
#undef DP_GRPC_SYM
	loaded = !err;
out:
	pthread_mutex_unlock(&lock);
	return err;
}

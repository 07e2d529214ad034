// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* dlopen of gRPC core (see grpcrt.h). RTLD_LOCAL: nothing else in the
 * agent sees its symbols (or abseil's). Loaded once, never unloaded: its
 * C++ runtime does not survive dlclose. */
#define RN_GRPC_DL_IMPL
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>

#include "grpcrt/grpcrt.h"

#ifndef RN_LIBGRPC
#define RN_LIBGRPC "libgrpc.so"
#endif
#ifndef RN_LIBGPR
#define RN_LIBGPR "libgpr.so"
#endif

struct rn_grpc_api rn_grpc;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool loaded;

static void *sym(void *grpc, void *gpr, const char *name)
{
	void *p = dlsym(grpc, name);

	return p ? p : dlsym(gpr, name);
}

int rn_grpc_load(struct rn_error *e)
{
	void *grpc, *gpr;
	int err = 0;

	pthread_mutex_lock(&lock);
	if (loaded)
		goto out;
	if (!RN_LIBGRPC[0] || !RN_LIBGPR[0]) {	/* dlopen("") is the program itself */
		err = rn_fail(e, -ENOENT, "gRPC (the device plugin's and the DRA driver's): "
			      "built without libgrpc-dev (make deps)");
		goto out;
	}
	gpr = dlopen(RN_LIBGPR, RTLD_NOW | RTLD_LOCAL);
	grpc = dlopen(RN_LIBGRPC, RTLD_NOW | RTLD_LOCAL);
	if (!grpc || !gpr) {
		err = rn_fail(e, -ENOENT, "cannot load gRPC (%s), which the device plugin and "
			      "the DRA driver need: %s (install libgrpc29)",
			      !grpc ? RN_LIBGRPC : RN_LIBGPR, dlerror());
		goto out;
	}
#define RN_GRPC_SYM(f)								\
	if (!err && !(*(void **)&rn_grpc.f = sym(grpc, gpr, #f)))		\
		err = rn_fail(e, -ENOENT, "gRPC: %s has no %s", RN_LIBGRPC, #f);
	RN_GRPC_FUNCS(RN_GRPC_SYM)
#undef RN_GRPC_SYM
	loaded = !err;
out:
	pthread_mutex_unlock(&lock);
	return err;
}

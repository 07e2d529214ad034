/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The CNI plugin is one static binary (rdmanet): exec'd for every ADD and
 * DEL, it starts without a dynamic loader, and on the host, where it runs,
 * it needs no library at all. The etcd store's client is libcurl, loaded
 * at run time, which a static binary cannot load safely (glibc's dlopen
 * from a static program needs the host's glibc to be the one it was built
 * with). So with the etcd store, the static plugin hands the invocation to
 * rdmanet-etcd, the same plugin linked dynamically and installed beside
 * it: same arguments, environment and stdin, its answer is the answer. */
#ifndef RDMANET_CNI_HANDOFF_H
#define RDMANET_CNI_HANDOFF_H

#include "cmd.h"
#include "config.h"

#define CNI_ETCD_PLUGIN "rdmanet-etcd"

/* Returns 0 if this process serves the request itself (a dynamically
 * linked plugin, or a store other than etcd); never returns if it handed
 * it off; -1 with r->err set (code 5, naming the missing file) if it
 * could not. */
int cni_store_handoff(struct cni_req *r, const struct rn_config *cfg);

#endif

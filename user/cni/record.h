/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Attachment records: one small JSON file per (network, container id,
 * ifname) under stateDir/<network>/, the key the spec asks stateful plugins
 * to use. ADD writes it before it allocates anything and DEL removes it
 * after everything is gone, so a record exists whenever a resource might
 * outlive the pod's netns: GC walks them to find what belongs to this
 * network (pools may be shared between networks, so the IPAM store alone
 * cannot tell), and a DEL after a crash mid-ADD knows the netns and
 * addresses to clean.
 *
 * The first record (complete:false) is durable before ADD allocates: an
 * allocation without its record would never be collected. A new one is
 * created at its name and synced with its directory entry
 * (cni_record_begin), on a thread while ADD goes on with what a crash
 * undoes by itself (the link in the pod's netns); ADD waits for it
 * (cni_record_wait) before it allocates. Any other write goes through a
 * temporary file and a rename, so a reader sees the old record or the new
 * one; a kill -9 mid-write leaves the temporary file, which GC removes.
 * The final record (complete:true) is not synced, and a record file cut
 * short (a writer killed mid-write, content a crash lost) still names its
 * attachment: GC goes by the name (the store holds the addresses by owner).
 * Removal is not fsync'd: a removed record that comes back after a crash
 * only makes GC tear down again what is already gone. */
#ifndef RDMANET_CNI_RECORD_H
#define RDMANET_CNI_RECORD_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <rdmanet/master.h>
#include <rdmanet/pod.h>

#include "error.h"
#include "netaddr.h"
#include "netconf.h"

struct cni_record {
	char network[CNI_NAME_MAX];
	char container_id[RN_CONTAINER_ID_LEN];
	char ifname[RN_IFNAMSIZ];
	char netns[4096];
	char master[RN_IFNAMSIZ];
	bool complete;			/* false from the start of ADD until it succeeded */
	unsigned int n_addrs;
	struct rn_prefix addrs[2];
	uint32_t table;			/* 0: none */
};

int cni_record_write(const char *dir, const struct cni_record *r, struct rn_error *e);

/* A first record whose sync is under way. */
struct cni_record_pending {
	pthread_t thread;
	bool running;
	int fd;
	struct rn_error e;		/* what failed, code 0 if nothing */
	char dir[PATH_MAX], path[PATH_MAX];
};
/* Writes r (a first record) and starts making it durable; the record is in
 * place (for readers) when this returns. */
int cni_record_begin(const char *dir, const struct cni_record *r, struct cni_record_pending *p,
		     struct rn_error *e);
/* Waits until the record cni_record_begin wrote is durable, or says why it
 * is not. Idempotent; a no-op on a zeroed p with fd -1. */
int cni_record_wait(struct cni_record_pending *p, struct rn_error *e);
/* -ENOENT if there is none. */
int cni_record_read(const char *dir, const char *network, const char *container_id,
		    const char *ifname, struct cni_record *r, struct rn_error *e);
/* Idempotent. */
int cni_record_remove(const char *dir, const char *network, const char *container_id,
		      const char *ifname, struct rn_error *e);
/* Every record of a network (malloc'd array, free() it). A file that is
 * not a record is read by its name (container id, ifname; the rest empty,
 * complete false); one that cannot be read at all is skipped with a
 * warning: one bad file must not stop a GC. */
int cni_record_list(const char *dir, const char *network, struct cni_record **out, int *n,
		    struct rn_error *e);

/* The attachment's lock (a flock on stateDir/<network>/.lock.<id>:<ifname>),
 * held by ADD from before its first record until it answers, and by DEL
 * and GC while they tear the attachment down: GC never collects an
 * attachment whose ADD is still running (a record with complete:false
 * may be an ADD waiting for the store, not a dead one), and a lock dies
 * with its holder, so a killed ADD's record is collected. The file lives
 * as long as the record. wait: block until free (ADD, DEL); else
 * -EWOULDBLOCK when held (GC). Returns the fd. */
int cni_record_lock(const char *dir, const char *network, const char *container_id,
		    const char *ifname, bool wait, struct rn_error *e);
/* Lets go of it; removes the lock file when the record is gone. */
void cni_record_unlock(const char *dir, const char *network, const char *container_id,
		       const char *ifname, int fd);

/* Temporary files of a writer that died are removed once they are older
 * than this: writers never keep one for more than a moment. */
#define CNI_RECORD_TMP_MAX_AGE_S 60
/* Removes a network's temporary record files older than max_age_s. Returns
 * how many, or < 0. */
int cni_record_sweep_tmp(const char *dir, const char *network, unsigned int max_age_s,
			 struct rn_error *e);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Attachment records: one small JSON file per (network, container id,
 * ifname) under stateDir/<network>/, the key the spec asks stateful plugins
 * to use. ADD writes it before it creates anything and DEL removes it after
 * everything is gone, so a record exists whenever a resource might: GC
 * walks them to find what belongs to this network (pools may be shared
 * between networks, so the IPAM store alone cannot tell), and a DEL after a
 * crash mid-ADD knows the netns and addresses to clean. Written to a
 * temporary file, fsync'd, renamed, and the directory fsync'd, so a kill -9
 * leaves the old or the new record, never half of one, and a record ADD
 * went on from survives a power loss (an allocation without its record
 * would never be collected; the directory is fsync'd for that first,
 * incomplete record, not for the final one). A kill -9 mid-write leaves the temporary file:
 * GC removes those. Removal is not fsync'd: a removed record that comes back
 * after a crash only makes GC tear down again what is already gone. */
#ifndef RDMANET_CNI_RECORD_H
#define RDMANET_CNI_RECORD_H

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
/* -ENOENT if there is none. */
int cni_record_read(const char *dir, const char *network, const char *container_id,
		    const char *ifname, struct cni_record *r, struct rn_error *e);
/* Idempotent. */
int cni_record_remove(const char *dir, const char *network, const char *container_id,
		      const char *ifname, struct rn_error *e);
/* Every record of a network (malloc'd array, free() it). Unreadable files
 * are skipped with a warning: one bad file must not stop a GC. */
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

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* DEL: idempotent, and complete even when the netns, the link or the
 * prevResult are gone: the allocation is released and the registration
 * removed whatever is left of the pod. Without a readable node config it
 * still tears down the pod side and the registration, then fails (7). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dra_network.h"
#include "fault.h"
#include "log.h"
#include "node_config.h"
#include "pod_datapath.h"
#include "prev_result.h"
#include "record.h"
#include "teardown.h"
#include "vf.h"

/* Every address the attachment may have had, for the rules to remove. */
static void collect_addrs(struct cni_req *r, struct rn_ipam *ipam, struct cni_teardown *t)
{
	struct rn_ipam_allocation held[2];
	struct cni_record rec;
	struct rn_error e = { 0 };
	struct cni_prev *prev;
	struct cni_err ignored = { 0 };
	int n;

	if (!cni_record_read(r->conf.state_dir, r->conf.name, r->env.container_id,
			     r->env.ifname, &rec, &e))
		for (unsigned int i = 0; i < rec.n_addrs; i++)
			cni_teardown_add_addr(t, &rec.addrs[i].addr);
	prev = r->conf.prev_result ? calloc(1, sizeof(*prev)) : NULL;
	if (prev && !cni_prev_parse(r->conf.prev_result, prev, &ignored)) {
		int idx = cni_prev_find_if(prev, r->env.ifname, NULL);

		for (unsigned int i = 0; idx >= 0 && i < prev->n_ips; i++)
			if (prev->ips[i].iface == idx)
				cni_teardown_add_addr(t, &prev->ips[i].address.addr);
	}
	free(prev);
	if (!ipam)
		return;
	n = rn_ipam_lookup_owner(ipam, r->env.container_id, r->env.ifname, held, 2, &e);
	for (int i = 0; i < n && i < 2; i++)
		cni_teardown_add_addr(t, &held[i].addr);
}

static int teardown(struct cni_req *r, const struct rn_config *cfg, struct rn_ipam *ipam)
{
	struct cni_teardown t = {
		.network = r->conf.name, .container_id = r->env.container_id,
		.ifname = r->env.ifname, .netns = r->env.netns, .pin_dir = cfg->bpf.pin_dir,
		.state_dir = r->conf.state_dir, .ipam = ipam,
	};

	struct rn_sriov_hold h;
	struct rn_error e = { 0 };

	collect_addrs(r, ipam, &t);
	/* the claim's status stops naming the pod's interface first: the pod
	 * is going, whatever is left of it */
	if (cni_dra_network_forget(cfg, r->conf.name, r->env.container_id, r->env.ifname, &e))
		rn_warn("DEL: %s", e.msg);
	cni_fault_point("del-collected");
	/* a VF goes back first: the record stays until it has */
	if (cni_vf_find_hold(r->conf.state_dir, r->env.container_id, r->env.ifname, &h) &&
	    cni_vf_restore(cfg, r->conf.state_dir, &h, r->env.netns, false, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "restore VF %s", h.pci);
	return cni_teardown_all(&t, &r->err);
}

/* The node config cannot be read (a bad edit of the ConfigMap, say), so
 * neither can the store that holds the addresses. What needs no config is
 * undone all the same, so the pod's network does not outlive the pod: the
 * link with its addresses and routes, the rules, and the registration (at
 * the pin dir the file still names, else the default; the record is read
 * from the state dir found the same way). The record stays
 * and the config error is reported: the runtime retries the DEL, which
 * releases the addresses once the config is fixed, and GC still finds the
 * attachment meanwhile. */
static void teardown_without_config(struct cni_req *r, const char *pin_dir)
{
	char done[PATH_MAX + 64];
	struct cni_teardown t = {
		.network = r->conf.name, .container_id = r->env.container_id,
		.ifname = r->env.ifname, .netns = r->env.netns, .pin_dir = pin_dir,
		.state_dir = r->conf.state_dir,
	};
	struct cni_err err = { 0 };

	collect_addrs(r, NULL, &t);
	cni_teardown_netns(&t, &err);
	cni_teardown_unregister(&t, &err);
	if (err.code) {
		rn_warn("DEL without the node config: %s", err.msg);
		cni_err_details(&r->err, "the addresses stay allocated until a DEL can read the "
				"config; the pod side was not fully torn down either: %s", err.msg);
		return;
	}
	snprintf(done, sizeof(done), cni_datapath_present(pin_dir) ?
		 "the pod side was torn down and the registration removed from %s" :
		 "the pod side was torn down (no data-path maps at %s to unregister from)",
		 pin_dir);
	rn_warn("DEL without the node config: %s", done);
	cni_err_details(&r->err, "%s; the addresses stay allocated until a DEL can read the "
			"config", done);
}

/* Waits for an ADD of the same attachment still running (a runtime that
 * gave up on it): what it builds is then torn down, not left behind. A
 * state dir without locks does not stop the DEL. */
static int lock(struct cni_req *r)
{
	struct rn_error e = { 0 };
	int fd = cni_record_lock(r->conf.state_dir, r->conf.name, r->env.container_id,
				 r->env.ifname, true, &e);

	if (fd < 0)
		rn_warn("DEL without the attachment's lock: %s", e.msg);
	return fd;
}

int cni_cmd_del(struct cni_req *r)
{
	struct rn_ipam *ipam = NULL;
	struct rn_config cfg;
	char pin_dir[PATH_MAX];
	int rc = -1, fd = -1;

	rn_config_defaults(&cfg);
	cni_fault_point("del-start");
	if (cni_node_load(r, &cfg)) {
		cni_node_fallback(&r->conf, pin_dir, sizeof(pin_dir), r->conf.state_dir,
				  sizeof(r->conf.state_dir));
		fd = lock(r);
		teardown_without_config(r, pin_dir);
	/* no store, no release: the runtime retries a DEL that failed with 11 */
	} else if (!cni_ipam_open(&cfg, &ipam, &r->err)) {
		fd = lock(r);
		rc = teardown(r, &cfg, ipam);
	} else if (r->err.code != CNI_ERR_CONFIG) {
		/* a store that cannot be opened now (unreachable, mid-change) is
		 * for the runtime to retry: only 11 makes it */
		r->err.code = CNI_ERR_TRY_LATER;
	}
	cni_record_unlock(r->conf.state_dir, r->conf.name, r->env.container_id, r->env.ifname,
			  fd);
	rn_ipam_close(ipam);
	cni_fault_point("del-end");
	rn_config_free(&cfg);
	return rc;
}

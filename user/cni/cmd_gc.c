// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* GC: every attachment this network recorded that the runtime no longer
 * lists as valid is torn down like a DEL (the netns, if it still exists,
 * is cleaned too). Only this network's records are considered, so networks
 * sharing pools or masters never collect each other's attachments. One
 * failure does not stop the others; the first is reported. An attachment
 * whose ADD still runs (it holds the attachment's lock, record.h) is left
 * alone. The temporary files of record writes that a kill interrupted go
 * too, once a minute old, but only while no ADD of this network runs: a
 * temporary file does not name its attachment, and an ADD stopped (or
 * stalled) between writing and renaming one would lose it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cni_env.h"
#include "dra_network.h"
#include "log.h"
#include "node_config.h"
#include "record.h"
#include "teardown.h"
#include "vf.h"

struct owner {
	const char *container_id, *ifname;
};

static int parse_valid(struct cni_req *r, struct owner **out, size_t *n)
{
	json_t *list = r->conf.valid_attachments, *v;
	size_t i;

	*out = NULL;
	*n = 0;
	if (!list)
		return cni_fail(&r->err, CNI_ERR_CONFIG, "config: GC needs "
				"\"cni.dev/valid-attachments\" (an empty list means none "
				"is valid)");
	*out = calloc(json_array_size(list) + 1, sizeof(**out));
	if (!*out)
		return cni_fail(&r->err, RN_CNI_ERR_INTERNAL, "out of memory");
	json_array_foreach(list, i, v) {
		const char *cid = json_string_value(json_object_get(v, "containerID"));
		const char *ifname = json_string_value(json_object_get(v, "ifname"));

		if (!cid || !ifname)
			return cni_fail(&r->err, CNI_ERR_CONFIG,
					"config: cni.dev/valid-attachments[%zu]: expected "
					"{\"containerID\": ..., \"ifname\": ...}", i);
		(*out)[(*n)++] = (struct owner){ cid, ifname };
	}
	return 0;
}

static bool is_valid(const struct owner *valid, size_t n, const struct cni_record *rec)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(valid[i].container_id, rec->container_id) &&
		    !strcmp(valid[i].ifname, rec->ifname))
			return true;
	return false;
}

static void collect(struct cni_req *r, const struct rn_config *cfg, struct rn_ipam *ipam,
		    const struct cni_record *rec, int *collected);

/* Attachments of this network whose ADD (or DEL) holds the lock now,
 * valid or not: every temporary record file is written for a recorded
 * attachment (record.h), under its lock. */
static int running(struct cni_req *r, const struct cni_record *recs, int n)
{
	const char *dir = r->conf.state_dir;
	int busy = 0;

	for (int i = 0; i < n; i++) {
		struct rn_error e = { 0 };
		int fd = cni_record_lock(dir, r->conf.name, recs[i].container_id, recs[i].ifname,
					 false, &e);

		if (fd == -EWOULDBLOCK)
			busy++;
		else if (fd >= 0)
			cni_record_unlock(dir, r->conf.name, recs[i].container_id, recs[i].ifname,
					  fd);
	}
	return busy;
}

/* An attachment whose ADD is still running holds its lock: it is left
 * alone, whatever its record says (an ADD waiting for the store has no
 * address yet; tearing it down would let it finish with an address the
 * store calls free). Under the lock the record is read again: a DEL may
 * have finished meanwhile. */
static void collect_locked(struct cni_req *r, const struct rn_config *cfg, struct rn_ipam *ipam,
			   const struct cni_record *listed, int *collected, int *in_flight)
{
	const char *dir = r->conf.state_dir;
	struct cni_record rec;
	struct rn_error e = { 0 };
	int rc, fd = cni_record_lock(dir, r->conf.name, listed->container_id, listed->ifname,
				     false, &e);

	if (fd == -EWOULDBLOCK) {
		rn_info("GC: %s/%s: its ADD is still running; not collected",
			listed->container_id, listed->ifname);
		(*in_flight)++;
		return;
	}
	if (fd < 0) {
		rn_warn("GC: %s/%s: %s", listed->container_id, listed->ifname, e.msg);
		if (!r->err.code)
			cni_fail_rn(&r->err, RN_CNI_ERR_STATE, &e, "stateDir");
		return;
	}
	rc = cni_record_read(dir, r->conf.name, listed->container_id, listed->ifname, &rec, &e);
	if (!rc)
		collect(r, cfg, ipam, &rec, collected);
	else if (rc == -EINVAL)		/* cut short: its name is what is left */
		collect(r, cfg, ipam, listed, collected);
	cni_record_unlock(dir, r->conf.name, listed->container_id, listed->ifname, fd);
}

static void collect(struct cni_req *r, const struct rn_config *cfg, struct rn_ipam *ipam,
		    const struct cni_record *rec, int *collected)
{
	struct cni_teardown t = {
		.network = r->conf.name, .container_id = rec->container_id,
		.ifname = rec->ifname, .netns = rec->netns, .pin_dir = cfg->bpf.pin_dir,
		.state_dir = r->conf.state_dir, .ipam = ipam,
	};
	struct rn_ipam_allocation held[2];
	struct cni_err err = { 0 };
	struct rn_error e = { 0 };
	struct rn_sriov_hold h;
	int n;

	if (cni_dra_network_forget(cfg, r->conf.name, rec->container_id, rec->ifname, &e))
		rn_warn("GC: %s/%s: %s", rec->container_id, rec->ifname, e.msg);
	e = (struct rn_error){ 0 };
	if (cni_vf_find_hold(r->conf.state_dir, rec->container_id, rec->ifname, &h) &&
	    cni_vf_restore(cfg, r->conf.state_dir, &h, rec->netns, false, &e)) {
		rn_warn("GC: %s/%s: VF %s: %s", rec->container_id, rec->ifname, h.pci, e.msg);
		if (!r->err.code)
			cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "GC: VF %s", h.pci);
		return;
	}
	for (unsigned int i = 0; i < rec->n_addrs; i++)
		cni_teardown_add_addr(&t, &rec->addrs[i].addr);
	n = rn_ipam_lookup_owner(ipam, rec->container_id, rec->ifname, held, 2, &e);
	for (int i = 0; i < n && i < 2; i++)
		cni_teardown_add_addr(&t, &held[i].addr);
	if (cni_teardown_all(&t, &err)) {
		rn_warn("GC: %s/%s: %s", rec->container_id, rec->ifname, err.msg);
		if (!r->err.code)
			r->err = err;
		return;
	}
	rn_info("GC: collected %s/%s%s", rec->container_id, rec->ifname,
		rec->complete ? "" : " (its ADD never finished)");
	(*collected)++;
}

int cni_cmd_gc(struct cni_req *r)
{
	struct cni_record *recs = NULL;
	struct owner *valid = NULL;
	struct rn_error e = { 0 };
	struct rn_ipam *ipam = NULL;
	struct rn_config cfg;
	int n = 0, collected = 0, in_flight = 0, busy, swept, rc = -1;
	size_t n_valid;

	rn_config_defaults(&cfg);
	if (parse_valid(r, &valid, &n_valid) || cni_node_load(r, &cfg) ||
	    cni_ipam_open(&cfg, &ipam, &r->err))
		goto out;
	if (cni_record_list(r->conf.state_dir, r->conf.name, &recs, &n, &e)) {
		cni_fail_rn(&r->err, RN_CNI_ERR_STATE, &e, "stateDir");
		goto out;
	}
	/* an ADD that has stood still for a minute between writing and
	 * renaming its record still holds its lock: its file stays */
	busy = running(r, recs, n);
	swept = busy ? 0 : cni_record_sweep_tmp(r->conf.state_dir, r->conf.name,
						CNI_RECORD_TMP_MAX_AGE_S, &e);
	if (busy)
		rn_info("GC: %d attachments' ADD or DEL still running: temporary record files "
			"are left for a later GC", busy);
	else if (swept < 0)
		rn_warn("GC: %s", e.msg);
	else if (swept)
		rn_info("GC: removed %d temporary record files of writes that never finished",
			swept);
	for (int i = 0; i < n; i++)
		if (!is_valid(valid, n_valid, &recs[i]))
			collect_locked(r, &cfg, ipam, &recs[i], &collected, &in_flight);
	rn_info("GC of network %s: %d attachments recorded, %d collected, %d left to their "
		"running ADD", r->conf.name, n, collected, in_flight);
	rc = r->err.code ? -1 : 0;
out:
	free(recs);
	free(valid);
	rn_ipam_close(ipam);
	rn_config_free(&cfg);
	return rc;
}

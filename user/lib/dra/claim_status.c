// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The claim-status writer (claim_status.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "dra/claim_status.h"
#include "dra/internal.h"
#include "log.h"
#include "mkdir_p.h"
#include "write_all.h"
#include "monotonic.h"

#define BACKOFF_FIRST_MS 1000
#define BACKOFF_MAX_MS 5000
#define WRITES_PER_PASS 8
#define CLAIM_PATH "/apis/resource.k8s.io/v1/namespaces/%s/resourceclaims/%s"
#define STATUS_QUERY "/status?fieldManager=%s&force=true"

struct cs_claim {
	char uid[RN_DRA_UID_LEN];
	char ns[RN_DRA_NAME_LEN];
	char name[256];
	json_t *want;		/* this pass's body */
	json_t *done;		/* what the server was last told (or refused for good); NULL unknown */
	long long next_ms;	/* not before (backoff) */
	int backoff_ms;
};

struct dra_claim_status {
	struct rn_dra_config cfg;
	struct cs_claim *claims;
	int n, cap;
	bool dirty;		/* the set of claims changed: save it */
	int last_err;		/* logged already: -errno, 0 none */
	/* the records' directory as last listed, when its mtime had settled */
	bool seen;
	struct timespec seen_mtime;
};

/* --- the body --------------------------------------------------------- */

static bool earlier(const struct rn_dra_attachment *a, const struct rn_dra_attachment *b)
{
	int c;

	if (a->attached_ns != b->attached_ns)
		return a->attached_ns < b->attached_ns;
	c = strcmp(a->container_id, b->container_id);
	return c ? c < 0 : strcmp(a->ifname, b->ifname) < 0;
}

static bool same_device(const struct rn_dra_attachment *a, const struct rn_dra_attachment *b)
{
	return !strcmp(a->pool, b->pool) && !strcmp(a->device, b->device);
}

static int by_device(const void *x, const void *y)
{
	const struct rn_dra_attachment *a = *(const struct rn_dra_attachment *const *)x;
	const struct rn_dra_attachment *b = *(const struct rn_dra_attachment *const *)y;
	int c = strcmp(a->pool, b->pool);

	return c ? c : strcmp(a->device, b->device);
}

static json_t *device_status(const struct rn_dra_attachment *a)
{
	json_t *nd = json_pack("{s:s, s:s}", "interfaceName", a->ifname, "hardwareAddress", a->mac);
	json_t *ips = json_array();

	for (int i = 0; i < a->n_ips; i++)
		json_array_append_new(ips, json_string(a->ips[i]));
	if (json_array_size(ips))
		json_object_set(nd, "ips", ips);
	json_decref(ips);
	return json_pack("{s:s, s:s, s:s, s:o}", "driver", a->driver, "pool", a->pool, "device",
			 a->device, "networkData", nd);
}

json_t *dra_claim_status_body(const char *driver, const char *ns, const char *name,
			      const char *uid, const struct rn_dra_attachment *atts, int n)
{
	const struct rn_dra_attachment **first = calloc((size_t)n + 1, sizeof(*first));
	json_t *o = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}}", "apiVersion", "resource.k8s.io/v1",
			      "kind", "ResourceClaim", "metadata", "name", name, "namespace", ns,
			      "uid", uid);
	json_t *devs = json_array();
	int m = 0;

	if (!first || !o || !devs) {
		free(first);
		json_decref(o);
		json_decref(devs);
		return NULL;
	}
	/* per device of the claim, the pod attached first */
	for (int i = 0; i < n; i++) {
		const struct rn_dra_attachment *a = &atts[i];
		int k;

		if (strcmp(a->driver, driver) || strcmp(a->claim_uid, uid))
			continue;
		for (k = 0; k < m && !same_device(first[k], a); k++)
			;
		if (k == m)
			first[m++] = a;
		else if (earlier(a, first[k]))
			first[k] = a;
	}
	qsort(first, (size_t)m, sizeof(*first), by_device);
	for (int k = 0; k < m; k++)
		json_array_append_new(devs, device_status(first[k]));
	if (m)
		json_object_set_new(o, "status", json_pack("{s:o}", "devices", devs));
	else
		json_decref(devs);
	free(first);
	return o;
}

/* --- the claims written to, kept across restarts ------------------------- */

static void saved_path(const struct dra_claim_status *cs, char *buf, size_t size)
{
	snprintf(buf, size, "%.4000s/claim-status.json", cs->cfg.state_dir);
}

static struct cs_claim *find(struct dra_claim_status *cs, const char *uid)
{
	for (int i = 0; i < cs->n; i++)
		if (!strcmp(cs->claims[i].uid, uid))
			return &cs->claims[i];
	return NULL;
}

static struct cs_claim *add(struct dra_claim_status *cs, const char *uid, const char *ns,
			    const char *name)
{
	struct cs_claim *c;

	if (cs->n == cs->cap) {
		int cap = cs->cap ? cs->cap * 2 : 16;
		struct cs_claim *m = realloc(cs->claims, (size_t)cap * sizeof(*m));

		if (!m)
			return NULL;
		cs->claims = m;
		cs->cap = cap;
	}
	c = &cs->claims[cs->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->uid, sizeof(c->uid), "%s", uid);
	snprintf(c->ns, sizeof(c->ns), "%s", ns);
	snprintf(c->name, sizeof(c->name), "%s", name);
	cs->dirty = true;
	return c;
}

static void drop(struct dra_claim_status *cs, struct cs_claim *c)
{
	json_decref(c->want);
	json_decref(c->done);
	*c = cs->claims[--cs->n];
	cs->dirty = true;
}

static void load(struct dra_claim_status *cs)
{
	char path[PATH_MAX];
	json_t *o, *v;
	const char *uid;

	saved_path(cs, path, sizeof(path));
	o = json_load_file(path, 0, NULL);
	json_object_foreach(json_object_get(o, "claims"), uid, v) {
		const char *ns = json_string_value(json_object_get(v, "namespace"));
		const char *name = json_string_value(json_object_get(v, "name"));

		if (ns && name && strlen(uid) < RN_DRA_UID_LEN && strlen(ns) < RN_DRA_NAME_LEN &&
		    strlen(name) < 256 && !find(cs, uid))
			add(cs, uid, ns, name);
	}
	json_decref(o);
	cs->dirty = false;
}

static void save(struct dra_claim_status *cs)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	json_t *claims = json_object(), *o;
	char *text;
	int err;

	for (int i = 0; i < cs->n; i++)
		json_object_set_new(claims, cs->claims[i].uid,
				    json_pack("{s:s, s:s}", "namespace", cs->claims[i].ns,
					      "name", cs->claims[i].name));
	o = json_pack("{s:o}", "claims", claims);
	text = o ? json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	saved_path(cs, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!text || rn_mkdir_p(cs->cfg.state_dir, 0700)) {
		free(text);
		return;		/* tried again at the next change */
	}
	err = rn_write_file_replace(path, tmp, text, strlen(text), 0600, false);
	if (err)
		rn_warn("DRA claim status: %s: %s", path, strerror(-err));
	else
		cs->dirty = false;
	free(text);
}

/* --- a pass ------------------------------------------------------------ */

/* Whether the records may have changed since they were last listed: every
 * record written (renamed in) or removed moves the mtime of their directory
 * (<state_dir>/networks, attachment.c), so a pass with nothing new costs
 * one stat, not a read of every pod's record. An mtime is trusted only once
 * it is two seconds old: two changes within one timestamp tick, one of them
 * after the listing, would leave it as it was. */
static bool records_changed(struct dra_claim_status *cs)
{
	char dir[PATH_MAX];
	struct timespec m = { 0 };
	struct stat st;

	snprintf(dir, sizeof(dir), "%.4000s/networks", cs->cfg.state_dir);
	if (!stat(dir, &st))
		m = st.st_mtim;		/* none: no record, mtime 0 */
	if (cs->seen && m.tv_sec == cs->seen_mtime.tv_sec && m.tv_nsec == cs->seen_mtime.tv_nsec)
		return false;
	cs->seen = time(NULL) - m.tv_sec >= 2;
	cs->seen_mtime = m;
	return true;
}

/* what each claim of the records should say now */
static int wanted(struct dra_claim_status *cs, struct rn_error *e)
{
	struct rn_dra_attachment *atts;
	int n, err;

	if (!records_changed(cs))
		return 0;	/* each claim's want as it was */
	err = rn_dra_attachment_list(cs->cfg.state_dir, &atts, &n, e);
	if (err) {
		cs->seen = false;
		return err;
	}
	for (int i = 0; i < cs->n; i++) {
		json_decref(cs->claims[i].want);
		cs->claims[i].want = NULL;
	}
	for (int i = 0; i < n; i++) {
		struct rn_dra_attachment *a = &atts[i];
		struct cs_claim *c;

		if (strcmp(a->driver, cs->cfg.driver))
			continue;
		c = find(cs, a->claim_uid);
		if (!c)
			c = add(cs, a->claim_uid, a->claim_namespace, a->claim_name);
		if (c && !c->want)
			c->want = dra_claim_status_body(cs->cfg.driver, c->ns, c->name, c->uid,
							atts, n);
	}
	free(atts);
	return 0;
}

static void log_failure(struct dra_claim_status *cs, const struct rn_error *e)
{
	if (e->code == cs->last_err)
		return;
	rn_warn("DRA claim status not written (tried again): %s", e->msg);
	cs->last_err = e->code;
}

/* A device shared through consumable capacity (allowMultipleAllocations)
 * is allocated as a share, with a shareID in the allocation result, and
 * status.devices is keyed by driver/pool/device/shareID: an entry must
 * carry its result's shareID, or it names no allocated device (422). The
 * record does not hold it (the allocation is the claim's): it is read from
 * the claim itself. sent: a copy of body with them. */
static int with_share_ids(struct rn_kube *k, const char *claim_path, json_t *body, json_t **sent,
			  struct rn_error *e)
{
	json_t *devs = json_object_get(json_object_get(body, "status"), "devices"), *d, *results;
	struct rn_kube_reply r;
	size_t i, j;
	int err;

	*sent = json_deep_copy(body);
	if (!*sent)
		return rn_fail(e, -ENOMEM, "out of memory");
	if (!json_array_size(devs))
		return 0;	/* removing ours: keyed by what the server holds */
	err = rn_kube_request(k, "GET", claim_path, NULL, &r, e) ?:
	      rn_kube_check(&r, "get the claim for its shareIDs", e);
	results = json_object_get(json_object_get(json_object_get(json_object_get(r.body, "status"),
								  "allocation"), "devices"),
				  "results");
	devs = json_object_get(json_object_get(*sent, "status"), "devices");
	json_array_foreach(devs, i, d) {
		json_t *x;

		json_array_foreach(results, j, x) {
			const char *share = json_string_value(json_object_get(x, "shareID"));

			if (share && json_equal(json_object_get(x, "driver"), json_object_get(d, "driver")) &&
			    json_equal(json_object_get(x, "pool"), json_object_get(d, "pool")) &&
			    json_equal(json_object_get(x, "device"), json_object_get(d, "device"))) {
				json_object_set_new(d, "shareID", json_string(share));
				break;
			}
		}
	}
	rn_kube_reply_free(&r);
	return err;
}

/* the server's answer to claim c's write of body: 0 written, 1 dropped,
 * < 0 to retry (-ECONNREFUSED etc.: the server is unreachable) */
static int write_one(struct dra_claim_status *cs, struct rn_kube *k, struct cs_claim *c,
		     json_t *body, struct rn_error *e)
{
	char claim[768], path[1024], what[512];
	struct rn_kube_reply r = { 0 };
	json_t *sent;
	int err;

	snprintf(claim, sizeof(claim), CLAIM_PATH, c->ns, c->name);
	snprintf(path, sizeof(path), "%s" STATUS_QUERY, claim, cs->cfg.driver);
	snprintf(what, sizeof(what), "apply status of ResourceClaim %s/%s (%s)", c->ns, c->name,
		 c->uid);
	err = with_share_ids(k, claim, body, &sent, e);
	if (!err)
		err = rn_kube_apply(k, path, sent, &r, e) ?: rn_kube_check(&r, what, e);
	else
		rn_fail_wrap(e, "%s", what);
	json_decref(sent);
	rn_kube_reply_free(&r);
	switch (err) {
	case 0:
		return 0;
	case -ENOENT:	/* the claim is gone: its pods with it */
	case -ESTALE:	/* 409: another claim of that name now (metadata.uid) */
	case -EEXIST:
	case -EINVAL:	/* 422: what was sent would be refused again */
		rn_info("DRA claim status: %s: not written: %s", what, e->msg);
		return 1;
	default:
		return err;
	}
}

void dra_claim_status_sync(struct dra_claim_status *cs, struct rn_kube *k)
{
	struct rn_error e = { 0 };
	long long now = rn_monotonic_ms();
	int writes = 0;

	if (wanted(cs, &e)) {
		log_failure(cs, &e);
		return;
	}
	for (int i = 0; i < cs->n; i++) {
		struct cs_claim *c = &cs->claims[i];
		json_t *body = c->want ? json_incref(c->want) :
			dra_claim_status_body(cs->cfg.driver, c->ns, c->name, c->uid, NULL, 0);
		int rc;

		if (c->done && json_equal(c->done, body)) {
			json_decref(body);
			if (!c->want) {
				drop(cs, c);	/* cleared: nothing of ours left there */
				i--;
			}
			continue;
		}
		if (now < c->next_ms || writes >= WRITES_PER_PASS || !k) {
			json_decref(body);
			continue;
		}
		writes++;
		e = (struct rn_error){ 0 };
		rc = write_one(cs, k, c, body, &e);
		if (rc >= 0) {
			json_decref(c->done);
			c->done = body;
			c->backoff_ms = 0;
			c->next_ms = 0;
			if (!rc && cs->last_err) {
				rn_info("DRA claim status written again");
				cs->last_err = 0;
			}
			continue;	/* a cleared one goes at the next pass */
		}
		json_decref(body);
		c->backoff_ms = c->backoff_ms ? c->backoff_ms * 2 : BACKOFF_FIRST_MS;
		if (c->backoff_ms > BACKOFF_MAX_MS)
			c->backoff_ms = BACKOFF_MAX_MS;
		c->next_ms = now + c->backoff_ms;
		log_failure(cs, &e);
		break;		/* the others would fail alike: the next pass */
	}
	if (cs->dirty)
		save(cs);
}

struct dra_claim_status *dra_claim_status_open(const struct rn_dra_config *cfg)
{
	struct dra_claim_status *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return NULL;
	cs->cfg = *cfg;
	load(cs);
	return cs;
}

void dra_claim_status_close(struct dra_claim_status *cs)
{
	if (!cs)
		return;
	for (int i = 0; i < cs->n; i++) {
		json_decref(cs->claims[i].want);
		json_decref(cs->claims[i].done);
	}
	free(cs->claims);
	free(cs);
}

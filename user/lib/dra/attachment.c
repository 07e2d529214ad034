// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What the CNI attached from a claim, for the agent that writes it into
 * the claim's status.devices[].networkData (dra.h): one small JSON file per
 * attachment under <state_dir>/networks/, named "<network>:<container
 * id>:<ifname>.json" (a CNI network name and a container ID have no ':',
 * an interface name no '/' or ':': one name per attachment):
 *   { "network": "dranet", "container_id": "...", "ifname": "net1",
 *     "pod_uid": "...", "claim": { "namespace": "...", "name": "...",
 *     "uid": "..." }, "driver": "rdma.rdmanet.io", "pool": "node-a",
 *     "device": "mlx5-0-port1", "ips": [ "10.78.0.10/24" ],
 *     "mac": "aa:bb:cc:dd:ee:ff", "attached_ns": 1764170000000000000 }
 * Written whole to a temporary file and renamed: the agent, which reads
 * them every second, sees the old file or the new one. Not synced: after a
 * crash of the node the pods are gone too. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dra/dra.h"
#include "mkdir_p.h"
#include "netaddr.h"
#include "read_file.h"
#include "write_all.h"

#define NETWORKS_DIR "networks"
#define RECORD_MAX (16 * 1024)
#define TMP_PREFIX ".tmp."
#define TMP_MAX_AGE_S 60

_Static_assert(sizeof(((struct rn_dra_attachment *)0)->ips[0]) >= RN_PREFIX_STRLEN, "ips");
_Static_assert(sizeof(((struct rn_dra_attachment *)0)->mac) == RN_MAC_STRLEN, "mac");

static bool name_part_ok(const char *s, const char *forbidden)
{
	return s[0] && s[0] != '.' && !strpbrk(s, forbidden);
}

static int path_of(const char *state_dir, const char *network, const char *container_id,
		   const char *ifname, char *buf, size_t size, struct rn_error *e)
{
	int n;

	if (!name_part_ok(network, "/:") || !name_part_ok(container_id, "/:") ||
	    !name_part_ok(ifname, "/:"))
		return rn_fail(e, -EINVAL, "DRA network data: attachment %s/%s/%s: not a file name",
			       network, container_id, ifname);
	n = snprintf(buf, size, "%s/" NETWORKS_DIR "/%s:%s:%s.json", state_dir, network,
		     container_id, ifname);
	if (n < 0 || (size_t)n >= size)
		return rn_fail(e, -ENAMETOOLONG, "DRA network data: %s: path too long", state_dir);
	return 0;
}

static json_t *to_json(const struct rn_dra_attachment *a)
{
	json_t *ips = json_array();

	for (int i = 0; i < a->n_ips; i++)
		json_array_append_new(ips, json_string(a->ips[i]));
	return json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s}, s:s, s:s, s:s, s:o, s:s, s:I}",
			 "network", a->network, "container_id", a->container_id,
			 "ifname", a->ifname, "pod_uid", a->pod_uid,
			 "claim", "namespace", a->claim_namespace, "name", a->claim_name,
			 "uid", a->claim_uid,
			 "driver", a->driver, "pool", a->pool, "device", a->device,
			 "ips", ips, "mac", a->mac, "attached_ns", (json_int_t)a->attached_ns);
}

int rn_dra_attachment_write(const char *state_dir, const struct rn_dra_attachment *a,
			    struct rn_error *e)
{
	char path[PATH_MAX], tmp[PATH_MAX], dir[PATH_MAX];
	json_t *o;
	char *text;
	int err;

	err = path_of(state_dir, a->network, a->container_id, a->ifname, path, sizeof(path), e);
	if (err)
		return err;
	snprintf(dir, sizeof(dir), "%s/" NETWORKS_DIR, state_dir);
	if (snprintf(tmp, sizeof(tmp), "%s/" TMP_PREFIX "%d", dir, (int)getpid()) >= (int)sizeof(tmp))
		return rn_fail(e, -ENAMETOOLONG, "DRA network data: %s: path too long", dir);
	o = to_json(a);
	text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	if (!text)
		return rn_fail(e, -ENOMEM, "DRA network data: out of memory");
	err = rn_mkdir_p(dir, 0700);
	if (err) {
		free(text);
		return rn_fail(e, err, "DRA network data: %s: %s", dir, strerror(-err));
	}
	err = rn_write_file_replace(path, tmp, text, strlen(text), 0600, false);
	if (err)
		rn_fail(e, err, "DRA network data: %s: %s", path, strerror(-err));
	free(text);
	return err;
}

int rn_dra_attachment_remove(const char *state_dir, const char *network,
			     const char *container_id, const char *ifname, struct rn_error *e)
{
	char path[PATH_MAX];
	int err = path_of(state_dir, network, container_id, ifname, path, sizeof(path), e);

	if (err)
		return err;
	if (unlink(path) && errno != ENOENT)
		return rn_fail(e, -errno, "DRA network data: %s: %s", path, strerror(errno));
	return 0;
}

/* a string field shorter than size, not empty */
static int str(json_t *o, const char *key, char *out, size_t size, struct rn_error *e)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s || !s[0] || strlen(s) >= size)
		return rn_fail(e, -EINVAL, "\"%s\": a string of 1 to %zu characters", key, size - 1);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

static int ips_from(json_t *a, struct rn_dra_attachment *out, struct rn_error *e)
{
	struct rn_prefix p, seen[RN_DRA_NET_MAX_IPS];
	json_t *v;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) > RN_DRA_NET_MAX_IPS)
		return rn_fail(e, -EINVAL, "\"ips\": an array of at most %d", RN_DRA_NET_MAX_IPS);
	json_array_foreach(a, i, v) {
		const char *s = json_string_value(v);

		if (!s || rn_prefix_parse(s, &p, false))
			return rn_fail(e, -EINVAL, "\"ips\"[%zu]: not an address/prefix", i);
		for (size_t k = 0; k < i; k++)
			if (rn_addr_equal(&seen[k].addr, &p.addr) && seen[k].len == p.len)
				return rn_fail(e, -EINVAL, "\"ips\"[%zu]: a duplicate", i);
		seen[i] = p;
		rn_prefix_format(&p, out->ips[out->n_ips++]);
	}
	return 0;
}

int rn_dra_attachment_parse(const char *text, size_t len, struct rn_dra_attachment *out,
			    struct rn_error *e)
{
	static const char *const keys[] = { "network", "container_id", "ifname", "pod_uid",
					    "claim", "driver", "pool", "device", "ips", "mac",
					    "attached_ns", NULL };
	json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL), *claim, *at;
	uint8_t mac[6];
	const char *key;
	json_t *v;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(o)) {
		json_decref(o);
		return rn_fail(e, -EINVAL, "not a JSON object");
	}
	json_object_foreach(o, key, v) {
		bool known = false;

		for (int i = 0; keys[i]; i++)
			known |= !strcmp(keys[i], key);
		if (!known) {
			err = rn_fail(e, -EINVAL, "\"%s\": unknown key", key);
			goto out;
		}
	}
	claim = json_object_get(o, "claim");
	at = json_object_get(o, "attached_ns");
	err = str(o, "network", out->network, sizeof(out->network), e) ?:
	      str(o, "container_id", out->container_id, sizeof(out->container_id), e) ?:
	      str(o, "ifname", out->ifname, sizeof(out->ifname), e) ?:
	      str(o, "pod_uid", out->pod_uid, sizeof(out->pod_uid), e) ?:
	      str(claim, "namespace", out->claim_namespace, sizeof(out->claim_namespace), e) ?:
	      str(claim, "name", out->claim_name, sizeof(out->claim_name), e) ?:
	      str(claim, "uid", out->claim_uid, sizeof(out->claim_uid), e) ?:
	      str(o, "driver", out->driver, sizeof(out->driver), e) ?:
	      str(o, "pool", out->pool, sizeof(out->pool), e) ?:
	      str(o, "device", out->device, sizeof(out->device), e) ?:
	      str(o, "mac", out->mac, sizeof(out->mac), e) ?:
	      ips_from(json_object_get(o, "ips"), out, e);
	if (!err && rn_mac_parse(out->mac, mac))
		err = rn_fail(e, -EINVAL, "\"mac\": not a MAC address");
	if (!err && (!json_is_integer(at) || json_integer_value(at) < 0))
		err = rn_fail(e, -EINVAL, "\"attached_ns\": a non-negative integer");
	if (!err)
		out->attached_ns = json_integer_value(at);
out:
	json_decref(o);
	return err;
}

/* a temporary file of a writer killed before its rename, once it is
 * older than any write takes */
static void sweep_tmp(int dfd, const char *name)
{
	struct stat st;

	if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	    st.st_mtime + TMP_MAX_AGE_S < time(NULL))
		unlinkat(dfd, name, 0);
}

int rn_dra_attachment_list(const char *state_dir, struct rn_dra_attachment **out, int *n,
			   struct rn_error *e)
{
	char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 2];
	struct dirent *de;
	int cap = 0;
	DIR *d;

	*out = NULL;
	*n = 0;
	snprintf(dir, sizeof(dir), "%s/" NETWORKS_DIR, state_dir);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : rn_fail(e, -errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		struct rn_error pe = { 0 };
		size_t len = strlen(de->d_name);
		char *text;
		size_t tl;

		if (!strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX))) {
			sweep_tmp(dirfd(d), de->d_name);
			continue;
		}
		if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (rn_read_file("DRA network data", path, RECORD_MAX, &text, &tl, &pe))
			continue;	/* removed meanwhile, or unreadable: not an attachment */
		if (*n == cap) {
			struct rn_dra_attachment *m;

			cap = cap ? cap * 2 : 16;
			m = realloc(*out, (size_t)cap * sizeof(**out));
			if (!m) {
				free(text);
				closedir(d);
				free(*out);
				*out = NULL;
				*n = 0;
				return rn_fail(e, -ENOMEM, "out of memory");
			}
			*out = m;
		}
		if (!rn_dra_attachment_parse(text, tl, &(*out)[*n], &pe))
			(*n)++;
		free(text);
	}
	closedir(d);
	return 0;
}

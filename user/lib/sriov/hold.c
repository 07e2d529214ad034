// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* VF holds: <state_dir>/sriov/<pci>.json says which pod holds a VF and what
 * the VF was before (so DEL, GC and the agent's leak sweep can put it
 * back); <state_dir>/sriov/<pci>.lock is flock'd by whoever works on the
 * VF (the per-VF lock: two ADDs never take one VF). The record is written
 * to a temporary file, fsync'd and renamed: a kill -9 leaves the old or
 * the new record, never half of one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "json_fields.h"
#include "mkdir_p.h"
#include "sriov/sriov.h"

static const char *dir_of(const char *state_dir)
{
	const char *env = getenv(RN_SRIOV_STATE_DIR_ENV);

	if (state_dir && state_dir[0])
		return state_dir;
	return env && env[0] ? env : RN_SRIOV_DEFAULT_STATE_DIR;
}

int rn_sriov_hold_dir(const char *state_dir, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/sriov", dir_of(state_dir));

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int rn_sriov_hold_path(const char *state_dir, const char *pci, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/sriov/%s.json", dir_of(state_dir), pci);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int rn_sriov_hold_lock(const char *state_dir, const char *pci, bool nonblocking, int *fd,
		       struct rn_error *e)
{
	char path[PATH_MAX];
	int f;

	*fd = -1;
	if (!rn_sriov_pci_valid(pci))
		return rn_fail(e, -EINVAL, "\"%s\" is not a PCI address (dddd:bb:dd.f)", pci);
	if (snprintf(path, sizeof(path), "%s/sriov", dir_of(state_dir)) >= (int)sizeof(path))
		return rn_fail(e, -ENAMETOOLONG, "state dir path too long");
	if (rn_mkdir_p(path, 0700))
		return rn_fail(e, -errno, "%s: %s", path, strerror(errno));
	if (snprintf(path, sizeof(path), "%s/sriov/%s.lock", dir_of(state_dir), pci) >=
	    (int)sizeof(path))
		return rn_fail(e, -ENAMETOOLONG, "state dir path too long");
	f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (f < 0)
		return rn_fail(e, -errno, "%s: %s", path, strerror(errno));
	if (flock(f, LOCK_EX | (nonblocking ? LOCK_NB : 0))) {
		int err = -errno;

		close(f);
		if (err == -EWOULDBLOCK)
			return rn_fail(e, err, "VF %s is being attached or detached by another "
				       "process", pci);
		return rn_fail(e, err, "lock %s: %s", path, strerror(-err));
	}
	*fd = f;
	return 0;
}

static void put_mac(json_t *o, const char *key, const uint8_t m[6])
{
	char buf[18];

	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
		 m[5]);
	json_object_set_new(o, key, json_string(buf));
}

static int get_mac(json_t *o, const char *key, uint8_t m[6])
{
	const char *s = json_string_value(json_object_get(o, key));
	unsigned int b[6];

	if (!s || sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		m[i] = (uint8_t)b[i];
	return 0;
}

/* The hold keeps the GUIDs too: restoring an RDMA VF puts them back. */
static json_t *admin_to_json(const struct rn_vf_admin *a)
{
	json_t *o = rn_sriov_admin_to_json(a);
	char g[24];

	snprintf(g, sizeof(g), "%016llx", (unsigned long long)a->node_guid);
	json_object_set_new(o, "node_guid", json_string(g));
	snprintf(g, sizeof(g), "%016llx", (unsigned long long)a->port_guid);
	json_object_set_new(o, "port_guid", json_string(g));
	return o;
}

static int admin_from_json(json_t *o, struct rn_vf_admin *a)
{
	json_t *v;
	const char *s;

	memset(a, 0, sizeof(*a));
	if (!json_is_object(o) || get_mac(o, "mac", a->mac))
		return -EINVAL;
	a->valid = true;
	a->vlan = (unsigned int)json_integer_value(json_object_get(o, "vlan"));
	a->qos = (unsigned int)json_integer_value(json_object_get(o, "qos"));
	s = json_string_value(json_object_get(o, "vlan_proto"));
	a->vlan_proto = s && !strcmp(s, "802.1ad") ? 0x88a8 : 0x8100;
	v = json_object_get(o, "spoofchk");
	a->spoofchk = json_is_boolean(v) ? json_is_true(v) : -1;
	v = json_object_get(o, "trust");
	a->trust = json_is_boolean(v) ? json_is_true(v) : -1;
	s = json_string_value(json_object_get(o, "link_state"));
	a->link_state = !s ? -1 : !strcmp(s, "enable") ? RN_VF_LINK_ENABLE :
			!strcmp(s, "disable") ? RN_VF_LINK_DISABLE : RN_VF_LINK_AUTO;
	a->min_tx_rate = (unsigned int)json_integer_value(json_object_get(o, "min_tx_rate"));
	a->max_tx_rate = (unsigned int)json_integer_value(json_object_get(o, "max_tx_rate"));
	s = json_string_value(json_object_get(o, "node_guid"));
	a->node_guid = s ? strtoull(s, NULL, 16) : 0;
	s = json_string_value(json_object_get(o, "port_guid"));
	a->port_guid = s ? strtoull(s, NULL, 16) : 0;
	return 0;
}

json_t *rn_sriov_hold_to_json(const struct rn_sriov_hold *h)
{
	json_t *o = json_object(), *orig = json_object();

	json_object_set_new(o, "pci", json_string(h->pci));
	json_object_set_new(o, "pf", json_string(h->pf_ifname));
	json_object_set_new(o, "vf", json_integer(h->vf));
	json_object_set_new(o, "network", json_string(h->network));
	json_object_set_new(o, "container_id", json_string(h->container_id));
	json_object_set_new(o, "ifname", json_string(h->ifname));
	json_object_set_new(o, "netns", json_string(h->netns));
	json_object_set_new(o, "pod_namespace", json_string(h->pod_namespace));
	json_object_set_new(o, "pod_name", json_string(h->pod_name));
	json_object_set_new(o, "since", json_integer((json_int_t)h->since));
	json_object_set_new(o, "complete", json_boolean(h->complete));
	json_object_set_new(o, "rdma_moved", json_boolean(h->rdma_moved));
	if (h->released)
		json_object_set_new(o, "released", json_true());
	if (h->claim_uid[0]) {
		json_t *c = json_object();

		json_object_set_new(o, "claim_uid", json_string(h->claim_uid));
		json_object_set_new(c, "namespace", json_string(h->claim_namespace));
		json_object_set_new(c, "name", json_string(h->claim_name));
		json_object_set_new(c, "network", json_string(h->claim_network));
		json_object_set_new(o, "claim", c);
	}
	if (h->netns_ino) {
		json_t *id = json_object();

		json_object_set_new(id, "dev", json_integer((json_int_t)h->netns_dev));
		json_object_set_new(id, "ino", json_integer((json_int_t)h->netns_ino));
		json_object_set_new(o, "netns_id", id);
	}
	json_object_set_new(orig, "netdev", json_string(h->orig_netdev));
	json_object_set_new(orig, "mtu", json_integer(h->orig_mtu));
	put_mac(orig, "mac", h->orig_mac);
	json_object_set_new(orig, "rdma_dev", json_string(h->orig_rdma_dev));
	json_object_set_new(orig, "admin", h->orig_admin.valid ? admin_to_json(&h->orig_admin) :
			    json_null());
	json_object_set_new(o, "original", orig);
	return o;
}

static int str(json_t *o, const char *key, char *out, size_t size)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s || strlen(s) >= size)
		return -EINVAL;
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

/* "claim": {namespace, name, network}; absent in holds of older agents */
static int claim_from_json(json_t *c, struct rn_sriov_hold *h)
{
	if (!json_is_object(c) ||
	    str(c, "namespace", h->claim_namespace, sizeof(h->claim_namespace)) ||
	    str(c, "name", h->claim_name, sizeof(h->claim_name)) ||
	    str(c, "network", h->claim_network, sizeof(h->claim_network)))
		return -EINVAL;
	return 0;
}

void rn_sriov_hold_for_claim(const struct rn_sriov_hold *h, struct rn_sriov_hold *out)
{
	struct rn_sriov_hold c = { 0 };

	snprintf(c.pci, sizeof(c.pci), "%s", h->pci);
	snprintf(c.pf_ifname, sizeof(c.pf_ifname), "%s", h->pf_ifname);
	c.vf = h->vf;
	snprintf(c.claim_uid, sizeof(c.claim_uid), "%s", h->claim_uid);
	snprintf(c.claim_namespace, sizeof(c.claim_namespace), "%s", h->claim_namespace);
	snprintf(c.claim_name, sizeof(c.claim_name), "%s", h->claim_name);
	snprintf(c.claim_network, sizeof(c.claim_network), "%s", h->claim_network);
	/* a pod's hold of an older agent does not name the claim: the pod's
	 * names are the best there is */
	snprintf(c.pod_namespace, sizeof(c.pod_namespace), "%s",
		 h->claim_namespace[0] ? h->claim_namespace : h->pod_namespace);
	snprintf(c.pod_name, sizeof(c.pod_name), "%s",
		 h->claim_name[0] ? h->claim_name : h->pod_name);
	snprintf(c.network, sizeof(c.network), "%s", h->claim_network[0] ? h->claim_network : "dra");
	snprintf(c.orig_netdev, sizeof(c.orig_netdev), "%s", h->orig_netdev);
	snprintf(c.orig_rdma_dev, sizeof(c.orig_rdma_dev), "%s", h->orig_rdma_dev);
	c.since = time(NULL);
	*out = c;
}

int rn_sriov_hold_from_json(json_t *o, struct rn_sriov_hold *h, struct rn_error *e)
{
	json_t *orig = json_object_get(o, "original"), *admin;

	memset(h, 0, sizeof(*h));
	if (!json_is_object(o) || !json_is_object(orig) ||
	    str(o, "pci", h->pci, sizeof(h->pci)) || !rn_sriov_pci_valid(h->pci) ||
	    str(o, "pf", h->pf_ifname, sizeof(h->pf_ifname)) ||
	    str(o, "network", h->network, sizeof(h->network)) ||
	    str(o, "container_id", h->container_id, sizeof(h->container_id)) ||
	    str(o, "ifname", h->ifname, sizeof(h->ifname)) ||
	    str(o, "netns", h->netns, sizeof(h->netns)) ||
	    str(o, "pod_namespace", h->pod_namespace, sizeof(h->pod_namespace)) ||
	    str(o, "pod_name", h->pod_name, sizeof(h->pod_name)) ||
	    str(orig, "netdev", h->orig_netdev, sizeof(h->orig_netdev)) ||
	    str(orig, "rdma_dev", h->orig_rdma_dev, sizeof(h->orig_rdma_dev)) ||
	    get_mac(orig, "mac", h->orig_mac))
		return rn_fail(e, -EINVAL, "malformed VF hold record");
	h->vf = (int)json_integer_value(json_object_get(o, "vf"));
	h->since = (time_t)json_integer_value(json_object_get(o, "since"));
	h->complete = json_is_true(json_object_get(o, "complete"));
	h->rdma_moved = json_is_true(json_object_get(o, "rdma_moved"));
	h->released = json_is_true(json_object_get(o, "released"));
	if (json_object_get(o, "claim_uid") && str(o, "claim_uid", h->claim_uid, sizeof(h->claim_uid)))
		return rn_fail(e, -EINVAL, "malformed VF hold record: claim_uid");
	if (json_object_get(o, "claim") && claim_from_json(json_object_get(o, "claim"), h))
		return rn_fail(e, -EINVAL, "malformed VF hold record: claim");
	h->netns_dev = (uint64_t)json_integer_value(json_object_get(json_object_get(o, "netns_id"),
								      "dev"));
	h->netns_ino = (uint64_t)json_integer_value(json_object_get(json_object_get(o, "netns_id"),
								      "ino"));
	h->orig_mtu = (unsigned int)json_integer_value(json_object_get(orig, "mtu"));
	admin = json_object_get(orig, "admin");
	if (json_is_object(admin) && admin_from_json(admin, &h->orig_admin))
		return rn_fail(e, -EINVAL, "malformed VF hold record: original.admin");
	return 0;
}

int rn_sriov_hold_read(const char *state_dir, const char *pci, struct rn_sriov_hold *h,
		       struct rn_error *e)
{
	char path[PATH_MAX];
	json_error_t jerr;
	json_t *o;
	int rc;

	if (!rn_sriov_pci_valid(pci))
		return rn_fail(e, -EINVAL, "\"%s\" is not a PCI address (dddd:bb:dd.f)", pci);
	if (rn_sriov_hold_path(state_dir, pci, path, sizeof(path)))
		return rn_fail(e, -ENAMETOOLONG, "state dir path too long");
	o = json_load_file(path, 0, &jerr);
	if (!o) {
		if (access(path, F_OK) && errno == ENOENT)
			return -ENOENT;
		return rn_fail(e, -EINVAL, "%s: %s", path, jerr.text);
	}
	rc = rn_sriov_hold_from_json(o, h, e);
	json_decref(o);
	if (rc)
		rn_fail_wrap(e, "%s", path);
	return rc;
}

int rn_sriov_hold_write(const char *state_dir, const struct rn_sriov_hold *h,
			struct rn_error *e)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], dir[PATH_MAX];
	json_t *o;
	char *text;
	int fd, rc = 0;

	if (rn_sriov_hold_path(state_dir, h->pci, path, sizeof(path)))
		return rn_fail(e, -ENAMETOOLONG, "state dir path too long");
	snprintf(dir, sizeof(dir), "%s/sriov", dir_of(state_dir));
	if (rn_mkdir_p(dir, 0700))
		return rn_fail(e, -errno, "%s: %s", dir, strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	o = rn_sriov_hold_to_json(h);
	text = o ? json_dumps(o, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	if (!text)
		return rn_fail(e, -ENOMEM, "out of memory");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(text);
		return rn_fail(e, -errno, "%s: %s", tmp, strerror(errno));
	}
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fsync(fd))
		rc = rn_fail(e, -errno ? -errno : -EIO, "%s: %s", tmp, strerror(errno));
	close(fd);
	free(text);
	if (!rc && rename(tmp, path))
		rc = rn_fail(e, -errno, "%s: %s", path, strerror(errno));
	if (rc) {
		unlink(tmp);
		return rc;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	return 0;
}

int rn_sriov_hold_remove(const char *state_dir, const char *pci, struct rn_error *e)
{
	char path[PATH_MAX];

	if (rn_sriov_hold_path(state_dir, pci, path, sizeof(path)))
		return rn_fail(e, -ENAMETOOLONG, "state dir path too long");
	if (unlink(path) && errno != ENOENT)
		return rn_fail(e, -errno, "%s: %s", path, strerror(errno));
	return 0;
}

int rn_sriov_hold_list(const char *state_dir, struct rn_sriov_hold **out, int *n,
		       struct rn_error *e)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;

	*out = NULL;
	*n = 0;
	snprintf(dir, sizeof(dir), "%s/sriov", dir_of(state_dir));
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : rn_fail(e, -errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		char pci[RN_PCI_ADDR_LEN];
		size_t len = strlen(de->d_name);
		struct rn_sriov_hold h, *grown;

		if (len != 17 || strcmp(de->d_name + 12, ".json"))
			continue;
		memcpy(pci, de->d_name, 12);
		pci[12] = '\0';
		if (rn_sriov_hold_read(state_dir, pci, &h, NULL))
			continue;
		grown = realloc(*out, (size_t)(*n + 1) * sizeof(**out));
		if (!grown) {
			closedir(d);
			free(*out);
			*out = NULL;
			*n = 0;
			return rn_fail(e, -ENOMEM, "out of memory");
		}
		*out = grown;
		(*out)[(*n)++] = h;
	}
	closedir(d);
	return 0;
}

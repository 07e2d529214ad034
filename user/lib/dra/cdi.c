// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A prepared claim's CDI spec, <cdi_dir>/rdmanet.io-claim_<uid>.json (kind
 * "rdmanet.io/claim"): one CDI device per allocated device, named
 * "<claim uid>-<device>", with that device's RDMA character nodes (an HCA
 * port: uverbs and the port's umad/issm; a VF: its RDMA device's), and
 * claim-wide variables saying what the workload got:
 *   RDMANET_<REQUEST>_RDMA_DEVICE  "mlx5_0" (several: comma-separated)
 *   RDMANET_<REQUEST>_PORT, _NETDEV, _GID_INDEX (RoCE v2; -1: none), _PCI
 *   NCCL_IB_HCA, NCCL_IB_GID_INDEX (or the address family pair when the
 *   devices' indexes differ), UCX_NET_DEVICES: rn_env_vars, the same the
 *   CNI's rdmanetctl env gives (not NCCL_SOCKET_IFNAME: the pod's
 *   interface names are the CNI's, not known here).
 * The spec is written atomically (rn_cdi_spec_write, shared with the
 * device plugin's). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "devplugin/devplugin.h"
#include "dra/internal.h"
#include "rdma/rdma.h"

static void spec_path(const struct rn_dra_config *cfg, const char *uid, char *buf, size_t size)
{
	snprintf(buf, size, "%.3900s/rdmanet.io-claim_%.63s.json", cfg->cdi_dir, uid);
}

void dra_cdi_id(const char *uid, const char *device, char *buf, size_t size)
{
	snprintf(buf, size, "%s=%s-%s", RN_DRA_CDI_KIND, uid, device);
}

/* "nic/sub-1" -> "RDMANET_NIC_SUB_1_<what>" */
static void var_name(const char *request, const char *what, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "RDMANET_");

	for (; *request && n + 1 < size; request++) {
		char ch = *request;

		if (ch >= 'a' && ch <= 'z')
			ch = (char)(ch - 'a' + 'A');
		else if (!((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
			ch = '_';
		buf[n++] = ch;
	}
	snprintf(buf + n, size - n, "_%s", what);
}

/* appends ",value" to the variable name=... in vars (or adds it) */
static void add_var(json_t *vars, const char *name, const char *value)
{
	size_t i, len = strlen(name);
	json_t *v;
	char buf[2048];

	json_array_foreach(vars, i, v) {
		const char *s = json_string_value(v);

		if (!strncmp(s, name, len) && s[len] == '=') {
			snprintf(buf, sizeof(buf), "%s,%s", s, value);
			json_array_set_new(vars, i, json_string(buf));
			return;
		}
	}
	snprintf(buf, sizeof(buf), "%s=%s", name, value);
	json_array_append_new(vars, json_string(buf));
}

static void request_vars(json_t *vars, const char *request, const struct rn_dra_device *d)
{
	char name[256], val[64];

	var_name(request, "RDMA_DEVICE", name, sizeof(name));
	add_var(vars, name, d->rdma_dev);
	var_name(request, "PORT", name, sizeof(name));
	snprintf(val, sizeof(val), "%u", d->port);
	add_var(vars, name, val);
	var_name(request, "NETDEV", name, sizeof(name));
	add_var(vars, name, d->netdev);
	var_name(request, "GID_INDEX", name, sizeof(name));
	snprintf(val, sizeof(val), "%d", d->gid_index);
	add_var(vars, name, val);
	if (d->kind == RN_DRA_VF) {
		var_name(request, "PCI", name, sizeof(name));
		add_var(vars, name, d->pci);
	}
}

static void nccl_vars(json_t *vars, const struct rn_dra_device *const *devs, int n)
{
	struct rn_env env = { 0 };
	struct rn_env_var ev[8];
	int k;

	env.same_gid_index = true;
	env.family = AF_INET;
	for (int i = 0; i < n && env.n_rails < RN_MAX_MASTERS; i++) {
		struct rn_env_rail *r = &env.rails[env.n_rails];

		if (!devs[i]->rdma_dev[0])
			continue;
		snprintf(r->dev, sizeof(r->dev), "%s", devs[i]->rdma_dev);
		snprintf(r->ifname, sizeof(r->ifname), "%s", devs[i]->netdev);
		r->port = devs[i]->port;
		r->gid_index = devs[i]->gid_index < 0 ? 0 : (unsigned int)devs[i]->gid_index;
		if (devs[i]->gid_index < 0 ||
		    (env.n_rails && r->gid_index != env.rails[0].gid_index))
			env.same_gid_index = false;
		env.n_rails++;
	}
	if (!env.n_rails)
		return;
	k = rn_env_vars(&env, ev);
	for (int i = 0; i < k; i++)
		if (strcmp(ev[i].name, "NCCL_SOCKET_IFNAME"))
			add_var(vars, ev[i].name, ev[i].value);
}

static bool has_device(json_t *cdevs, const char *name)
{
	size_t i;
	json_t *d;

	json_array_foreach(cdevs, i, d)
		if (!strcmp(json_string_value(json_object_get(d, "name")), name))
			return true;
	return false;
}

int dra_cdi_write(const struct rn_dra_config *cfg, const struct rn_rdma_model *m,
		  const struct rn_dra_prepared *p, const struct rn_dra_device *const *devs,
		  struct rn_error *e)
{
	json_t *cdevs = json_array(), *vars = json_array(), *spec;
	char path[PATH_MAX];
	int err;

	for (int i = 0; i < p->n_devices; i++) {
		const struct rn_dra_device *d = devs[i];
		char name[RN_DRA_UID_LEN + RN_DRA_NAME_LEN + 2];

		if (!d->rdma_dev[0]) {
			json_decref(cdevs);
			json_decref(vars);
			return rn_fail(e, -ENODEV, "device %s: %s has no RDMA device on this host "
				       "(moved into another netns?)", p->devices[i].device,
				       d->pci[0] ? d->pci : "it");
		}
		request_vars(vars, p->devices[i].request, d);
		snprintf(name, sizeof(name), "%s-%s", p->uid, d->name);
		if (has_device(cdevs, name))
			continue;	/* one device for two requests: CDI names are unique */
		json_array_append_new(cdevs, json_pack("{s:s, s:{s:o}}", "name", name,
						       "containerEdits", "deviceNodes",
						       rn_cdi_rdma_nodes(m, d->rdma_dev,
									 d->kind == RN_DRA_VF ? 0 :
									 d->port)));
	}
	nccl_vars(vars, devs, p->n_devices);
	spec = json_pack("{s:s, s:s, s:o, s:{s:o}}", "cdiVersion", "0.5.0", "kind",
			 RN_DRA_CDI_KIND, "devices", cdevs, "containerEdits", "env", vars);
	spec_path(cfg, p->uid, path, sizeof(path));
	err = rn_cdi_spec_write(path, spec, e);
	json_decref(spec);
	return err;
}

bool dra_cdi_exists(const struct rn_dra_config *cfg, const char *uid)
{
	char path[PATH_MAX];

	spec_path(cfg, uid, path, sizeof(path));
	return access(path, F_OK) == 0;
}

int dra_cdi_remove(const struct rn_dra_config *cfg, const char *uid, struct rn_error *e)
{
	char path[PATH_MAX];

	spec_path(cfg, uid, path, sizeof(path));
	if (unlink(path) && errno != ENOENT)
		return rn_fail(e, -errno, "%s: %s", path, strerror(errno));
	return 0;
}

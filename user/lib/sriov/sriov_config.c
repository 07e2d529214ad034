// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The node config's "sriov" array, and which PF an entry selects: "pf" by
 * netdev name or PCI address, else "selectors" as sriov-network-device-
 * plugin has them (vendors, deviceIDs, rootDevices, pfNames; every
 * non-empty list must match, any entry of a list may). An entry that
 * selects nothing never matches: the agent touches only PFs it was told
 * about. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_fields.h"
#include "sriov/sriov.h"

static int parse_list(json_t *sel, const char *key, char *out, size_t width, int max, int *n,
		      const char *where, struct rn_error *e)
{
	json_t *arr = json_object_get(sel, key), *v;
	size_t i;

	*n = 0;
	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return rn_fail(e, -EINVAL, "%s.%s: expected an array of strings", where, key);
	if ((int)json_array_size(arr) > max)
		return rn_fail(e, -EINVAL, "%s.%s: more than %d entries", where, key, max);
	json_array_foreach(arr, i, v) {
		const char *s = json_string_value(v);

		if (!s || !s[0] || strlen(s) >= width)
			return rn_fail(e, -EINVAL, "%s.%s[%zu]: expected a non-empty string shorter "
				       "than %zu", where, key, i, width);
		snprintf(out + (size_t)*n * width, width, "%s", s);
		(*n)++;
	}
	return 0;
}

static int parse_entry(json_t *o, struct rn_sriov_pf_config *pc, const char *where,
		       struct rn_error *e)
{
	static const char *const keys[] = { "pf", "selectors", "numVfs", "isRdma", "mtu",
					    "resourceName", "resourcePrefix", NULL };
	static const char *const sel_keys[] = { "vendors", "deviceIDs", "rootDevices",
						"pfNames", NULL };
	char swhere[96];
	json_t *sel = NULL;
	long long v;

	if (!json_is_object(o))
		return rn_fail(e, -EINVAL, "%s: expected an object", where);
	if (rn_json_only_keys(o, keys, where, e) ||
	    rn_json_string(o, "pf", pc->pf, sizeof(pc->pf), where, e) ||
	    rn_json_typed(o, "selectors", JSON_OBJECT, &sel, where, e) ||
	    rn_json_bool(o, "isRdma", &pc->is_rdma, where, e) ||
	    rn_json_string(o, "resourceName", pc->resource_name, sizeof(pc->resource_name),
			   where, e) ||
	    rn_json_string(o, "resourcePrefix", pc->resource_prefix,
			   sizeof(pc->resource_prefix), where, e))
		return -EINVAL;
	/* kubelet's rules for "<prefix>/<name>" are checked where the device
	 * plugin builds its resources (rn_dp_config_build), at config time */
	if (!pc->resource_prefix[0])
		snprintf(pc->resource_prefix, sizeof(pc->resource_prefix), "%s",
			 RN_SRIOV_DEFAULT_PREFIX);
	v = -1;
	if (rn_json_int(o, "numVfs", 0, 4096, &v, where, e))
		return -EINVAL;
	if (v < 0)
		return rn_fail(e, -EINVAL, "%s.numVfs: required", where);
	pc->num_vfs = (int)v;
	v = 0;
	if (rn_json_int(o, "mtu", 0, 65535, &v, where, e))
		return -EINVAL;
	if (v && v < 68)
		return rn_fail(e, -EINVAL, "%s.mtu: %lld is below the IPv4 minimum 68", where, v);
	pc->mtu = (unsigned int)v;
	if (pc->pf[0] && sel)
		return rn_fail(e, -EINVAL, "%s: give \"pf\" or \"selectors\", not both", where);
	if (!pc->pf[0] && !sel)
		return rn_fail(e, -EINVAL, "%s: \"pf\" or \"selectors\" is required (the agent "
			       "changes only PFs it is told about)", where);
	if (sel) {
		snprintf(swhere, sizeof(swhere), "%s.selectors", where);
		if (rn_json_only_keys(sel, sel_keys, swhere, e) ||
		    parse_list(sel, "vendors", &pc->vendors[0][0], 8, RN_SRIOV_MAX_SEL,
			       &pc->n_vendors, swhere, e) ||
		    parse_list(sel, "deviceIDs", &pc->device_ids[0][0], 8, RN_SRIOV_MAX_SEL,
			       &pc->n_device_ids, swhere, e) ||
		    parse_list(sel, "rootDevices", &pc->root_devices[0][0], RN_PCI_ADDR_LEN,
			       RN_SRIOV_MAX_SEL, &pc->n_root_devices, swhere, e) ||
		    parse_list(sel, "pfNames", &pc->pf_names[0][0], RN_IFNAMSIZ, RN_SRIOV_MAX_SEL,
			       &pc->n_pf_names, swhere, e))
			return -EINVAL;
		if (!pc->n_vendors && !pc->n_device_ids && !pc->n_root_devices && !pc->n_pf_names)
			return rn_fail(e, -EINVAL, "%s: empty: it would select every PF", swhere);
		for (int i = 0; i < pc->n_root_devices; i++)
			if (!rn_sriov_pci_valid(pc->root_devices[i]))
				return rn_fail(e, -EINVAL, "%s.rootDevices[%d]: \"%s\" is not a PCI "
					       "address (dddd:bb:dd.f)", swhere, i,
					       pc->root_devices[i]);
	}
	for (const char *p = pc->resource_name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.'))
			return rn_fail(e, -EINVAL, "%s.resourceName: \"%s\": only letters, digits, "
				       "'_', '-' and '.'", where, pc->resource_name);
	return 0;
}

int rn_sriov_config_parse(json_t *arr, struct rn_sriov_config *out, struct rn_error *e)
{
	json_t *o;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->wait_ms = 10000;
	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return rn_fail(e, -EINVAL, "config: sriov: expected an array");
	out->pfs = calloc(json_array_size(arr) + 1, sizeof(*out->pfs));
	if (!out->pfs)
		return rn_fail(e, -ENOMEM, "config: out of memory");
	json_array_foreach(arr, i, o) {
		char where[48];

		snprintf(where, sizeof(where), "config: sriov[%zu]", i);
		if (parse_entry(o, &out->pfs[i], where, e)) {
			rn_sriov_config_free(out);
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++)
			if (out->pfs[i].pf[0] && !strcmp(out->pfs[i].pf, out->pfs[j].pf)) {
				rn_fail(e, -EINVAL, "%s.pf: \"%s\" listed twice", where,
					out->pfs[i].pf);
				rn_sriov_config_free(out);
				return -EINVAL;
			}
		out->n++;
	}
	return 0;
}

void rn_sriov_config_free(struct rn_sriov_config *c)
{
	free(c->pfs);
	c->pfs = NULL;
	c->n = 0;
}

int rn_sriov_config_check(const struct rn_config *c, struct rn_error *e)
{
	struct rn_sriov_config sc;
	int rc = rn_sriov_config_parse(c->sriov, &sc, e);

	rn_sriov_config_free(&sc);
	return rc;
}

int rn_sriov_config_get(const struct rn_config *c, struct rn_sriov_config *out,
			struct rn_error *e)
{
	const char *env = getenv(RN_SRIOV_STATE_DIR_ENV);

	if (rn_sriov_config_parse(c->sriov, out, e))
		return -1;
	/* the holds are where the node's CNI plugin writes them (cni.state_dir);
	 * the environment may point a tool elsewhere */
	if (!env || !env[0])
		snprintf(out->state_dir, sizeof(out->state_dir), "%s", c->cni.state_dir);
	return 0;
}

static bool in_list(const char *v, const char *list, size_t width, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, list + (size_t)i * width))
			return true;
	return false;
}

bool rn_sriov_pf_matches(const struct rn_sriov_pf_config *pc, const struct rn_sriov_pf *pf)
{
	if (pc->pf[0])
		return !strcmp(pc->pf, pf->pci) || (pf->ifname[0] && !strcmp(pc->pf, pf->ifname));
	if (!pc->n_vendors && !pc->n_device_ids && !pc->n_root_devices && !pc->n_pf_names)
		return false;
	if (pc->n_vendors && !in_list(pf->vendor, &pc->vendors[0][0], 8, pc->n_vendors))
		return false;
	if (pc->n_device_ids && !in_list(pf->device, &pc->device_ids[0][0], 8, pc->n_device_ids))
		return false;
	if (pc->n_root_devices &&
	    !in_list(pf->pci, &pc->root_devices[0][0], RN_PCI_ADDR_LEN, pc->n_root_devices))
		return false;
	if (pc->n_pf_names &&
	    (!pf->ifname[0] || !in_list(pf->ifname, &pc->pf_names[0][0], RN_IFNAMSIZ,
					pc->n_pf_names)))
		return false;
	return true;
}

const struct rn_sriov_pf_config *rn_sriov_config_for_pf(const struct rn_sriov_config *c,
							 const struct rn_sriov_pf *pf)
{
	for (int i = 0; i < c->n; i++)
		if (rn_sriov_pf_matches(&c->pfs[i], pf))
			return &c->pfs[i];
	return NULL;
}

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The plugin configuration a runtime hands over on stdin (a NetworkAttach-
 * mentDefinition's "config", with name/cniVersion/prevResult/runtimeConfig
 * filled in by the runtime):
 *
 *   { "cniVersion": "1.1.0", "name": "rail1", "type": "rdmanet",
 *     "mode": "macvlan",             macvlan (default) | ipvlan | sriov
 *     "master": "ens6f0np0",         or omitted: the pools' "masters" choose
 *     "macvlanMode": "bridge",       bridge (default) | private | vepa
 *     "ipvlanMode": "l2",            l2 (default) | l3 | l3s
 *     "mtu": 9000,                   0 / omitted: the master's
 *     "ippools": { "ipv4": ["rail1-v4"], "ipv6": ["rail1-v6"] },
 *                                    optional with "dra" if the claim's config names pools
 *     "routes": [ { "dst": "172.16.0.0/16", "gw": "172.16.11.254" } ],
 *     "policyRouting": true | { "enabled": true, "tableBase": 100, "rulePriority": 1000 },
 *     "gatewayCheck": true | { "enabled": true, "timeoutMs": 1000, "probes": 3 },
 *     "ipConflictCheck": true | { "enabled": true, "timeoutMs": 50, "probes": 2 },
 *     "dscp": 26,                    RoCE DSCP of this attachment (default: the master's);
 *                                    one of the node's cni.allowed_dscp
 *     "dra": { "request": "nic" },   the device from the pod's DRA claim (the request's):
 *                                    a VF means mode sriov with it, an HCA port the
 *                                    port's netdev as master; the claim's config may
 *                                    give mode, ipvlanMode, ippools, dscp (dra_claim.h)
 *     "configFile": "...",           accepted only if it names the node's own
 *     "stateDir": "..." }            config file / state dir (node.h)
 *
 * mode "sriov" (exclusive mode: a VF and its RDMA device move into the pod):
 *     "deviceID": "0000:3b:00.2",    the VF's PCI address: what Multus sets at the
 *                                    top level (with "pciBusID", the same), else
 *                                    runtimeConfig.deviceID. Every mode accepts
 *                                    deviceID and pciBusID (Multus sets them in any
 *                                    delegate of a NAD with a resourceName
 *                                    annotation); only this one uses them
 *     "vlan": 10, "vlanQoS": 3, "vlanProto": "802.1Q" | "802.1ad",
 *     "mac": "02:..", "spoofchk": "on"|"off", "trust": "on"|"off",
 *     "link_state": "auto"|"enable"|"disable",
 *     "min_tx_rate": 0, "max_tx_rate": 1000     (sriov-cni's keys, Mbps)
 *
 * Fields the plugin does not know are ignored and left in place (the spec:
 * runtimes and plugins pass them through). Errors name the field. */
#ifndef RDMANET_CNI_NETCONF_H
#define RDMANET_CNI_NETCONF_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include <rdmanet/master.h>

#include "cni_error.h"
#include "cni_version.h"
#include "netaddr.h"
#include "ipam/ipam.h"

#define CNI_MAX_ROUTES 16
#define CNI_NAME_MAX 128
#define CNI_DEFAULT_TABLE_BASE 100
#define CNI_DEFAULT_RULE_PRIORITY 1000

enum cni_mode { CNI_MODE_MACVLAN = 0, CNI_MODE_IPVLAN, CNI_MODE_SRIOV };

struct cni_route {
	struct rn_prefix dst;		/* host bits zero */
	bool has_gw;
	struct rn_addr gw;
};

struct cni_probe_opts {
	bool enabled;
	unsigned int timeout_ms;	/* how long to wait for an answer in all */
	unsigned int probes;		/* requests sent, spread over the first part */
};

struct cni_policy_opts {
	bool enabled;
	uint32_t table_base;		/* first table; each interface takes the next free */
	uint32_t rule_priority;
};

struct cni_netconf {
	json_t *root;			/* the whole object from stdin (owned) */
	enum cni_ver version;
	const char *version_str;	/* points into root */
	char name[CNI_NAME_MAX];
	enum cni_mode mode;
	char master[RN_IFNAMSIZ];	/* "" : chosen from the pools */
	int macvlan_mode;		/* MACVLAN_MODE_* */
	int ipvlan_mode;		/* IPVLAN_MODE_* */
	unsigned int mtu;		/* 0: inherit */
	unsigned int n_ipv4_pools, n_ipv6_pools;
	const char *ipv4_pools[RN_IPAM_MAX_POOLS];	/* point into root */
	const char *ipv6_pools[RN_IPAM_MAX_POOLS];
	unsigned int n_routes;
	struct cni_route routes[CNI_MAX_ROUTES];
	struct cni_policy_opts policy;
	struct cni_probe_opts gateway_check;
	struct cni_probe_opts conflict_check;
	int dscp;			/* -1: the master's */
	/* host paths: the node's (node.h), filled when the node config loads */
	char config_file[PATH_MAX];
	bool config_file_given;		/* RDMANET_CONFIG named it: it must exist */
	char state_dir[PATH_MAX];
	/* what the network config says ("" if nothing): only checked against
	 * the node's, never used */
	char nad_config_file[PATH_MAX];
	char nad_state_dir[PATH_MAX];
	json_t *prev_result;		/* borrowed from root; NULL if absent */
	json_t *valid_attachments;	/* GC: borrowed from root; NULL if absent */
	/* "dra": the device is the pod's DRA claim's (dra_claim.h) */
	char dra_request[128];		/* "" : no "dra" */
	char dra_claim_uid[64];		/* filled by ADD's step: the claim found */
	/* the claim's pools, when its config names them: ipv4_pools and
	 * ipv6_pools point here then */
	char dra_pools[2 * RN_IPAM_MAX_POOLS][RN_POOL_NAME_MAX];
	/* mode sriov */
	char device_id[32];		/* "" : not given */
	bool has_vlan, has_mac, has_spoofchk, has_trust, has_link_state, has_rate;
	unsigned int vlan, vlan_qos;
	uint16_t vlan_proto;		/* host order */
	uint8_t vf_mac[6];
	int spoofchk, trust, link_state;
	unsigned int min_tx_rate, max_tx_rate;
};

/* Parses the plugin configuration. Codes: 6 not a JSON object, 1 a
 * cniVersion we do not speak, 7 a field with a bad value. On error c is
 * left freeable. */
int cni_netconf_parse(struct cni_netconf *c, const char *text, size_t len,
		      struct cni_err *err);
void cni_netconf_free(struct cni_netconf *c);

extern const char *const cni_mode_names[3];
extern const char *const cni_macvlan_mode_names[3];
extern const char *const cni_ipvlan_mode_names[3];
extern const int cni_ipvlan_modes[3];	/* IPVLAN_MODE_* of each name */
/* "bridge" for a MACVLAN_MODE_*, "l2" for an IPVLAN_MODE_*. */
const char *cni_submode_name(const struct cni_netconf *c);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The node configuration file (a ConfigMap in Kubernetes), shared by
 * rdmanetd, rdmanetctl and the CNI plugin. Every key has a default; an
 * unknown key is an error that names it. */
#ifndef RDMANET_CONFIG_H
#define RDMANET_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include <rdmanet/master.h>
#include <rdmanet/policy.h>

#include "error.h"

#define RN_DEFAULT_CONFIG "/etc/rdmanet/config.json"
#define RN_DEFAULT_PIN_DIR "/sys/fs/bpf/rdmanet"
/* where the DaemonSet has rdmanetd write its health (--health-file) */
#define RN_DEFAULT_HEALTH_FILE "/run/rdmanet/health.json"
#define RN_DEFAULT_TEXTFILE_DIR "/var/lib/node_exporter/textfile_collector"
#define RN_DEFAULT_IPAM_DB "/var/lib/rdmanet/ipam.db"
#define RN_DEFAULT_CNI_STATE_DIR "/var/lib/rdmanet/cni"

/* Upper bound for config "bpf.max_pods": per-CPU counters cost
 * sizeof(struct rn_pod_counters) * max_pods * possible CPUs. */
#define RN_MAX_PODS_LIMIT 65536

enum rn_xdp_mode { RN_XDP_MODE_AUTO = 0, RN_XDP_MODE_NATIVE, RN_XDP_MODE_SKB,
		   RN_XDP_MODE_OFF };

enum rn_tc_mode { RN_TC_MODE_AUTO = 0, RN_TC_MODE_TCX, RN_TC_MODE_CLSACT };

struct rn_master_config {
	char ifname[RN_IFNAMSIZ];
	enum rn_policy policy;
	enum rn_xdp_mode xdp_mode;
	enum rn_tc_mode tc_mode;
};

struct rn_qos_config {
	int roce_dscp;
	int cnp_dscp;
	enum rn_ecn_mode ecn;
};

/* The node's name where the config has no "node": the Kubernetes node name,
 * which the DaemonSet gives the agent from spec.nodeName (downward API). The
 * hostname is only the last resort, for one machine without Kubernetes: a
 * node's hostname and its Kubernetes name differ on cloud nodes and under
 * kubelet's --hostname-override. */
#define RN_NODE_NAME_ENV "RDMANET_NODE_NAME"

enum rn_node_source { RN_NODE_HOSTNAME, RN_NODE_ENV, RN_NODE_CONFIG };

struct rn_config {
	char node[256];
	enum rn_node_source node_source;	/* where node came from */
	struct rn_master_config *masters;
	int n_masters;
	enum rn_policy default_policy;	/* for auto-discovered masters */
	/* "deployment": "cluster": the same config reaches several nodes (a
	 * DaemonSet's ConfigMap), so pools a node would allocate from on its
	 * own must not share a range with another node (ipam/cluster_check.h);
	 * "node" (default): one node, e.g. make demo. */
	bool cluster;
	struct rn_qos_config qos;
	struct {
		char dir[PATH_MAX];
		int interval_s;		/* 0: no periodic export */
	} textfile;
	struct {
		char pin_dir[PATH_MAX];
		unsigned int max_pods;
	} bpf;
	/* What the CNI plugin takes from the node and never from a network
	 * config, which tenants write: where its records live and which
	 * DSCP classes a network may ask for (bit n: DSCP n; default only
	 * qos.roce_dscp). */
	struct {
		char state_dir[PATH_MAX];
		uint64_t allowed_dscp;
	} cni;
	/* Sections owned by modules above this core (rn_config_sections),
	 * kept as parsed JSON. These five have a field each; a section added
	 * since reads its JSON with rn_config_section(). */
	json_t *ipam;
	json_t *pools;
	json_t *rdma;
	json_t *device_plugin;	/* devplugin/devplugin.h */
	json_t *sriov;		/* sriov/sriov.h */
	json_t *root;
};

/* A top-level key of the config file that a module owns. The core knows
 * no module: it types each section's JSON (an error names the key), keeps
 * it, and after its own keys are parsed calls each check in table order;
 * a check reads its section and may read the core's keys (qos, masters).
 * The table is composed above every module, in node/config_sections.c:
 * a new section is a line there, not a change here. */
struct rn_config_section {
	const char *key;	/* NULL: a check of other sections only */
	json_type type;		/* JSON_OBJECT or JSON_ARRAY */
	size_t field;		/* offsetof() a json_t * in rn_config, or 0 */
	int (*check)(const struct rn_config *c, struct rn_error *e);	/* or NULL */
};

/* The node's sections, ended by an all-zero entry (node/config_sections.c). */
extern const struct rn_config_section rn_config_sections[];

/* A section's JSON (NULL when the file has none), for checks and users. */
json_t *rn_config_section(const struct rn_config *c, const char *key);

extern const char *const rn_policy_names[3];
extern const char *const rn_ecn_names[3];
extern const char *const rn_xdp_mode_names[4];
extern const char *const rn_tc_mode_names[3];
extern const char *const rn_deployment_names[2];	/* "node", "cluster" */

void rn_config_defaults(struct rn_config *c);
/* Parses a file; on error fills e with "FILE: what is wrong" and leaves c
 * holding defaults. */
int rn_config_load(struct rn_config *c, const char *path, struct rn_error *e);
int rn_config_parse(struct rn_config *c, const char *text, struct rn_error *e);
int rn_config_from_json(struct rn_config *c, json_t *root, struct rn_error *e);
void rn_config_free(struct rn_config *c);

/* "26, 34": the DSCP classes in a cni.allowed_dscp mask, for messages. */
const char *rn_dscp_set_format(uint64_t mask, char *buf, size_t size);

const struct rn_master_config *rn_config_master(const struct rn_config *c, const char *ifname);

#endif

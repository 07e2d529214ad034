/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The kubelet device plugin: RDMA HCAs advertised as shared resources
 * (what Mellanox's k8s-rdma-shared-dev-plugin does, from its config.json
 * unchanged), served over the kubelet device-plugin API v1beta1 (gRPC on
 * unix sockets) from a thread of rdmanetd. This header is the module's
 * whole interface: config, resource views, Allocate answers, the server.
 *
 * The config's "device_plugin" section:
 *   "device_plugin": { "kubelet_dir": "/var/lib/kubelet",
 *                      "cdi": false, "cdi_dir": "/var/run/cdi",
 *                      "periodicUpdateInterval": 60,
 *                      "configList": [ { "resourcePrefix": "rdma",
 *                                        "resourceName": "hca_shared_devices",
 *                                        "rdmaHcaMax": 1000,
 *                                        "selectors": { "ifNames": ["ens6f0np0"] } } ] }
 * or "device_plugin": { "configFile": "/k8s-rdma-shared-dev-plugin/config.json" }
 * (the shared plugin's file, used unchanged; kubelet_dir/cdi may sit next
 * to configFile). Legacy "devices": [ifnames] is an ifNames selector.
 *
 * SR-IOV VFs: every distinct "<resourcePrefix>/<resourceName>" of the
 * node config's "sriov" section is one more resource (rn_dp_config_build),
 * served with or without a device_plugin section (without one, every key
 * above has its default): one device per VF, its PCI address the ID,
 * Allocate giving the VF's RDMA nodes and PCIDEVICE_<RESOURCE>. */
#ifndef RDMANET_DEVPLUGIN_H
#define RDMANET_DEVPLUGIN_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "config.h"
#include "error.h"
#include "rdma/rdma.h"
#include "sriov/sriov.h"

#define RN_DP_DEFAULT_KUBELET_DIR "/var/lib/kubelet"
#define RN_DP_DEFAULT_CDI_DIR "/var/run/cdi"
#define RN_DP_DEFAULT_PREFIX "rdma"
#define RN_DP_DEFAULT_HCA_MAX 1000
#define RN_DP_MAX_RESOURCES 64
#define RN_DP_MAX_HCAS 64		/* per resource: a unit's HCAs are a bit mask */
#define RN_DP_API_VERSION "v1beta1"
#define RN_DP_NAME_LEN 64		/* resourceName; kubelet: a DNS-1123 label part */
#define RN_DP_PREFIX_LEN 254		/* resourcePrefix: a DNS subdomain */
#define RN_DP_KUBELET_MSG_MAX (4u << 20)	/* kubelet's gRPC client: max message received */

/* Where a resource's kubelet devices come from. Shared: rdmaHcaMax units,
 * each standing for every selected HCA (a container gets them all).
 * SR-IOV (rn_dp_provider_sriov): one unit per VF, with its own health. */
struct rn_dp_view;
struct rn_dp_resource_config;
typedef int (*rn_dp_provider_fn)(const struct rn_dp_resource_config *rc,
				 const struct rn_rdma_model *m, struct rn_dp_view *v,
				 struct rn_error *e);

struct rn_dp_resource_config {
	char prefix[RN_DP_PREFIX_LEN];
	char name[RN_DP_NAME_LEN];
	long long hca_max;		/* rdmaHcaMax: the units advertised */
	struct rn_rdma_selectors selectors;
	bool from_devices;		/* legacy "devices" gave the ifNames */
	/* "healthyWhen" (rdmanet's own key): a shared unit is Healthy while
	 * any of its HCAs is ("anyHca", the default: one down port of a
	 * multi-HCA resource leaves the rest usable), or only while every one
	 * is ("everyHca": jobs that need every rail) */
	bool healthy_every;
	rn_dp_provider_fn provider;	/* NULL: shared (rn_dp_provider_shared) */
	/* SR-IOV resources: the "sriov" section (owned by the rn_dp_config
	 * this came from) whose entries with this prefix/name give the VFs */
	const struct rn_sriov_config *sriov;
};

struct rn_dp_config {
	char kubelet_dir[PATH_MAX];
	bool cdi;
	char cdi_dir[PATH_MAX];
	int periodic_s;			/* periodicUpdateInterval; 0: events only */
	char config_file[PATH_MAX];	/* "" : the keys were inline */
	struct rn_dp_resource_config res[RN_DP_MAX_RESOURCES];
	int n_res;			/* configList's, then the VF resources */
	struct rn_sriov_config sriov;	/* rn_dp_config_build only; rn_dp_config_free */
};

/* Parses the section (NULL: no device plugin, n_res 0). Errors name the
 * key: "config: device_plugin.configList[1].selectors.vendorz: unknown key". */
int rn_dp_config_parse(json_t *section, struct rn_dp_config *out, struct rn_error *e);
/* Every resource of the node: device_plugin's configList, then one per
 * distinct prefix/resourceName of c->sriov (refused when kubelet would
 * refuse the name or a configList resource has it). Free with
 * rn_dp_config_free. */
int rn_dp_config_build(const struct rn_config *c, struct rn_dp_config *out, struct rn_error *e);
void rn_dp_config_free(struct rn_dp_config *dc);
/* The files a config's text names as inputs of its device plugin section
 * (configFile), into paths[0..max); how many. Text that is not JSON names
 * none. The agent watches them as it watches the config itself. */
int rn_dp_config_files(const char *text, char (*paths)[PATH_MAX], int max);
/* Whether a and b give kubelet the same resources (every key of the
 * device_plugin section, configFile's included; the VF resources' "sriov"
 * entries are the caller's to compare). */
bool rn_dp_config_same(const struct rn_dp_config *a, const struct rn_dp_config *b);
/* Whether rdmanetd serves a device plugin: a device_plugin section, or a
 * "sriov" entry with a resourceName. */
bool rn_dp_wanted(const struct rn_config *c);
/* For rn_config_*: validates c->device_plugin and the VF resource names. */
int rn_dp_config_check(const struct rn_config *c, struct rn_error *e);
/* For rdmanetd --check-config: whether every resource of c can be served
 * (rn_dp_config_servable); the agent serves the others without it. */
int rn_dp_check_servable(const struct rn_config *c, struct rn_error *e);
/* A resource's socket: "rdmanet-<prefix>-<name>.sock", under kubelet_dir's
 * device-plugins or (watcher) plugins_registry; the length, or
 * -ENAMETOOLONG when buf is too small. */
void rn_dp_socket_name(const struct rn_dp_resource_config *rc, char *buf, size_t size);
int rn_dp_socket_path(const struct rn_dp_config *dc, const struct rn_dp_resource_config *rc,
		      bool watcher, char *buf, size_t size);
/* Whether resource i can be served as configured: its socket path fits a
 * unix socket under either kubelet directory (and kubelet.sock does), and
 * no earlier resource has the same socket. A resource that cannot is not
 * served, the others are; rdmanetd --check-config fails on it
 * (rn_dp_config_servable: every resource, the first problem and how many). */
int rn_dp_resource_servable(const struct rn_dp_config *dc, int i, struct rn_error *e);
int rn_dp_config_servable(const struct rn_dp_config *dc, struct rn_error *e);
/* The full kubelet resource name "<prefix>/<name>" into buf. */
void rn_dp_resource_fullname(const struct rn_dp_resource_config *rc, char *buf, size_t size);
/* kubelet's own validation of an extended resource name (qualified name,
 * prefix a DNS subdomain, not kubernetes.io). */
int rn_dp_resource_name_check(const char *fullname, struct rn_error *e);

/* --- a resource as kubelet sees it ------------------------------------- */

struct rn_dp_hca {
	char name[RN_RDMA_NAME_LEN];	/* "mlx5_0" */
	char pci[RN_PCI_ADDR_LEN];	/* "" for soft devices */
	char netdev[RN_IFNAMSIZ];	/* the first port's */
	unsigned int port;		/* that port's number */
	int numa;			/* -1 unknown */
	bool healthy;
	char why[128];			/* unhealthy: "mlx5_1 port 1 DOWN" */
};

struct rn_dp_unit {
	char id[64];			/* kubelet device ID, < 64 characters */
	uint64_t hcas;			/* bit i: view->hcas[i] */
	const struct rn_dp_hca *vf;	/* SR-IOV: this unit's VF (in view->vfs), whose
					 * name is its RDMA device ("" none), pci the
					 * ID; hcas unused. NULL: shared */
};

struct rn_dp_view {
	char resource[RN_DP_PREFIX_LEN + RN_DP_NAME_LEN];	/* "rdma/hca_shared_devices" */
	struct rn_dp_hca hcas[RN_DP_MAX_HCAS];
	int n_hcas;
	struct rn_dp_unit *units;
	int n_units;
	bool refused;			/* nothing is served, refused_why says why */
	char refused_why[512];
	struct rn_dp_hca *vfs;		/* SR-IOV: one per VF (no 64 limit), units[i].vf */
	int n_vfs;
	bool vf_rdma;			/* isRdma: Allocate gives the VFs' RDMA nodes */
	bool healthy_every;		/* the resource's healthyWhen: "everyHca" */
};

/* The shared provider: selected HCAs, rdmaHcaMax units over all of them. */
int rn_dp_provider_shared(const struct rn_dp_resource_config *rc, const struct rn_rdma_model *m,
			  struct rn_dp_view *v, struct rn_error *e);
/* The SR-IOV provider: one unit per VF of the PFs whose "sriov" entry has
 * this prefix/resourceName, ID its PCI address, Healthy only while no hold
 * names it (even one whose pod netns is gone), an isRdma VF has its RDMA
 * device here with a non-zero node GUID, and the PF is up (rn_sriov_devices);
 * NUMA from the VF's PCI numa_node. In shared netns mode an isRdma resource
 * is refused: the CNI could not move the VF's RDMA device into a pod. */
int rn_dp_provider_sriov(const struct rn_dp_resource_config *rc, const struct rn_rdma_model *m,
			 struct rn_dp_view *v, struct rn_error *e);
/* Builds the view of one resource from the model: HCAs, their health and
 * NUMA nodes, units. In exclusive netns mode a shared resource is refused
 * (v->refused, no units): a pod's netns would not see the HCA. */
int rn_dp_view_build(const struct rn_dp_resource_config *rc, const struct rn_rdma_model *m,
		     struct rn_dp_view *v, struct rn_error *e);
void rn_dp_view_free(struct rn_dp_view *v);
/* A VF unit: its VF's health. A shared unit: any of its HCAs healthy, or
 * every one with healthyWhen "everyHca"; no HCA: unhealthy. */
bool rn_dp_unit_healthy(const struct rn_dp_view *v, const struct rn_dp_unit *u);
/* The bytes of v's ListAndWatch message; *fit: how many of its first
 * devices fit in RN_DP_KUBELET_MSG_MAX. */
size_t rn_dp_list_bytes(const struct rn_dp_view *v, int *fit);
/* How many of rdmaHcaMax = max shared devices fit in one message at best
 * (every one Healthy, no NUMA node): max, or fewer. */
long long rn_dp_shared_units_fit(long long max);
/* The NUMA nodes of a unit's HCAs as a bit mask (bit n: node n). */
uint64_t rn_dp_unit_numa(const struct rn_dp_view *v, const struct rn_dp_unit *u);
/* 1 if a and b would give kubelet different lists (IDs, health, NUMA). */
bool rn_dp_view_differs(const struct rn_dp_view *a, const struct rn_dp_view *b);

/* --- Allocate ------------------------------------------------------------ */

struct rn_dp_devspec {
	char host_path[64];
	char container_path[64];
	char permissions[4];		/* "rwm" */
};

struct rn_dp_alloc {
	struct rn_dp_devspec *specs;
	int n_specs;
	char env_name[160];		/* RDMANET_HCAS_<PREFIX>_<NAME>; VFs: PCIDEVICE_<..> */
	char env_value[1024];		/* "mlx5_0:1:ens1f0np0,mlx5_1:1:ens1f1np1";
					 * VFs: "0000:3b:00.2,0000:3b:00.3" */
	char cdi_names[RN_DP_MAX_HCAS][160];	/* "rdmanet.io/hca=mlx5_0" */
	int n_cdi;
};

/* One container's answer for the given device IDs: the uverbs, umad and
 * issm nodes of every HCA behind them (issm where present) and rdma_cm,
 * "rwm". Fails naming the ID or the node when an ID is unknown or a node
 * the HCA needs is missing under the dev root. VF IDs: the nodes of each
 * VF's RDMA device (isRdma resources only, as sriov-network-device-plugin
 * does) and PCIDEVICE_<RESOURCE>
 * with the PCI addresses; an unhealthy VF (held, PF down) is refused with
 * its reason: kubelet may have decided before the health changed. */
int rn_dp_allocate(const struct rn_dp_view *v, const struct rn_rdma_model *m,
		   const char *const *ids, int n_ids, struct rn_dp_alloc *out,
		   struct rn_error *e);
void rn_dp_alloc_free(struct rn_dp_alloc *a);
/* GetPreferredAllocation for one container: must_include first, then
 * healthy units on the NUMA nodes already chosen, then the rest. */
int rn_dp_preferred(const struct rn_dp_view *v, const char *const *avail, int n_avail,
		    const char *const *must, int n_must, int size, const char **out);

/* --- CDI ----------------------------------------------------------------- */

#define RN_CDI_KIND "rdmanet.io/hca"
/* Writes <cdi_dir>/rdmanet.io-hca.json: one CDI device per HCA of the
 * views, with its device nodes (and rdma_cm). Atomic (rename). No HCA:
 * the spec is removed (CDI refuses a spec without devices). */
/* The annotation key for runtimes older than the CRI CDI field:
 * "cdi.k8s.io/rdmanet_<prefix>_<name>", within CDI's 63 characters (a
 * longer one is cut and ends with a hash of the resource name): one per
 * resource, valid for every resource name kubelet takes. */
void rn_dp_cdi_annotation_key(const struct rn_dp_resource_config *rc, char *buf, size_t size);
int rn_dp_cdi_write(const char *cdi_dir, const struct rn_dp_view *views, int n_views,
		    const struct rn_rdma_model *m, struct rn_error *e);
/* Shared with the DRA driver's per-claim specs: the deviceNodes ("rwm") of
 * RDMA device rdma_dev: its uverbs node and the umad/issm nodes of port (0:
 * every port) that exist under the dev root, and rdma_cm; and the atomic
 * write of a spec to path (its directory made, a temporary file renamed). */
json_t *rn_cdi_rdma_nodes(const struct rn_rdma_model *m, const char *rdma_dev, unsigned int port);
int rn_cdi_spec_write(const char *path, json_t *spec, struct rn_error *e);

/* --- the server ---------------------------------------------------------- */

struct rn_dp_server;

/* Starts the device plugin thread for c (a copy is kept). Returns NULL
 * with e set when the config has no device_plugin resources or the thread
 * cannot start; the agent goes on either way. */
struct rn_dp_server *rn_dp_start(const struct rn_config *c, struct rn_error *e);
/* Whether what s serves is not what c says (its configFile edited, say):
 * the server must be started again from c. */
bool rn_dp_server_stale(const struct rn_dp_server *s, const struct rn_config *c);
/* Stops serving and joins the thread; sockets are removed. */
void rn_dp_stop(struct rn_dp_server *s);

/* For the agent's health file (any thread): how long ago the server thread
 * made its last pass (ms, -1 before the first; a stuck thread stops them)
 * and its resources: how many
 * are configured, cannot be served (a config problem, logged), are served
 * on their socket and registered with kubelet. */
struct rn_dp_health {
	long long beat_age_ms;
	int resources, unservable, served, registered;
};
void rn_dp_health(struct rn_dp_server *s, struct rn_dp_health *h);

/* The views rdmanetctl shows: the resources of c over a model just read. */
int rn_dp_views(const struct rn_config *c, const struct rn_rdma_model *m,
		struct rn_dp_view **out, int *n_out, struct rn_error *e);

#endif

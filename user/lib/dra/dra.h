/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* rdmanetd as a Kubernetes DRA (Dynamic Resource Allocation) driver: the
 * kubelet side. kubelet finds the driver through its plugin watcher (a
 * Registration socket under plugins_registry, type "DRAPlugin", services
 * "v1.DRAPlugin" then "v1beta1.DRAPlugin") and calls the DRAPlugin service
 * (both versions) on the driver's own socket: NodePrepareResources for
 * the claims of a pod about to start, NodeUnprepareResources when it is
 * gone. Preparing a claim writes a CDI spec with the RDMA character
 * devices of what the scheduler allocated (an HCA port, shared; an SR-IOV
 * VF, exclusive: held as the CNI's exclusive mode holds it) and variables
 * naming them, and answers with the CDI device IDs. What is prepared is
 * kept in a file, so both calls are idempotent and survive restarts.
 *
 * Which devices a claim got is in the ResourceClaim's
 * status.allocation.devices.results; kubelet's request names the claim
 * only. A claim source reads claims: the API server (GET of the
 * resource.k8s.io/v1 ResourceClaim, claim_source_api.c), or, when
 * "claims_dir" is given, a directory of ResourceClaim JSON objects (the
 * tests' scheduler stand-in, out-of-cluster experiments).
 * This node's devices (rn_dra_devices) are published as ResourceSlices
 * by a thread of their own (dra/slices.h): at start, within about a
 * second of a change, at once when kubelet registers the driver again (a
 * starting kubelet deletes the node's slices), and every resync_s.
 *
 * The config's "dra" section (every key optional):
 *   "dra": { "enabled": true, "driver": "rdma.rdmanet.io",
 *            "kubelet_dir": "/var/lib/kubelet",
 *            "plugin_dir": "<kubelet_dir>/plugins/<driver>",
 *            "registry_dir": "<kubelet_dir>/plugins_registry",
 *            "claims_dir": "<absent: claims from the API server>",
 *            "kubeconfig": "<absent: $KUBECONFIG, else in-cluster>",
 *            "state_dir": "/var/lib/rdmanet/dra",
 *            "cdi_dir": "/var/run/cdi", "pool": "<node name>",
 *            "slices": { "publish": <in a cluster, or a kubeconfig given>,
 *                        "kubeconfig": "<absent: dra.kubeconfig>",
 *                        "shared_pods": 1000, "resync_s": 60 } } */
#ifndef RDMANET_DRA_H
#define RDMANET_DRA_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "config.h"
#include "error.h"
#include "rdma/rdma.h"

#define RN_DRA_DEFAULT_DRIVER "rdma.rdmanet.io"
#define RN_DRA_DEFAULT_KUBELET_DIR "/var/lib/kubelet"
#define RN_DRA_DEFAULT_STATE_DIR "/var/lib/rdmanet/dra"
#define RN_DRA_DEFAULT_CDI_DIR "/var/run/cdi"
#define RN_DRA_CDI_KIND "rdmanet.io/claim"
#define RN_DRA_NAME_LEN 64		/* a DNS label (63) or more: a device, pool, request */
#define RN_DRA_DRIVER_LEN 64		/* resource.k8s.io: a driver name is at most 63 */
#define RN_DRA_UID_LEN 64
#define RN_DRA_MAX_RESULTS 32		/* resource.k8s.io/v1 AllocationResultsMaxSize */
#define RN_DRA_RESERVED_MAX 256		/* resource.k8s.io/v1 ResourceClaimReservedForMaxSize */
#define RN_DRA_MAX_PODS 32		/* pods recorded per claim (the first of reservedFor) */
/* kubelet's service names, in the order it should prefer them */
#define RN_DRA_SERVICE_V1 "v1.DRAPlugin"
#define RN_DRA_SERVICE_V1BETA1 "v1beta1.DRAPlugin"

#define RN_DRA_DEFAULT_SHARED_PODS 1000	/* the shared device plugin's usual rdmaHcaMax */
#define RN_DRA_DEFAULT_RESYNC_S 60

/* --- config -------------------------------------------------------------- */

struct rn_dra_slices_config {
	bool publish;
	char kubeconfig[PATH_MAX];	/* dra.kubeconfig if not given; "": $KUBECONFIG, else in-cluster */
	unsigned int shared_pods;	/* an HCA port's "pods" capacity */
	unsigned int resync_s;
};

struct rn_dra_config {
	bool enabled;
	char driver[RN_DRA_DRIVER_LEN];
	char pool[RN_DRA_NAME_LEN * 4];	/* default: the node name, else the host name */
	char node[RN_DRA_NAME_LEN * 4];	/* the slices' spec.nodeName: the node name */
	struct rn_dra_slices_config slices;
	char plugin_dir[PATH_MAX];	/* the DRAPlugin socket's directory */
	char registry_dir[PATH_MAX];	/* kubelet's plugins_registry */
	char claims_dir[PATH_MAX];	/* the directory claim source; "": the API server */
	/* the API server's for claims and (unless slices.kubeconfig) slices;
	 * "": $KUBECONFIG, else in-cluster */
	char kubeconfig[PATH_MAX];
	char state_dir[PATH_MAX];	/* prepared.json */
	char cdi_dir[PATH_MAX];
	char hold_dir[PATH_MAX];	/* the VF holds' state dir (cni.state_dir) */
	struct rn_rdma_roots roots;
};

/* Parses c's "dra" section (absent: not enabled) into out. Errors name the
 * key: "config: dra.driver: ...". */
int rn_dra_config_parse(const struct rn_config *c, struct rn_dra_config *out,
			struct rn_error *e);
/* For rn_config_*: the "dra" section is valid (c's own, or section before
 * c holds its JSON). */
int rn_dra_config_check(const struct rn_config *c, struct rn_error *e);
int rn_dra_config_check_section(json_t *section, const struct rn_config *c, struct rn_error *e);
/* The Registration socket ("<registry_dir>/<driver>-reg.sock") and the
 * DRAPlugin socket ("<plugin_dir>/dra.sock"); either buffer may be NULL. */
void rn_dra_socket_paths(const struct rn_dra_config *cfg, char *reg, size_t reg_size,
			 char *plugin, size_t plugin_size);
/* Whether the agent serves the DRA driver (a "dra" section, enabled). */
bool rn_dra_wanted(const struct rn_config *c);
/* Whether a and b give the DRA driver the same settings (its section and
 * what it takes from the rest: node name, cni.state_dir, the sysfs root):
 * if not, a config reload restarts it. */
bool rn_dra_config_same(const struct rn_config *a, const struct rn_config *b);
/* resource.k8s.io's rule for a driver name: a DNS subdomain of at most 63
 * characters, lowercase. */
int rn_dra_driver_name_check(const char *name, struct rn_error *e);

/* --- this node's devices ------------------------------------------------- */

enum rn_dra_kind { RN_DRA_HCA_PORT, RN_DRA_VF };

struct rn_dra_device {
	char name[RN_DRA_NAME_LEN];	/* rn_dra_device_name */
	enum rn_dra_kind kind;
	char rdma_dev[RN_RDMA_NAME_LEN];	/* VF: "" when its RDMA device is not here */
	unsigned int port;
	char netdev[RN_IFNAMSIZ];
	char pci[RN_PCI_ADDR_LEN];	/* the HCA's or the VF's; "" soft devices */
	char pf_pci[RN_PCI_ADDR_LEN];	/* VF: its PF */
	char pf_netdev[RN_IFNAMSIZ];	/* VF: the PF's netdev */
	int vf_index;			/* VF: N of the PF's virtfnN */
	int gid_index;			/* the port's RoCE v2 GID (IPv4 first); -1 none */
};

/* The device's name in ResourceSlices and allocation results, a DNS label
 * (<= 63 characters, [a-z0-9-], alphanumeric at both ends): an HCA port
 * "<rdma device>-port<N>" ("mlx5_0" port 1: "mlx5-0-port1"), a VF
 * "vf-<pci address>" ("vf-0000-3b-00-2"). One function for the prepare
 * side and the slice publisher, so both always agree. */
void rn_dra_device_name(const struct rn_dra_device *d, char *buf, size_t size);
/* Every device of the node: one per port of each RDMA device that is not
 * a VF (shared), one per VF of each PF (exclusive), sorted by name. */
int rn_dra_devices(const struct rn_rdma_model *m, struct rn_dra_device **out, int *n,
		   struct rn_error *e);

/* --- claims -------------------------------------------------------------- */

struct rn_dra_result {
	char request[RN_DRA_NAME_LEN * 2];	/* "nic", or "<request>/<subrequest>" */
	char driver[RN_DRA_DRIVER_LEN];
	char pool[RN_DRA_NAME_LEN * 4];
	char device[RN_DRA_NAME_LEN];
};

/* rdmanet's opaque device configuration (dra/claim_config.c): the
 * parameters of a DeviceClass's or a claim's config.opaque for this
 * driver, an object of
 *   { "apiVersion": "rdma.rdmanet.io/v1alpha1", "kind": "NetworkConfig",
 *     "mode": "macvlan" | "ipvlan",      an HCA port's child link
 *     "ipvlanMode": "l2" | "l3" | "l3s",
 *     "ippools": { "ipv4": [...], "ipv6": [...] },   replace the network's
 *     "dscp": 0..63 }                    one of the node's cni.allowed_dscp
 * every key but apiVersion and kind optional, the CNI netconf's names. */
#define RN_DRA_PARAMS_API_VERSION "rdma.rdmanet.io/v1alpha1"
#define RN_DRA_PARAMS_KIND "NetworkConfig"
#define RN_DRA_MAX_CONFIGS 64		/* resource.k8s.io/v1: 2 * DeviceConfigMaxSize */
#define RN_DRA_MAX_POOLS 4		/* pools per family a config may name */
#define RN_DRA_POOL_LEN 64		/* a pool name and its NUL (RN_POOL_NAME_MAX) */

struct rn_dra_netconfig {
	char mode[8];			/* "": not set; "macvlan", "ipvlan" */
	char ipvlan_mode[4];		/* "": not set; "l2", "l3", "l3s" */
	bool has_pools;			/* "ippools" given: the lists replace the network's */
	char ipv4_pools[RN_DRA_MAX_POOLS][RN_DRA_POOL_LEN];
	char ipv6_pools[RN_DRA_MAX_POOLS][RN_DRA_POOL_LEN];
	int n_ipv4_pools, n_ipv6_pools;
	bool has_dscp;
	int dscp;
};

/* One entry of status.allocation.devices.config, any driver's. */
struct rn_dra_claim_config {
	bool from_class;		/* source FromClass (else FromClaim) */
	char driver[RN_DRA_DRIVER_LEN];	/* opaque.driver */
	unsigned int results;		/* bit i: applies to results[i] */
	struct rn_dra_netconfig params;	/* when error is "" */
	/* the parameters are not rdmanet's NetworkConfig: an error only if
	 * driver is this one (another driver's parameters are its own) */
	char error[256];
};

struct rn_dra_claim {
	char namespace_[RN_DRA_NAME_LEN];
	char name[256];
	char uid[RN_DRA_UID_LEN];
	bool allocated;			/* status.allocation present */
	struct rn_dra_result results[RN_DRA_MAX_RESULTS];	/* every driver's */
	int n_results;
	/* status.reservedFor's pods (resource "pods" of the core group), by
	 * UID: the pods the claim is for, which the CNI matches on */
	char pods[RN_DRA_MAX_PODS][RN_DRA_UID_LEN];
	int n_pods;
	/* status.allocation.devices.config, in its order */
	struct rn_dra_claim_config configs[RN_DRA_MAX_CONFIGS];
	int n_configs;
};

/* Where the driver reads a claim (namespace/name) from: the API server in
 * the real driver, a directory in the tests. get fills out, or fails with
 * -ENOENT (no such claim) or another error naming what is wrong. */
struct rn_dra_claim_source {
	int (*get)(struct rn_dra_claim_source *src, const char *ns, const char *name,
		   struct rn_dra_claim *out, struct rn_error *e);
	void (*destroy)(struct rn_dra_claim_source *src);
	char dir[PATH_MAX];		/* the directory source's */
};
/* Claims as <dir>/<namespace>/<name>.json, ResourceClaim objects. */
struct rn_dra_claim_source *rn_dra_claim_source_dir(const char *dir, struct rn_error *e);
/* Claims from the API server, through a client of kubeconfig ("" or NULL:
 * $KUBECONFIG, else in-cluster) opened at the first claim. Errors name the
 * claim: -ENOENT not found there, -EACCES not allowed ("get" on
 * resourceclaims), -EAGAIN and connection errors when the server cannot
 * answer now. Safe to call from several threads. */
struct rn_dra_claim_source *rn_dra_claim_source_api(const char *kubeconfig, struct rn_error *e);
/* A ResourceClaim's JSON (resource.k8s.io/v1) into out. */
int rn_dra_claim_from_json(json_t *o, struct rn_dra_claim *out, struct rn_error *e);
/* The effective configuration of c's results[result] for driver: the
 * driver's config entries that apply to it merged, class entries first,
 * then claim entries, each in list order, a later key overriding an
 * earlier one. Fails, naming the entry, on an entry of driver whose
 * parameters are not a valid NetworkConfig. */
int rn_dra_claim_config(const struct rn_dra_claim *c, int result, const char *driver,
			struct rn_dra_netconfig *out, struct rn_error *e);

/* --- prepare / unprepare ------------------------------------------------- */

struct rn_dra_prepared_device {
	char request[RN_DRA_NAME_LEN * 2];
	char pool[RN_DRA_NAME_LEN * 4];
	char device[RN_DRA_NAME_LEN];
	char cdi_id[256];		/* "rdmanet.io/claim=<uid>-<device>" */
	/* the device when prepared, for the CNI (which reads no RDMA model);
	 * known false in a record of an older agent */
	bool known;
	enum rn_dra_kind kind;
	char pci[RN_PCI_ADDR_LEN];	/* a VF's */
	char netdev[RN_IFNAMSIZ];	/* an HCA port's */
	/* the claim's effective opaque configuration for it (none set in a
	 * record of an older agent) */
	struct rn_dra_netconfig config;
};

struct rn_dra_prepared {
	char uid[RN_DRA_UID_LEN];
	char namespace_[RN_DRA_NAME_LEN];
	char name[256];
	struct rn_dra_prepared_device devices[RN_DRA_MAX_RESULTS];
	int n_devices;
	char vfs[RN_DRA_MAX_RESULTS][RN_PCI_ADDR_LEN];	/* held for this claim */
	int n_vfs;
	/* the pods it is reserved for (rn_dra_claim.pods) when prepared, or
	 * prepared again; none in a record of an older agent */
	char pods[RN_DRA_MAX_PODS][RN_DRA_UID_LEN];
	int n_pods;
};

struct rn_dra_driver;

/* The driver's state: cfg's state file read (a missing one is empty), the
 * claim source src (owned from here). */
struct rn_dra_driver *rn_dra_driver_open(const struct rn_dra_config *cfg,
					 struct rn_dra_claim_source *src, struct rn_error *e);
void rn_dra_driver_close(struct rn_dra_driver *d);
/* Prepares claim ns/name/uid (idempotent: one already prepared answers
 * what was recorded). Refused with a message naming the claim when the
 * source has no such claim, a claim of another UID (deleted and created
 * again), one not allocated or with nothing of this driver, a device this
 * node does not have, a VF another pod holds. Nothing is left behind by a
 * refusal. */
int rn_dra_prepare(struct rn_dra_driver *d, const char *ns, const char *name, const char *uid,
		   struct rn_dra_prepared *out, struct rn_error *e);
/* Undoes rn_dra_prepare for uid: its CDI spec removed, its VF holds
 * released, the record dropped. A claim not prepared (or unprepared
 * already) is done: 0. */
int rn_dra_unprepare(struct rn_dra_driver *d, const char *uid, struct rn_error *e);
/* How many claims are prepared. */
int rn_dra_prepared_count(const struct rn_dra_driver *d);

/* --- the CNI's side ------------------------------------------------------ */

/* What a pod got through a prepared claim: for the CNI, which attaches the
 * pod from it (a VF: exclusive mode with it; an HCA port: a child link on
 * its netdev). */
struct rn_dra_pod_device {
	char claim_uid[RN_DRA_UID_LEN];
	char claim_namespace[RN_DRA_NAME_LEN];
	char claim_name[256];
	struct rn_dra_prepared_device dev;	/* as prepared */
};
/* Reads cfg's state file (read only, no lock: it is replaced whole) and
 * finds the claim prepared for pod_uid (listed in its reservedFor) with a
 * device for request. -ENOENT when no prepared claim is reserved for the
 * pod, or none of them has request (the message lists the requests they
 * have), -EEXIST when two prepared claims of the pod both have the
 * request, -ESTALE when the record does not say what the device is (an
 * older agent's); e says which. */
int rn_dra_pod_device(const struct rn_dra_config *cfg, const char *pod_uid, const char *request,
		      struct rn_dra_pod_device *out, struct rn_error *e);

/* --- the pods' network data (KEP-4817) ----------------------------------- */

/* What the CNI attached to a pod from a claim's device, for the agent to
 * write into the claim's status.devices[].networkData (claim_status.c):
 * kept as one file per attachment under <state_dir>/networks/ (the CNI
 * writes it when its ADD succeeds, removes it on DEL, GC and rollback). */
#define RN_DRA_NET_MAX_IPS 16		/* resource.k8s.io/v1 NetworkDeviceDataMaxIPs */
struct rn_dra_attachment {
	char network[128];		/* the CNI network's name */
	char container_id[128];
	char ifname[RN_IFNAMSIZ];	/* the pod-side interface */
	char pod_uid[RN_DRA_UID_LEN];
	char claim_namespace[RN_DRA_NAME_LEN];
	char claim_name[256];
	char claim_uid[RN_DRA_UID_LEN];
	char driver[RN_DRA_DRIVER_LEN];
	char pool[RN_DRA_NAME_LEN * 4];
	char device[RN_DRA_NAME_LEN];
	char ips[RN_DRA_NET_MAX_IPS][50];	/* "address/prefix" (the interface's) */
	int n_ips;
	char mac[18];			/* "aa:bb:cc:dd:ee:ff" */
	long long attached_ns;		/* CLOCK_REALTIME of the ADD: orders a shared device's pods */
};
/* Written whole (a temporary file renamed). -EINVAL when a name part
 * cannot be a file name. */
int rn_dra_attachment_write(const char *state_dir, const struct rn_dra_attachment *a,
			    struct rn_error *e);
/* Idempotent. */
int rn_dra_attachment_remove(const char *state_dir, const char *network,
			     const char *container_id, const char *ifname, struct rn_error *e);
/* One record's JSON; -EINVAL with e naming the field. */
int rn_dra_attachment_parse(const char *text, size_t len, struct rn_dra_attachment *out,
			    struct rn_error *e);
/* Every record under state_dir (malloc'd array; none: NULL, 0). A file
 * that is not a record is skipped; writers' temporary files a kill left
 * are removed once a minute old. */
int rn_dra_attachment_list(const char *state_dir, struct rn_dra_attachment **out, int *n,
			   struct rn_error *e);

/* --- the server ---------------------------------------------------------- */

struct rn_dra_server;

/* Starts the DRA thread (a copy of c is parsed): the Registration socket
 * in the registry dir and the DRAPlugin socket in the plugin dir, served
 * again when deleted (kubelet removes stale sockets when it starts). NULL
 * with e set when not configured or it cannot start; the agent goes on. */
struct rn_dra_server *rn_dra_start(const struct rn_config *c, struct rn_error *e);
/* Stops serving and joins the thread; sockets are removed, what is
 * prepared stays prepared. */
void rn_dra_stop(struct rn_dra_server *s);

/* --- health and metrics --------------------------------------------------- */

#define RN_DRA_ERROR_LEN 160		/* a failure's message, cut short */

/* The ResourceSlice publisher's state. */
struct rn_dra_slices_health {
	bool enabled;			/* a publisher runs */
	int slices, devices;		/* in its last successful publication */
	unsigned long long publishes, failures;	/* since the agent started */
	long long since_ok_s;		/* since the last success; -1 none yet */
	char last_error[RN_DRA_ERROR_LEN];	/* the last attempt's; "" it succeeded */
};

/* For the agent's health file and textfile (any thread; what the driver's
 * threads publish with atomics, the publisher's error under its lock). */
struct rn_dra_health {
	char driver[RN_DRA_DRIVER_LEN];
	/* kubelet said so (NotifyRegistrationStatus true) and has not since
	 * deleted the Registration socket (a kubelet that restarts does) */
	bool registered;
	int prepared;			/* claims prepared now */
	long long beat_age_ms;		/* the gRPC thread's last pass; -1 before it */
	/* claims answered since the agent started (a driver restarted by a
	 * config reload goes on counting) */
	unsigned long long prepares_ok, prepares_failed, unprepares_ok, unprepares_failed;
	struct rn_dra_slices_health slices;
};
void rn_dra_health(struct rn_dra_server *s, struct rn_dra_health *h);

/* The textfile's DRA families (rdmanet_dra_*), for the driver this process
 * runs (rn_dra_start; agent only): nothing when it runs none. */
void rn_metrics_dra(FILE *f);

#endif

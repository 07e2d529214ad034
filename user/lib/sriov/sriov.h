/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* SR-IOV: the whole interface of user/lib/sriov/.
 *
 *  discovery    every SR-IOV capable PCI function under the sysfs root (a
 *               PF: sriov_totalvfs exists) with its VFs (virtfnN): the VF's
 *               PCI address, driver, netdev and RDMA device as this netns
 *               sees them, the RDMA device's node GUID; on the live host
 *               also the PF's VF admin settings from rtnetlink
 *               (IFLA_VFINFO_LIST: MAC, VLAN/QoS/proto, spoofchk, trust,
 *               link state, rates, IB node/port GUIDs).
 *  config       the node config's "sriov" array:
 *                 [ { "pf": "ens1f0np0" | "selectors": { "vendors": ["15b3"],
 *                     "deviceIDs": ["1017"], "rootDevices": ["0000:3b:00.0"],
 *                     "pfNames": ["ens1f0np0"] },
 *                     "numVfs": 12, "isRdma": true, "mtu": 9000,
 *                     "resourceName": "mellanoxroce", "resourcePrefix": "rdma" } ]
 *  provisioning sriov_numvfs set only when it differs (0 first, as the
 *               kernel requires), never above sriov_totalvfs, never on a PF
 *               no entry selects; then the VF netdevs (and RDMA devices with
 *               isRdma) are waited for, the VF MTU set, and every RDMA VF
 *               whose node GUID is zero is fixed: Ethernet ports get an
 *               admin MAC through the PF and a driver rebind (mlx5 derives
 *               the GUID from the MAC), InfiniBand ports node/port GUIDs
 *               (from the PF's port GUID) through the PF and a rebind;
 *               either is read back. Every action is reported.
 *  holds        a VF taken by a pod: one file per VF PCI address under
 *               <state_dir>/sriov/, flock'd while a CNI works on the VF (the
 *               per-VF lock), holding the pod's identity and the VF's
 *               original state so DEL, GC and the agent's leak sweep can
 *               restore it.
 *  VF settings  read/apply/restore a VF's admin settings through the PF
 *               (rtnetlink), and move a VF's RDMA device between network
 *               namespaces (RDMA_NLDEV_CMD_SET + RDMA_NLDEV_NET_NS_FD).
 *  health       the device plugin's view: one device per VF PCI address of
 *               a resourceName, Healthy while it can serve (PF up, GUID
 *               non-zero), in use or not.
 *
 * Everything takes the sysfs root (struct rn_rdma_roots) so fixture trees
 * stand in for a host; rtnetlink and RDMA netlink go through a table of
 * operations (struct rn_sriov_ops, NULL: the live kernel) so tests can
 * record what would be sent. */
#ifndef RDMANET_SRIOV_H
#define RDMANET_SRIOV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <jansson.h>
#include <rdmanet/master.h>
#include <rdmanet/pod.h>

#include "config.h"
#include "error.h"
#include "rdma/rdma.h"

#define RN_SRIOV_MAX_PFS 64
#define RN_SRIOV_MAX_SEL 32
#define RN_SRIOV_RESOURCE_LEN 64
#define RN_SRIOV_PREFIX_LEN 254
/* The kubelet resource is "<resourcePrefix>/<resourceName>"; the prefix
 * defaults to the shared device plugin's ("rdma"), so one node's RDMA
 * resources share a prefix (sriov-network-device-plugin's "intel.com" is
 * one "resourcePrefix" away). */
#define RN_SRIOV_DEFAULT_PREFIX "rdma"
/* The CNI's default stateDir: VF holds live in its sriov/ subdirectory.
 * Where a caller passes no state dir, $RDMANET_CNI_STATE_DIR, else this. */
#define RN_SRIOV_DEFAULT_STATE_DIR "/var/lib/rdmanet/cni"
#define RN_SRIOV_STATE_DIR_ENV "RDMANET_CNI_STATE_DIR"

/* ---- VF admin settings (what `ip link show PF` prints per VF) ---------- */

#define RN_VF_LINK_AUTO 0
#define RN_VF_LINK_ENABLE 1
#define RN_VF_LINK_DISABLE 2

struct rn_vf_admin {
	bool valid;			/* read from the PF's IFLA_VFINFO_LIST */
	uint8_t mac[6];
	unsigned int vlan;		/* 0: none */
	unsigned int qos;
	uint16_t vlan_proto;		/* ETH_P_8021Q / ETH_P_8021AD (host order) */
	int spoofchk;			/* 0/1; -1 unknown */
	int trust;			/* 0/1; -1 unknown */
	int link_state;			/* RN_VF_LINK_*; -1 unknown */
	unsigned int min_tx_rate;	/* Mbps; 0: none */
	unsigned int max_tx_rate;
	uint64_t node_guid;		/* IB VF GUIDs where the driver reports them */
	uint64_t port_guid;
};

/* What a CNI asks for a VF: each field only when its has_ flag is set. */
struct rn_vf_settings {
	bool has_mac, has_vlan, has_spoofchk, has_trust, has_link_state, has_rate;
	uint8_t mac[6];
	unsigned int vlan, qos;
	uint16_t vlan_proto;		/* 0: 802.1Q */
	int spoofchk, trust, link_state;
	unsigned int min_tx_rate, max_tx_rate;
};

/* ---- discovery ------------------------------------------------------- */

struct rn_sriov_vf {
	int index;			/* N of the PF's virtfnN */
	char pci[RN_PCI_ADDR_LEN];
	char driver[32];		/* "" : unbound */
	char netdev[RN_IFNAMSIZ];	/* "" : not in this netns */
	char rdma_dev[RN_RDMA_NAME_LEN];	/* "" : none here */
	char node_guid[RN_GUID_STRLEN];	/* of rdma_dev; "" unknown */
	char link_layer[16];		/* of rdma_dev port 1 */
	unsigned int mtu;		/* of netdev; 0 unknown */
	struct rn_vf_admin admin;
};

struct rn_sriov_pf {
	char pci[RN_PCI_ADDR_LEN];
	char vendor[8], device[8];	/* "15b3", "1017" */
	char driver[32];
	char ifname[RN_IFNAMSIZ];	/* "" : no netdev here */
	int ifindex;
	uint8_t mac[6];			/* Ethernet; of a 20-byte IPoIB address only its
					 * first 6 bytes (QPN flags and fe:80: alike
					 * on every node) */
	uint64_t port_guid;		/* what identifies the port: bytes 12-19 of an
					 * IPoIB address, else the PF RDMA device's node
					 * GUID; 0 unknown */
	bool up;			/* operstate up */
	char rdma_dev[RN_RDMA_NAME_LEN];
	int numvfs, totalvfs;
	int drivers_autoprobe;		/* sriov_drivers_autoprobe; -1 unknown */
	struct rn_sriov_vf *vfs;	/* by index */
	int n_vfs;
};

struct rn_sriov_host {
	struct rn_sriov_pf *pfs;	/* sorted by PCI address */
	int n_pfs;
	bool admin_read;		/* VF admin settings came from rtnetlink */
	char note[256];			/* why they did not, if they did not */
	struct rn_rdma_roots roots;
};

/* Walks <sys>/bus/pci/devices. With an overridden root, or with_admin
 * false, rtnetlink is not asked (a fixture tree is not this host). */
int rn_sriov_discover(struct rn_sriov_host *h, const struct rn_rdma_roots *roots,
		      bool with_admin, struct rn_error *e);
void rn_sriov_host_free(struct rn_sriov_host *h);
const struct rn_sriov_pf *rn_sriov_find_pf(const struct rn_sriov_host *h, const char *name_or_pci);
/* The VF with this PCI address; *pf_out its PF. */
const struct rn_sriov_vf *rn_sriov_find_vf(const struct rn_sriov_host *h, const char *pci,
					   const struct rn_sriov_pf **pf_out);
/* A well-formed PCI address "dddd:bb:dd.f" (lowercase hex). */
bool rn_sriov_pci_valid(const char *s);

/* ---- config ---------------------------------------------------------- */

struct rn_sriov_pf_config {
	char pf[RN_IFNAMSIZ];		/* "" : selectors */
	char vendors[RN_SRIOV_MAX_SEL][8];
	int n_vendors;
	char device_ids[RN_SRIOV_MAX_SEL][8];
	int n_device_ids;
	char root_devices[RN_SRIOV_MAX_SEL][RN_PCI_ADDR_LEN];
	int n_root_devices;
	char pf_names[RN_SRIOV_MAX_SEL][RN_IFNAMSIZ];
	int n_pf_names;
	int num_vfs;
	bool is_rdma;
	unsigned int mtu;		/* 0: leave */
	char resource_name[RN_SRIOV_RESOURCE_LEN];
	char resource_prefix[RN_SRIOV_PREFIX_LEN];	/* default RN_SRIOV_DEFAULT_PREFIX */
};

struct rn_sriov_config {
	struct rn_sriov_pf_config *pfs;
	int n;
	int wait_ms;			/* for VF netdevs/RDMA devices; default 10000 */
	char state_dir[PATH_MAX];	/* holds; "": $RDMANET_CNI_STATE_DIR or the default;
					 * rn_sriov_config_get: the node's cni.state_dir
					 * unless $RDMANET_CNI_STATE_DIR is set */
};

/* arr may be NULL (no section). Errors name the field: "config: sriov[0].numVfs". */
int rn_sriov_config_parse(json_t *arr, struct rn_sriov_config *out, struct rn_error *e);
void rn_sriov_config_free(struct rn_sriov_config *c);
/* Validates c->sriov; called by rn_config_from_json. */
int rn_sriov_config_check(const struct rn_config *c, struct rn_error *e);
/* The parsed section of a checked config (empty if there is none). */
int rn_sriov_config_get(const struct rn_config *c, struct rn_sriov_config *out,
			struct rn_error *e);
bool rn_sriov_pf_matches(const struct rn_sriov_pf_config *pc, const struct rn_sriov_pf *pf);
/* The config entry that manages pf (NULL: the agent never touches it). */
const struct rn_sriov_pf_config *rn_sriov_config_for_pf(const struct rn_sriov_config *c,
							 const struct rn_sriov_pf *pf);

/* ---- operations on the kernel (tests replace them) --------------------- */

struct rn_sriov_ops {
	/* IFLA_VFINFO_LIST of the PF (netns of the caller); -ENOENT if none */
	int (*vf_admin_get)(void *ctx, const char *pf_ifname, int vf, struct rn_vf_admin *out,
			    struct rn_error *e);
	int (*vf_apply)(void *ctx, const char *pf_ifname, int vf, const struct rn_vf_settings *s,
			struct rn_error *e);
	int (*vf_set_guids)(void *ctx, const char *pf_ifname, int vf, uint64_t node_guid,
			    uint64_t port_guid, struct rn_error *e);
	/* unbind the VF from its driver and bind it again (driver_override
	 * with sriov_drivers_autoprobe 0) */
	int (*vf_rebind)(void *ctx, const struct rn_rdma_roots *roots, const char *vf_pci,
			 const char *driver, struct rn_error *e);
	int (*netdev_set_mtu)(void *ctx, const char *ifname, unsigned int mtu, struct rn_error *e);
	void *ctx;
};

extern const struct rn_sriov_ops rn_sriov_live_ops;

/* The live implementations, for callers that use them directly. */
int rn_sriov_vf_admin_get(const char *pf_ifname, int vf, struct rn_vf_admin *out,
			  struct rn_error *e);
int rn_sriov_vf_apply(const char *pf_ifname, int vf, const struct rn_vf_settings *s,
		      struct rn_error *e);
/* The settings that put a VF back as admin says (MAC, VLAN, spoofchk, trust,
 * link state, rates). */
void rn_sriov_settings_from_admin(const struct rn_vf_admin *a, struct rn_vf_settings *s);
/* One line as `ip link show` prints a VF ("vf 0 link/ether ... vlan 10 ..."). */
void rn_sriov_admin_format(const struct rn_vf_admin *a, int vf, char *buf, size_t size);
/* The settings as rdmanetctl vf -j and the VF hold show them (no GUIDs). */
json_t *rn_sriov_admin_to_json(const struct rn_vf_admin *a);

/* RDMA netlink: RDMA_NLDEV_CMD_SET {DEV_INDEX, NET_NS_FD} on a socket of
 * the caller's netns. Needs exclusive netns mode; EOPNOTSUPP from a driver
 * that cannot move (rxe) is said plainly. */
int rn_sriov_rdma_dev_move(const char *rdma_dev, int netns_fd, struct rn_error *e);

/* ---- provisioning ---------------------------------------------------- */

#define RN_SRIOV_MAX_ACTIONS 256

struct rn_sriov_report {
	char actions[RN_SRIOV_MAX_ACTIONS][320];	/* "ens1f0np0: sriov_numvfs 0 -> 12" */
	int n_actions;
	int n_errors;
	int guids_fixed;
	int guids_zero;			/* still zero after provisioning */
	int n_kept;			/* sweep: holds kept, the VF not provably out of
					 * its pod ("kept: ..." actions) */
	int n_busy;			/* provisioning: VFs a CNI had locked, left alone */
};

void rn_sriov_report_add(struct rn_sriov_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Provisions every PF the config selects. Returns 0 if every PF came out as
 * configured, else the first failure (the others are still attempted);
 * r says what was done. ops NULL: live. */
int rn_sriov_provision(const struct rn_sriov_config *c, const struct rn_rdma_roots *roots,
		       const struct rn_sriov_ops *ops, struct rn_sriov_report *r,
		       struct rn_error *e);
/* Reconciling continuously: provisioning runs again whenever what it
 * depends on changed since its last pass (the config's "sriov" section,
 * the PFs and VFs: sriov_numvfs, drivers, netdevs and RDMA devices coming
 * and going, GUIDs, MTUs, holds), or when that pass left a VF a CNI had
 * locked. The first call always runs. *ran says whether it did (r is
 * then its report); the return is provisioning's. */
struct rn_sriov_reconciler {
	bool done;
	bool retry;			/* the last pass skipped a locked VF */
	uint64_t done_fp;		/* what the last pass left */
};
int rn_sriov_reconcile(struct rn_sriov_reconciler *st, const struct rn_sriov_config *c,
		       const struct rn_rdma_roots *roots, const struct rn_sriov_ops *ops,
		       struct rn_sriov_report *r, bool *ran, struct rn_error *e);
/* The admin MAC the agent gives VF vf of pf to fill a zero GUID:
 * locally administered, 02:<PF MAC bytes 2..5>:<vf+1>. */
void rn_sriov_vf_mac(const struct rn_sriov_pf *pf, int vf, uint8_t mac[6]);
/* The node/port GUID the agent gives InfiniBand VF vf of pf: the PF's
 * port GUID with the locally administered bit flipped and byte 3 (a
 * constant 0x03 in ConnectX GUIDs) replaced by vf+1, so unique per port
 * and VF, and never a globally administered GUID. -ENODATA: pf's port
 * GUID is unknown. */
int rn_sriov_vf_ib_guid(const struct rn_sriov_pf *pf, int vf, uint64_t *guid);
/* Whether provisioning will fix this VF's zero GUID (a config entry with
 * isRdma manages its PF). why gets one line either way. */
bool rn_sriov_will_fix_guid(const struct rn_sriov_config *c, const struct rn_sriov_host *h,
			    const char *vf_pci, char *why, size_t size);

/* ---- holds (per-VF lock and record) ----------------------------------- */

struct rn_sriov_hold {
	char pci[RN_PCI_ADDR_LEN];
	char pf_ifname[RN_IFNAMSIZ];
	int vf;
	char network[128];
	char container_id[RN_CONTAINER_ID_LEN];
	char ifname[RN_IFNAMSIZ];	/* in the pod */
	char netns[4096];
	/* the pod netns's identity (st_dev, st_ino of the nsfs file) when ADD
	 * opened it; 0: not recorded (older holds). A netns path that names
	 * another netns now (a /proc/PID/ns/net whose PID was reused) is not
	 * the pod's. */
	uint64_t netns_dev, netns_ino;
	char pod_namespace[256], pod_name[256];
	time_t since;
	bool complete;			/* ADD finished */
	/* DEL (or GC) ran but the VF's netdev had not come back from the pod's
	 * dying netns: the pod is gone, the VF is not free until the agent (or
	 * the next ADD on it) has restored it */
	bool released;
	/* the VF as it was before ADD */
	char orig_netdev[RN_IFNAMSIZ];
	unsigned int orig_mtu;
	uint8_t orig_mac[6];		/* the netdev's */
	char orig_rdma_dev[RN_RDMA_NAME_LEN];
	struct rn_vf_admin orig_admin;
	bool rdma_moved;
	/* a DRA claim's (its UID): prepared by rdmanetd's DRA driver for a pod
	 * not attached yet (no netns); NodeUnprepareResources removes it, the
	 * leak sweep leaves it. The claim's identity rides along in the pod's
	 * hold too, so that DEL gives the claim back exactly the hold the
	 * driver wrote ("" in holds of older agents). */
	char claim_uid[64];
	char claim_namespace[256], claim_name[256];
	char claim_network[128];	/* "dra:<driver>" */
};

/* The hold a DRA claim keeps on its VF while no pod has it, from any hold
 * of that claim (the driver's own, or a pod's under the claim): the VF,
 * its original names and the claim, shown as the claim's (pod_namespace,
 * pod_name and network say the claim's), since now. The one constructor
 * for the DRA driver's prepare and the CNI's DEL, so both write the same. */
void rn_sriov_hold_for_claim(const struct rn_sriov_hold *h, struct rn_sriov_hold *out);

/* <state_dir>/sriov: where the holds are (state_dir NULL or "": the default). */
int rn_sriov_hold_dir(const char *state_dir, char *buf, size_t size);
/* <state_dir>/sriov/<pci>.json; state_dir NULL: the default. */
int rn_sriov_hold_path(const char *state_dir, const char *pci, char *buf, size_t size);
/* Takes the VF's lock (flock, LOCK_EX; nonblocking: -EWOULDBLOCK when held
 * by another process). The fd is returned in *fd; close it to unlock. */
int rn_sriov_hold_lock(const char *state_dir, const char *pci, bool nonblocking, int *fd,
		       struct rn_error *e);
/* -ENOENT: no hold (the VF is free). */
int rn_sriov_hold_read(const char *state_dir, const char *pci, struct rn_sriov_hold *h,
		       struct rn_error *e);
int rn_sriov_hold_write(const char *state_dir, const struct rn_sriov_hold *h,
			struct rn_error *e);
int rn_sriov_hold_remove(const char *state_dir, const char *pci, struct rn_error *e);
/* Every hold (malloc'd, free()). */
int rn_sriov_hold_list(const char *state_dir, struct rn_sriov_hold **out, int *n,
		       struct rn_error *e);
json_t *rn_sriov_hold_to_json(const struct rn_sriov_hold *h);
int rn_sriov_hold_from_json(json_t *o, struct rn_sriov_hold *h, struct rn_error *e);

/* Where a held VF is, as far as this process can prove it. Only the VF's
 * own netdev coming back proves that nothing of it is left in a pod: a
 * netns path this process cannot see may be gone, or only not mounted
 * here (an agent container without /run/netns), and a netns that is gone
 * from its path may still be dying with the VF in it (teardown is
 * asynchronous). */
enum rn_sriov_hold_where {
	RN_SRIOV_HOLD_IN_POD,		/* its netns is visible at its path (same identity) */
	RN_SRIOV_HOLD_RETURNED,		/* its netdev is back in this netns */
	RN_SRIOV_HOLD_VF_GONE,		/* the VF's PCI function no longer exists */
	RN_SRIOV_HOLD_UNSEEN,		/* neither: kept; why says what cannot be seen */
};
/* why gets one line for RN_SRIOV_HOLD_UNSEEN ("" otherwise). */
enum rn_sriov_hold_where rn_sriov_hold_where(const struct rn_rdma_roots *roots,
					     const struct rn_sriov_hold *h, char *why,
					     size_t size);
/* Whether the nsfs file at path is the netns a hold recorded (dev/ino 0:
 * any netns there counts). */
bool rn_sriov_netns_visible(const char *path, uint64_t dev, uint64_t ino);

/* ---- giving VFs back ------------------------------------------------ */

/* In the caller's (host) netns, once the VF's devices are out of the pod
 * (moved back, or returned by the kernel when the pod netns died): every
 * VF setting that differs from the hold's record through the PF, the VF
 * netdev (found by PCI address) renamed back, its MTU and MAC back, left
 * down; then the hold is removed. -EINPROGRESS while the VF's netdev is
 * not in this netns (the pod's netns still dying, or alive): nothing is
 * touched and the hold stays. A VF that no longer exists only loses its
 * hold. The caller holds the VF's lock. */
int rn_sriov_restore_host(const char *state_dir, const struct rn_rdma_roots *roots,
			  const struct rn_sriov_hold *h, struct rn_error *e);
/* Gives the VF's netdev (in the caller's netns, found by PCI address) the
 * MAC mac: set directly, or where the PF refuses that while an admin MAC is
 * set (igb), by rebinding the VF driver so it probes with the admin MAC
 * (the caller has set it to mac). name gets the netdev's name after. */
int rn_sriov_vf_netdev_mac(const struct rn_rdma_roots *roots, const char *pci,
			   const uint8_t mac[6], char *name, struct rn_error *e);
/* The agent's leak sweep: every hold whose VF is provably out of its pod
 * (rn_sriov_hold_where: its netdev back in this netns, or the VF gone) and
 * whose lock no CNI holds is restored; a hold this process cannot judge
 * (its netns not visible here, the netdev not back) is kept and reported
 * as a "kept: ..." action. r says what was done. */
int rn_sriov_sweep(const char *state_dir, const struct rn_rdma_roots *roots,
		   struct rn_sriov_report *r, struct rn_error *e);

/* Counters of this process (the agent's metrics). */
struct rn_sriov_counters {
	unsigned long long vfs_swept;		/* restored by the leak sweep */
	unsigned long long sweep_errors;
	unsigned long long guids_fixed;
};
const struct rn_sriov_counters *rn_sriov_counters(void);
void rn_sriov_count_guids_fixed(unsigned int n);
/* The SR-IOV part of the textfile: VFs per PF and resource, held, healthy,
 * zero GUIDs, and this process's counters. Never fails the export. */
void rn_metrics_sriov(FILE *f, const struct rn_config *c);

/* ---- the device plugin's view ---------------------------------------- */

struct rn_sriov_device {
	char pci[RN_PCI_ADDR_LEN];	/* the device ID */
	char pf_ifname[RN_IFNAMSIZ];
	char resource_name[RN_SRIOV_RESOURCE_LEN];
	char resource_prefix[RN_SRIOV_PREFIX_LEN];
	char netdev[RN_IFNAMSIZ];	/* "" : not in this netns */
	char rdma_dev[RN_RDMA_NAME_LEN];
	char uverbs[32];		/* "/dev/infiniband/uverbs5"; "" none */
	bool healthy;			/* can serve a pod (in use or not) */
	char why[128];			/* unhealthy: "zero node GUID", "PF ens1f0np0 down",
					 * "being returned from ns/pod's netns" */
	bool in_use;			/* a pod holds it (not a health state) */
	char held_by[128];		/* in use: "ns/pod" */
};

/* One device per VF of every PF the config manages. Health is whether the
 * VF can serve: the PF up, and for a free VF its RDMA device here with a
 * non-zero GUID; a VF a pod holds is healthy all the same (kubelet counts
 * it in use), one whose pod is deleted but whose netdev is not back yet
 * (a released hold) is not. */
int rn_sriov_devices(const struct rn_sriov_config *c, const struct rn_sriov_host *h,
		     const char *state_dir, struct rn_sriov_device **out, int *n,
		     struct rn_error *e);
/* "PCIDEVICE_<RESOURCE>" as sriov-network-device-plugin names it: the
 * resource name (with its prefix, "rdma/mellanoxroce") upper-cased, '.'
 * and '/' made '_' ("PCIDEVICE_RDMA_MELLANOXROCE"); a '-' stays. */
void rn_sriov_env_name(const char *resource, char *buf, size_t size);

/* ---- views ----------------------------------------------------------- */

/* `rdmanetctl vf -j`: { "pfs": [ { ..., "vfs": [ { ..., "held_by": {...} } ] } ] } */
json_t *rn_sriov_host_to_json(const struct rn_sriov_host *h, const struct rn_sriov_config *c,
			      const char *state_dir);
void rn_sriov_host_print(FILE *f, const struct rn_sriov_host *h, const struct rn_sriov_config *c,
			 const char *state_dir);

#endif

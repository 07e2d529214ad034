/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The RDMA device model: every RDMA device of this host (as seen from the
 * current network namespace) with its ports, GID tables, PCI facts, SR-IOV
 * relations, character devices and hardware counters, plus the system's
 * RDMA netns mode. Filled from three sources, each optional:
 *   sysfs       always; the only source when the sysfs root is overridden
 *               (fixture trees) or the others are unavailable
 *   netlink     RDMA netlink (NETLINK_RDMA): device and port state, netdev,
 *               netns mode, hardware counters, uverbs driver id
 *   verbs       libibverbs: device list, port MTUs, ibv_query_gid_table
 * What a source could not give is said in notes[], never guessed. */
#ifndef RDMANET_RDMA_MODEL_H
#define RDMANET_RDMA_MODEL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <rdmanet/master.h>

#include "error.h"
#include "netaddr.h"
#include "rdma/roots.h"

#define RN_RDMA_NAME_LEN 64	/* IB_DEVICE_NAME_MAX */
#define RN_GUID_STRLEN 20	/* "xxxx:xxxx:xxxx:xxxx" */
#define RN_GID_STRLEN 40	/* "xxxx:...:xxxx", 8 groups */
#define RN_PCI_ADDR_LEN 16	/* "0000:3b:00.0" */
#define RN_RDMA_MAX_NOTES 8

enum rn_rdma_source {
	RN_RDMA_SRC_SYSFS = 1u << 0,
	RN_RDMA_SRC_NETLINK = 1u << 1,
	RN_RDMA_SRC_VERBS = 1u << 2,
	RN_RDMA_SRC_COUNTERS = 1u << 3,	/* hardware counters (netlink, else sysfs) */
	RN_RDMA_SRC_ALL = RN_RDMA_SRC_SYSFS | RN_RDMA_SRC_NETLINK | RN_RDMA_SRC_VERBS,
};

enum rn_gid_type { RN_GID_TYPE_UNKNOWN = 0, RN_GID_TYPE_IB, RN_GID_TYPE_ROCE_V1,
		   RN_GID_TYPE_ROCE_V2 };

/* The kernel's enum ib_port_state and its sysfs "N: NAME" numbering. */
enum rn_port_state { RN_PORT_STATE_UNKNOWN = 0, RN_PORT_DOWN = 1, RN_PORT_INIT = 2,
		     RN_PORT_ARMED = 3, RN_PORT_ACTIVE = 4, RN_PORT_ACTIVE_DEFER = 5 };

enum rn_netns_mode { RN_NETNS_UNKNOWN = -1, RN_NETNS_EXCLUSIVE = 0, RN_NETNS_SHARED = 1 };

enum rn_rdma_function { RN_FN_VIRTUAL = 0, RN_FN_PF, RN_FN_VF };

struct rn_rdma_gid {
	unsigned int index;
	uint8_t raw[16];
	enum rn_gid_type type;
	char netdev[RN_IFNAMSIZ];	/* "" if the kernel names none */
	int netdev_ifindex;		/* 0 if unknown */
	struct rn_addr addr;		/* family 0: maps no IP address */
};

struct rn_rdma_counter {
	char name[64];
	uint64_t value;
};

struct rn_rdma_port {
	unsigned int num;
	char link_layer[16];		/* "Ethernet", "InfiniBand" */
	enum rn_port_state state;
	int phys_state;			/* 5: LinkUp, 3: Disabled, ... 0 unknown */
	char phys_state_name[24];
	char netdev[RN_IFNAMSIZ];
	int netdev_ifindex;
	unsigned int active_mtu;	/* bytes, from verbs; 0 unknown */
	unsigned int max_mtu;
	unsigned int gid_tbl_len;	/* 0 unknown */
	char rate[48];
	struct rn_rdma_gid *gids;	/* valid (non-zero) entries, by index */
	int n_gids;
	bool gids_from_verbs;
	struct rn_rdma_counter *counters;
	int n_counters;
	const char *counters_source;	/* "netlink", "sysfs" or NULL */
};

struct rn_rdma_chardev {
	char name[32];			/* "uverbs0", "umad0", "issm0" */
	char kind[16];			/* "uverbs", "umad", "issm" */
	unsigned int port;		/* umad/issm: the port; 0 for uverbs */
	char devt[16];			/* "231:192" */
	char path[64];			/* "/dev/infiniband/uverbs0" */
	bool present;			/* the node exists under the dev root */
};

struct rn_rdma_pci {
	char addr[RN_PCI_ADDR_LEN];
	char vendor[8];			/* "15b3" (no 0x, lowercase) */
	char device[8];			/* "1017" */
	char driver[32];		/* "mlx5_core" */
	char physfn[RN_PCI_ADDR_LEN];	/* VF: its PF */
	int vf_index;			/* VF: N of the PF's virtfnN; -1 otherwise */
	char (*vfs)[RN_PCI_ADDR_LEN];	/* PF: virtfn0..N */
	int n_vfs;
	int sriov_numvfs;		/* -1 if not SR-IOV capable */
	int sriov_totalvfs;
};

struct rn_rdma_dev {
	char name[RN_RDMA_NAME_LEN];
	unsigned int index;		/* netlink device index; 0 if unknown */
	char node_type[16];		/* "CA", "RNIC" */
	char node_guid[RN_GUID_STRLEN];
	char sys_image_guid[RN_GUID_STRLEN];
	char fw_ver[64];
	char hca_type[32];
	char board_id[64];
	char protocol[16];		/* netlink: "roce", "ib", "iw" */
	char driver[32];		/* PCI driver, or "rxe"/"siw" for soft devices */
	char provider[32];		/* rdma-core provider it needs ("mlx5", "rxe") */
	char parent[RN_IFNAMSIZ];	/* soft devices: the netdev they sit on */
	enum rn_rdma_function fn;
	bool is_pci;
	struct rn_rdma_pci pci;
	struct rn_rdma_chardev *chardevs;
	int n_chardevs;
	struct rn_rdma_port *ports;
	int n_ports;
	bool in_netlink;
	bool in_verbs;
};

struct rn_rdma_model {
	struct rn_rdma_dev *devs;	/* sorted by name */
	int n_devs;
	enum rn_netns_mode netns_mode;
	const char *netns_mode_source;	/* "netlink", "sysfs" or NULL */
	unsigned int sources;		/* what contributed (enum rn_rdma_source) */
	int verbs_devices;		/* devices libibverbs lists; -1 not consulted */
	bool rdma_cm_present;		/* dev root has infiniband/rdma_cm */
	char notes[RN_RDMA_MAX_NOTES][256];
	int n_notes;
	/* 0, or the first -errno of a sysfs read the device and port lists
	 * depend on (a directory listing, link_layer, PCI IDs, physfn) that
	 * failed for another reason than the thing being absent: the model
	 * is missing what it could not read. read_err_msg says which. */
	int read_err;
	char read_err_msg[256];
	struct rn_rdma_roots roots;
};

extern const char *const rn_gid_type_names[4];	/* "?", "IB", "RoCE v1", "RoCE v2" */
extern const char *const rn_port_state_names[6];	/* "?", "DOWN", ..., "ACTIVE_DEFER" */
extern const char *const rn_netns_mode_names[2];	/* "exclusive", "shared" */
extern const char *const rn_rdma_function_names[3];	/* "virtual", "pf", "vf" */

/* Loads what sources allows (enum rn_rdma_source). With an overridden
 * sysfs root only sysfs is read: netlink and verbs describe the live host,
 * not the tree. Fails only when not even sysfs can be read; a missing
 * class/infiniband is an empty model, not an error. A device or port that
 * could not be read leaves the model incomplete with m->read_err set:
 * fine for showing what there is, not for deciding what is absent. */
int rn_rdma_model_load(struct rn_rdma_model *m, const struct rn_rdma_roots *roots,
		       unsigned int sources, struct rn_error *e);
void rn_rdma_model_free(struct rn_rdma_model *m);

void rn_rdma_model_note(struct rn_rdma_model *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct rn_rdma_dev *rn_rdma_find_dev(const struct rn_rdma_model *m, const char *name);
/* The port whose netdev is ifname (NULL if none); *dev_out gets its device. */
struct rn_rdma_port *rn_rdma_find_port_by_netdev(const struct rn_rdma_model *m, const char *ifname,
						 struct rn_rdma_dev **dev_out);
/* The GID of type on (dev, port) that maps addr, optionally only on netdev
 * ifname (NULL: any). */
const struct rn_rdma_gid *rn_rdma_find_gid(const struct rn_rdma_port *p, const struct rn_addr *addr,
					   enum rn_gid_type type, const char *ifname);
bool rn_rdma_guid_is_zero(const char *guid);

/* `rdma system set netns`: over RDMA netlink, with the kernel's EBUSY
 * (other namespaces exist) explained. */
int rn_rdma_netns_mode_set(enum rn_netns_mode mode, struct rn_error *e);

/* Adds (or finds) a device or port: the building blocks the sources use. */
struct rn_rdma_dev *rn_rdma_model_add_dev(struct rn_rdma_model *m, const char *name);
struct rn_rdma_port *rn_rdma_dev_port(struct rn_rdma_dev *d, unsigned int num, bool create);
int rn_rdma_port_add_gid(struct rn_rdma_port *p, const struct rn_rdma_gid *g);
int rn_rdma_port_add_counter(struct rn_rdma_port *p, const char *name, uint64_t value);
void rn_rdma_port_sort_counters(struct rn_rdma_port *p);
void rn_rdma_model_sort(struct rn_rdma_model *m);

#endif

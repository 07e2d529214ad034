/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pod interface: a macvlan or ipvlan child of the master, created
 * straight into the pod netns under a temporary name (the kernel never
 * shows it in the host netns, so a crash cannot leave it there), then
 * renamed, marked as ours with an alias and brought up.
 *
 * The temporary name is a hash of (container id, ifname): a DEL after a
 * crash between creation and rename finds it. The alias "rdmanet:<container
 * id>" is how DEL and GC know a link is theirs to delete. */
#ifndef RDMANET_CNI_LINK_H
#define RDMANET_CNI_LINK_H

#include <stdbool.h>
#include <stdint.h>
#include <netlink/netlink.h>
#include <rdmanet/master.h>

#include "error.h"
#include "netconf.h"

#define CNI_ALIAS_PREFIX "rdmanet:"
#define CNI_ALIAS_MAX 256

struct cni_link_spec {
	enum cni_mode mode;
	int submode;			/* MACVLAN_MODE_* or IPVLAN_MODE_* */
	int master_ifindex;		/* in the host netns */
	unsigned int mtu;		/* 0: the master's */
};

/* What the kernel says about a pod interface. */
struct cni_link_info {
	int ifindex;
	char kind[16];			/* "macvlan", "ipvlan", ... */
	int submode;
	int parent_ifindex;		/* IFLA_LINK: the master, in the host netns */
	uint8_t mac[6];
	unsigned int mtu;
	bool up;
	char alias[CNI_ALIAS_MAX];
};

void cni_link_tmp_name(const char *container_id, const char *ifname, char out[RN_IFNAMSIZ]);
void cni_link_alias(const char *container_id, char out[CNI_ALIAS_MAX]);

/* Creates the child as `name` inside the netns pod_fd, through a host socket. */
int cni_link_create(struct nl_sock *host, const struct cni_link_spec *s, const char *name,
		    int pod_fd, struct rn_error *e);
/* Renames (the link is down), sets the alias. -EEXIST if to is taken. */
int cni_link_rename(struct nl_sock *pod, int ifindex, const char *to, const char *alias,
		    struct rn_error *e);
int cni_link_set_up(struct nl_sock *pod, int ifindex, struct rn_error *e);
/* -ENODEV if there is no such link. */
int cni_link_get(struct nl_sock *sk, const char *name, struct cni_link_info *out,
		 struct rn_error *e);
/* 1 and its ifindex if name is a macvlan/ipvlan whose alias is `alias` (or,
 * for a temporary name, that carries no alias yet); 0 if it is not, or
 * missing. */
int cni_link_ours(struct nl_sock *pod, const char *name, const char *alias, int *ifindex,
		  struct rn_error *e);
/* Gone already: 0, *deleted false. */
int cni_link_delete_index(struct nl_sock *pod, int ifindex, const char *name, bool *deleted,
			  struct rn_error *e);
/* Deletes name if it is ours (cni_link_ours). Missing: 0, *deleted false. */
int cni_link_delete_ours(struct nl_sock *pod, const char *name, const char *alias,
			 bool *deleted, struct rn_error *e);

#endif

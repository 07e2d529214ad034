/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Routes and policy rules in the pod netns (see route_plan.h for which). */
#ifndef RDMANET_CNI_ROUTING_H
#define RDMANET_CNI_ROUTING_H

#include <stdbool.h>
#include <stdint.h>
#include <netlink/netlink.h>

#include "attachment.h"
#include "error.h"

/* The lowest table >= base that no rule of the pod netns looks up
 * (skipping the kernel's 253..255): a pod's rails get base, base+1, ... */
int cni_table_pick(struct nl_sock *pod, uint32_t base, uint32_t *table, struct rn_error *e);
int cni_route_add(struct nl_sock *pod, int ifindex, const struct cni_att_route *r,
		  struct rn_error *e);
/* `from <src>/<full length> lookup <table>` at priority prio. */
int cni_rule_add(struct nl_sock *pod, const struct rn_addr *src, uint32_t table, uint32_t prio,
		 struct rn_error *e);
/* Deletes every rule whose source is exactly src (a host prefix): those are
 * the attachment's, as the address was. Returns how many went. */
int cni_rules_del_from(struct nl_sock *pod, const struct rn_addr *src, struct rn_error *e);

/* CHECK: is the route there (same table, destination, gateway, device)? */
int cni_route_present(struct nl_sock *pod, int ifindex, const struct cni_att_route *r,
		      bool *found, struct rn_error *e);
/* CHECK: the table the rule from src looks up (0 if there is no such rule). */
int cni_rule_table_of(struct nl_sock *pod, const struct rn_addr *src, uint32_t *table,
		      struct rn_error *e);

#endif

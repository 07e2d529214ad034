// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The agent's RDMA work at start and on every tick:
 *   - hardware QoS: RDMA-CM default_roce_tos (configfs) and the port's
 *     traffic_class (sysfs, where the driver has it) set to the DSCP/ECN
 *     the config gives the tc marker, so offloaded RoCE carries it too;
 *     only on the ports of the netdevs the agent manages (the configured
 *     masters, else what rdma.selectors selects: see rn_qos_scope);
 *   - the RDMA netns mode, once at start, when the config names one;
 *   - the GID watch: an address whose GID entry moves or vanishes is
 *     logged (a warning when a registered pod owns it) and counted for
 *     the textfile. */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "rdma/rdma.h"
#include "rdma_tick.h"

/* What the last tick reported per (device, port, knob): a failure is
 * logged when it starts or changes, not every tick. */
struct qos_seen {
	char dev[RN_RDMA_NAME_LEN];
	unsigned int port;
	int knob;
	int err;
	int value;
};

static struct qos_seen qos_seen[2 * RN_MAX_MASTERS];
static int n_qos_seen;

static struct qos_seen *qos_slot(const struct rn_qos_outcome *o, bool *fresh)
{
	for (int i = 0; i < n_qos_seen; i++)
		if (qos_seen[i].port == o->port && qos_seen[i].knob == (int)o->knob &&
		    !strcmp(qos_seen[i].dev, o->dev)) {
			*fresh = false;
			return &qos_seen[i];
		}
	*fresh = true;
	if (n_qos_seen == (int)(sizeof(qos_seen) / sizeof(qos_seen[0])))
		return NULL;
	snprintf(qos_seen[n_qos_seen].dev, sizeof(qos_seen[0].dev), "%s", o->dev);
	qos_seen[n_qos_seen].port = o->port;
	qos_seen[n_qos_seen].knob = (int)o->knob;
	return &qos_seen[n_qos_seen++];
}

static void on_qos(const struct rn_qos_outcome *o, void *arg)
{
	static const char *const knobs[] = { "default_roce_tos", "traffic_class" };
	bool fresh;
	struct qos_seen *s = qos_slot(o, &fresh);

	(void)arg;
	if (o->err) {
		if (fresh || !s || s->err != o->err)
			rn_warn("rdma %s/%u: %s %d not applied: %s (%s)", o->dev, o->port,
				knobs[o->knob], o->new_value, strerror(-o->err),
				o->hint ? o->hint : "");
	} else if (o->changed) {
		rn_info("rdma %s/%u: %s %d -> %d (dscp %d, ecn bits %d)", o->dev, o->port,
			knobs[o->knob], o->old_value, o->new_value, o->new_value >> 2,
			o->new_value & 3);
	} else if (fresh) {
		rn_debug("rdma %s/%u: %s already %d", o->dev, o->port, knobs[o->knob],
			 o->new_value);
	}
	if (s) {
		s->err = o->err;
		s->value = o->new_value;
	}
}

struct watch_ctx {
	const struct rn_pod_addr *pods;
	int n_pods;
};

static const struct rn_pod_addr *owner(const struct watch_ctx *w,
				       const struct rn_gid_watch_entry *g)
{
	for (int i = 0; i < w->n_pods; i++)
		if (rn_addr_equal(&w->pods[i].addr, &g->addr))
			return &w->pods[i];
	return NULL;
}

static void on_gid(enum rn_gid_event ev, const struct rn_gid_watch_entry *old,
		   const struct rn_gid_watch_entry *now, void *arg)
{
	const struct rn_gid_watch_entry *g = now ? now : old;
	const struct rn_pod_addr *pod = owner(arg, g);
	char addr[RN_ADDR_STRLEN], who[RN_NS_LEN + RN_POD_NAME_LEN + 8] = "";

	rn_addr_format(&g->addr, addr);
	if (pod)
		snprintf(who, sizeof(who), ", pod %s/%s", pod->ns, pod->pod);
	switch (ev) {
	case RN_GID_MOVED:
		rn_log(pod ? RN_LOG_WARN : RN_LOG_INFO, "rdma %s/%u: %s GID of %s (%s%s) moved "
		       "from index %u to %u; whatever pinned index %u (NCCL_IB_GID_INDEX, "
		       "connected QPs) must pick the new one", g->dev, g->port,
		       rn_gid_type_names[g->type], addr, g->netdev, who, old->index, now->index,
		       old->index);
		break;
	case RN_GID_REMOVED:
		rn_log(pod ? RN_LOG_WARN : RN_LOG_INFO, "rdma %s/%u: %s GID of %s (%s%s) at index "
		       "%u is gone", g->dev, g->port, rn_gid_type_names[g->type], addr, g->netdev,
		       who, old->index);
		break;
	case RN_GID_ADDED:
		rn_log(pod ? RN_LOG_INFO : RN_LOG_DEBUG, "rdma %s/%u: %s GID of %s (%s%s) at "
		       "index %u", g->dev, g->port, rn_gid_type_names[g->type], addr, g->netdev,
		       who, now->index);
		break;
	}
}

static void apply_netns_mode(const struct rn_rdma_config *rc, const struct rn_rdma_model *m)
{
	struct rn_error e = { 0 };

	if (!rc->netns_mode_given || m->netns_mode == RN_NETNS_UNKNOWN ||
	    m->netns_mode == rc->netns_mode)
		return;
	if (rn_rdma_netns_mode_set(rc->netns_mode, &e))
		rn_warn("rdma: netns mode is %s, config wants %s: %s",
			rn_netns_mode_names[m->netns_mode], rn_netns_mode_names[rc->netns_mode],
			e.msg);
	else
		rn_info("rdma: netns mode %s -> %s", rn_netns_mode_names[m->netns_mode],
			rn_netns_mode_names[rc->netns_mode]);
}

/* the netns mode is applied at start and after a config reload, not on
 * every tick (the kernel refuses while namespaces exist; once is enough) */
static bool started;

void rn_rdma_agent_config_changed(void)
{
	started = false;
}

void rn_rdma_agent_tick(const struct rn_config *c)
{
	struct watch_ctx w = { 0 };
	struct rn_rdma_config rc;
	struct rn_rdma_roots roots;
	struct rn_rdma_model m;
	struct rn_qos_scope scope;
	struct rn_pod_addr *pods = NULL;
	struct rn_error e = { 0 };

	rn_rdma_config_get(c, &rc);
	rn_rdma_roots_init(&roots, rc.sysfs_root);
	if (rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_SYSFS | RN_RDMA_SRC_NETLINK, &e)) {
		rn_warn("rdma: %s", e.msg);
		return;
	}
	if (!started)
		apply_netns_mode(&rc, &m);
	started = true;
	rn_roce_qos_scope(&scope, c, &rc);
	rn_roce_qos_apply(&m, &scope, rn_roce_tos(&c->qos), on_qos, NULL);
	if (!rn_pod_addrs_list(c->bpf.pin_dir, &pods, &w.n_pods, NULL))
		w.pods = pods;
	if (rn_gid_watch_update(rn_gid_watch_agent(), &m, on_gid, &w))
		rn_warn("rdma: GID watch: out of memory");
	free(pods);
	rn_rdma_model_free(&m);
}

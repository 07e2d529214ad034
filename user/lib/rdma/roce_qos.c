// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rdma/roce_qos.h"
#include "rdma/sysfs_attr.h"

int rn_roce_tos(const struct rn_qos_config *q)
{
	static const int ecn_bits[] = { [RN_ECN_OFF] = 0, [RN_ECN_ECT0] = 2, [RN_ECN_ECT1] = 1 };

	return q->roce_dscp << 2 | (q->ecn <= RN_ECN_ECT1 ? ecn_bits[q->ecn] : 0);
}

int rn_roce_qos_read_tos(const struct rn_rdma_roots *roots, const char *dev, unsigned int port)
{
	long v;
	int err = rn_sysfs_read_long(&v, "%s/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos",
				     roots->sys, dev, port);

	return err ? err : (int)v;
}

static void apply_tos(const struct rn_rdma_model *m, const struct rn_rdma_dev *d,
		      unsigned int port, int tos, struct rn_qos_outcome *o)
{
	char group[PATH_MAX], val[16];
	int cur;

	o->knob = RN_QOS_DEFAULT_ROCE_TOS;
	if (!rn_sysfs_exists("%s/kernel/config/rdma_cm", m->roots.sys)) {
		o->err = -ENOENT;
		o->hint = "configfs rdma_cm missing: modprobe rdma_cm and mount -t configfs "
			  "none /sys/kernel/config";
		return;
	}
	/* the device's group exists once someone made it; making it is how */
	if (rn_pathf(group, sizeof(group), "%s/kernel/config/rdma_cm/%s", m->roots.sys, d->name) ||
	    (mkdir(group, 0755) && errno != EEXIST)) {
		o->err = -errno;
		o->hint = "cannot create the device's rdma_cm configfs group";
		return;
	}
	cur = rn_roce_qos_read_tos(&m->roots, d->name, port);
	o->old_value = cur < 0 ? -1 : cur;
	if (cur == tos)
		return;
	snprintf(val, sizeof(val), "%d", tos);
	o->err = rn_sysfs_write(val, "%s/ports/%u/default_roce_tos", group, port);
	o->changed = !o->err;
	if (o->err == -EROFS)
		o->hint = "configfs is read-only here: mount /sys/kernel/config writable "
			  "(deploy/base/rdmanetd-daemonset.yaml does)";
	else if (o->err)
		o->hint = "writing default_roce_tos failed (needs CAP_SYS_ADMIN or root)";
}

/* "Global tclass=106" once set; empty or another text before */
static int read_tclass(const char *dev, const struct rn_rdma_model *m, unsigned int port)
{
	char val[64];
	const char *p;

	if (rn_sysfs_read(val, sizeof(val), "%s/class/infiniband/%s/tc/%u/traffic_class",
			  m->roots.sys, dev, port))
		return -1;
	p = strstr(val, "tclass=");
	return p ? atoi(p + 7) : -1;
}

static void apply_traffic_class(const struct rn_rdma_model *m, const struct rn_rdma_dev *d,
				unsigned int port, int tos, struct rn_qos_outcome *o)
{
	char val[32];

	o->knob = RN_QOS_TRAFFIC_CLASS;
	o->old_value = read_tclass(d->name, m, port);
	if (o->old_value == tos)
		return;
	snprintf(val, sizeof(val), "tclass=%d", tos);
	o->err = rn_sysfs_write(val, "%s/class/infiniband/%s/tc/%u/traffic_class", m->roots.sys,
				d->name, port);
	o->changed = !o->err;
	if (o->err == -EROFS)
		/* the DaemonSet keeps /sys read-only: the class entry is a symlink
		 * into /sys/devices, and nothing narrower would make it writable */
		o->hint = "/sys is read-only here; deploy/rdmanetd-daemonset.yaml says how to "
			  "make /sys/devices writable where this knob matters";
	else if (o->err)
		o->hint = "writing traffic_class failed";
}

void rn_roce_qos_scope(struct rn_qos_scope *s, const struct rn_config *c,
		       const struct rn_rdma_config *rc)
{
	s->masters = c->masters;
	s->n_masters = c->n_masters;
	s->sel = &rc->selectors;
}

bool rn_roce_qos_in_scope(const struct rn_qos_scope *s, const struct rn_rdma_dev *d,
			  const struct rn_rdma_port *p)
{
	if (strcmp(p->link_layer, "Ethernet"))
		return false;
	if (!s->n_masters)
		return !s->sel || rn_selectors_match(s->sel, d);
	/* a port whose netdev is not in this namespace names none: not ours */
	for (int i = 0; p->netdev[0] && i < s->n_masters; i++)
		if (!strncmp(s->masters[i].ifname, p->netdev, RN_IFNAMSIZ))
			return true;
	return false;
}

int rn_roce_qos_apply(const struct rn_rdma_model *m, const struct rn_qos_scope *scope, int tos,
		      rn_qos_cb cb, void *arg)
{
	int failures = 0;

	for (int i = 0; i < m->n_devs; i++) {
		const struct rn_rdma_dev *d = &m->devs[i];

		for (int p = 0; p < d->n_ports; p++) {
			unsigned int num = d->ports[p].num;
			struct rn_qos_outcome o = { .dev = d->name, .port = num,
						    .new_value = tos };

			if (!rn_roce_qos_in_scope(scope, d, &d->ports[p]))
				continue;
			apply_tos(m, d, num, tos, &o);
			failures += o.err != 0;
			if (cb)
				cb(&o, arg);
			if (!rn_sysfs_exists("%s/class/infiniband/%s/tc/%u/traffic_class",
					     m->roots.sys, d->name, num))
				continue;
			o = (struct rn_qos_outcome){ .dev = d->name, .port = num,
						     .new_value = tos };
			apply_traffic_class(m, d, num, tos, &o);
			failures += o.err != 0;
			if (cb)
				cb(&o, arg);
		}
	}
	return failures;
}

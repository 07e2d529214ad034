// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/gid_watch.h"

static bool same_key(const struct rn_gid_watch_entry *a, const struct rn_gid_watch_entry *b)
{
	return a->port == b->port && a->type == b->type && !strcmp(a->dev, b->dev) &&
	       !strcmp(a->netdev, b->netdev) && rn_addr_equal(&a->addr, &b->addr);
}

static struct rn_gid_watch_port *port_counters(struct rn_gid_watch *w, const char *dev,
					       unsigned int port)
{
	struct rn_gid_watch_port *p;

	for (int i = 0; i < w->n_ports; i++)
		if (w->ports[i].port == port && !strcmp(w->ports[i].dev, dev))
			return &w->ports[i];
	p = realloc(w->ports, (size_t)(w->n_ports + 1) * sizeof(*p));
	if (!p)
		return NULL;
	w->ports = p;
	p = &p[w->n_ports++];
	memset(p, 0, sizeof(*p));
	memcpy(p->dev, dev, sizeof(p->dev));
	p->port = port;
	return p;
}

static int snapshot(const struct rn_rdma_model *m, struct rn_gid_watch_entry **out, int *n)
{
	int count = 0, k = 0;

	for (int i = 0; i < m->n_devs; i++)
		for (int p = 0; p < m->devs[i].n_ports; p++)
			count += m->devs[i].ports[p].n_gids;
	*out = calloc((size_t)count + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (int i = 0; i < m->n_devs; i++) {
		const struct rn_rdma_dev *d = &m->devs[i];

		for (int p = 0; p < d->n_ports; p++) {
			for (int g = 0; g < d->ports[p].n_gids; g++) {
				const struct rn_rdma_gid *gid = &d->ports[p].gids[g];
				struct rn_gid_watch_entry *e = &(*out)[k];

				if (!gid->addr.family)
					continue;
				memcpy(e->dev, d->name, sizeof(e->dev));
				e->port = d->ports[p].num;
				memcpy(e->netdev, gid->netdev, sizeof(e->netdev));
				e->type = gid->type;
				e->addr = gid->addr;
				e->index = gid->index;
				k++;
			}
		}
	}
	*n = k;
	return 0;
}

static const struct rn_gid_watch_entry *find(const struct rn_gid_watch_entry *ents, int n,
					     const struct rn_gid_watch_entry *key)
{
	for (int i = 0; i < n; i++)
		if (same_key(&ents[i], key))
			return &ents[i];
	return NULL;
}

static void forget_gone(struct rn_gid_watch *w, int i)
{
	memmove(&w->gone[i], &w->gone[i + 1], (size_t)(w->n_gone - i - 1) * sizeof(w->gone[0]));
	w->n_gone--;
}

/* The key of a removed entry, remembered with its index, oldest first;
 * the same key remembered before is forgotten, and the oldest once
 * RN_GID_WATCH_GONE are kept. */
static void remember_gone(struct rn_gid_watch *w, const struct rn_gid_watch_entry *e)
{
	for (int i = 0; i < w->n_gone; i++)
		if (same_key(&w->gone[i], e))
			forget_gone(w, i--);
	if (!w->gone && !(w->gone = calloc(RN_GID_WATCH_GONE, sizeof(*w->gone))))
		return;
	if (w->n_gone == RN_GID_WATCH_GONE)
		forget_gone(w, 0);
	w->gone[w->n_gone++] = *e;
}

/* The remembered entry of a key that is back, copied to *out and forgotten. */
static bool take_gone(struct rn_gid_watch *w, const struct rn_gid_watch_entry *key,
		      struct rn_gid_watch_entry *out)
{
	for (int i = 0; i < w->n_gone; i++) {
		if (!same_key(&w->gone[i], key))
			continue;
		*out = w->gone[i];
		forget_gone(w, i);
		return true;
	}
	return false;
}

static void moved(struct rn_gid_watch *w, const struct rn_gid_watch_entry *old,
		  const struct rn_gid_watch_entry *now, rn_gid_event_cb cb, void *arg)
{
	struct rn_gid_watch_port *pc = port_counters(w, now->dev, now->port);

	if (pc)
		pc->moved++;
	if (cb)
		cb(RN_GID_MOVED, old, now, arg);
}

int rn_gid_watch_update(struct rn_gid_watch *w, const struct rn_rdma_model *m,
			rn_gid_event_cb cb, void *arg)
{
	struct rn_gid_watch_entry *now;
	int n, err;

	err = snapshot(m, &now, &n);
	if (err)
		return err;
	for (int i = 0; w->primed && i < n; i++) {
		const struct rn_gid_watch_entry *old = find(w->ents, w->n, &now[i]);
		struct rn_gid_watch_entry went;

		if (old) {
			if (old->index != now[i].index)
				moved(w, old, &now[i], cb, arg);
		} else if (take_gone(w, &now[i], &went) && went.index != now[i].index) {
			moved(w, &went, &now[i], cb, arg);
		} else if (cb) {
			cb(RN_GID_ADDED, NULL, &now[i], arg);
		}
	}
	for (int i = 0; w->primed && i < w->n; i++) {
		struct rn_gid_watch_port *pc;

		if (find(now, n, &w->ents[i]))
			continue;
		pc = port_counters(w, w->ents[i].dev, w->ents[i].port);
		if (pc)
			pc->removed++;
		remember_gone(w, &w->ents[i]);
		if (cb)
			cb(RN_GID_REMOVED, &w->ents[i], NULL, arg);
	}
	/* ports seen get their counters, zero until something happens */
	for (int i = 0; i < m->n_devs; i++)
		for (int p = 0; p < m->devs[i].n_ports; p++)
			port_counters(w, m->devs[i].name, m->devs[i].ports[p].num);
	free(w->ents);
	w->ents = now;
	w->n = n;
	w->primed = true;
	return 0;
}

void rn_gid_watch_free(struct rn_gid_watch *w)
{
	free(w->ents);
	free(w->gone);
	free(w->ports);
	memset(w, 0, sizeof(*w));
}

struct rn_gid_watch *rn_gid_watch_agent(void)
{
	static struct rn_gid_watch agent;

	return &agent;
}

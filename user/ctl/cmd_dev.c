// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl dev [show] [DEV] [-s] [-j]
 * rdmanetctl dev netns [shared|exclusive]
 *
 * Every RDMA device with its ports, PCI and SR-IOV facts, node GUID and
 * character devices, and the system's RDMA netns mode (what `rdma dev`,
 * `rdma link`, `rdma system` and sysfs say, in one place). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "rdma/rdma.h"

static void print_pci(const struct rn_rdma_dev *d)
{
	const struct rn_rdma_pci *p = &d->pci;

	if (!d->is_pci) {
		printf("    %s device", rn_rdma_function_names[d->fn]);
		if (d->parent[0])
			printf(" on %s", d->parent);
		printf("\n");
		return;
	}
	printf("    pci %s %s:%s driver %s %s", p->addr, p->vendor, p->device,
	       p->driver[0] ? p->driver : "none", d->fn == RN_FN_VF ? "vf" : "pf");
	if (d->fn == RN_FN_VF) {
		printf(" of %s", p->physfn);
		if (p->vf_index >= 0)
			printf(" (vf %d)", p->vf_index);
	}
	if (p->sriov_totalvfs >= 0)
		printf(" sriov %d/%d", p->sriov_numvfs, p->sriov_totalvfs);
	printf("\n");
	if (p->n_vfs) {
		printf("    vfs");
		for (int i = 0; i < p->n_vfs; i++)
			printf(" %s", p->vfs[i]);
		printf("\n");
	}
}

static void print_port(const struct rn_rdma_port *p, bool stats)
{
	printf("    port %u %s %s", p->num, p->link_layer[0] ? p->link_layer : "?",
	       rn_port_state_names[p->state]);
	if (p->phys_state_name[0])
		printf(" %s", p->phys_state_name);
	printf(" netdev %s", p->netdev[0] ? p->netdev : "-");
	if (p->active_mtu)
		printf(" mtu %u/%u", p->active_mtu, p->max_mtu);
	if (p->rate[0])
		printf(" rate %s", p->rate);
	printf(" gids %d\n", p->n_gids);
	if (!stats || !p->counters_source)
		return;
	printf("      hw_counters (%s):", p->counters_source);
	for (int i = 0; i < p->n_counters; i++)
		printf("%s %s %llu", i % 4 ? "" : "\n       ", p->counters[i].name,
		       (unsigned long long)p->counters[i].value);
	printf("\n");
}

static void print_dev(const struct rn_rdma_dev *d, bool stats)
{
	if (d->in_netlink)
		printf("%u: ", d->index);
	printf("%s: node_type %s node_guid %s%s fw %s", d->name,
	       d->node_type[0] ? d->node_type : "?", d->node_guid[0] ? d->node_guid : "?",
	       rn_rdma_guid_is_zero(d->node_guid) ? " (zero!)" : "",
	       d->fw_ver[0] ? d->fw_ver : "?");
	if (d->driver[0])
		printf(" driver %s", d->driver);
	if (d->provider[0])
		printf(" provider %s", d->provider);
	printf("\n");
	print_pci(d);
	for (int i = 0; i < d->n_ports; i++)
		print_port(&d->ports[i], stats);
	if (d->n_chardevs) {
		printf("    chardevs");
		for (int i = 0; i < d->n_chardevs; i++)
			printf(" %s%s", d->chardevs[i].path,
			       d->chardevs[i].present ? "" : " (missing)");
		printf("\n");
	}
}

static void print_sources(const struct rn_rdma_model *m)
{
	printf("sources:%s%s%s\n", m->sources & RN_RDMA_SRC_SYSFS ? " sysfs" : "",
	       m->sources & RN_RDMA_SRC_NETLINK ? " netlink" : "",
	       m->sources & RN_RDMA_SRC_VERBS ? " verbs" : "");
	for (int i = 0; i < m->n_notes; i++)
		printf("note: %s\n", m->notes[i]);
}

/* The mode `dev netns MODE` asks for; before the config is read too. */
static int netns_mode_arg(const struct ctl_args *a, enum rn_netns_mode *mode)
{
	if (!strcmp(a->pos, "shared"))
		*mode = RN_NETNS_SHARED;
	else if (!strcmp(a->pos, "exclusive"))
		*mode = RN_NETNS_EXCLUSIVE;
	else
		return ctl_usage(a, "\"%s\": expected shared or exclusive", a->pos);
	return 0;
}

static int netns_check(const struct ctl_args *a)
{
	enum rn_netns_mode mode;

	return a->pos ? netns_mode_arg(a, &mode) : 0;
}

static int dev_netns(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_rdma_roots roots;
	struct rn_rdma_model m;
	struct rn_error e = { 0 };
	enum rn_netns_mode mode = RN_NETNS_UNKNOWN;
	int rc;

	if (a->pos) {
		rc = netns_mode_arg(a, &mode);
		if (rc)
			return rc;
		if (rn_rdma_netns_mode_set(mode, &e))
			return ctl_fail("%s", e.msg);
	}
	rn_rdma_config_roots(&ctl->cfg, &roots);
	if (rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_SYSFS | RN_RDMA_SRC_NETLINK, &e))
		return ctl_fail("%s", e.msg);
	if (ctl->json)
		ctl_print_json(ctl, json_pack("{s:o,s:o}", "netns_mode",
					      m.netns_mode == RN_NETNS_UNKNOWN ? json_null() :
					      json_string(rn_netns_mode_names[m.netns_mode]),
					      "source", m.netns_mode_source ?
					      json_string(m.netns_mode_source) : json_null()));
	else
		printf("netns %s\n", m.netns_mode == RN_NETNS_UNKNOWN ? "unknown" :
		       rn_netns_mode_names[m.netns_mode]);
	rn_rdma_model_free(&m);
	return 0;
}

static int dev_show(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_rdma_roots roots;
	struct rn_rdma_model m;
	struct rn_error e = { 0 };
	const char *dev = a->pos;
	bool stats = ctl_flag(a, "--stats");
	int found = 0;

	rn_rdma_config_roots(&ctl->cfg, &roots);
	if (rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_ALL | (stats ? RN_RDMA_SRC_COUNTERS : 0),
			       &e))
		return ctl_fail("%s", e.msg);
	if (dev && !rn_rdma_find_dev(&m, dev)) {
		rn_rdma_model_free(&m);
		return ctl_fail("dev: no RDMA device \"%s\"", dev);
	}
	if (ctl->json) {
		json_t *j = rn_rdma_model_json(&m, dev);

		ctl_print_json(ctl, j);
	} else {
		printf("netns %s\n", m.netns_mode == RN_NETNS_UNKNOWN ? "unknown" :
		       rn_netns_mode_names[m.netns_mode]);
		for (int i = 0; i < m.n_devs; i++) {
			if (dev && strcmp(dev, m.devs[i].name))
				continue;
			print_dev(&m.devs[i], stats);
			found++;
		}
		if (!found)
			printf("no RDMA devices\n");
		print_sources(&m);
	}
	rn_rdma_model_free(&m);
	return 0;
}

static const struct ctl_opt show_opts[] = {
	{ "--stats", "-s", NULL, "the ports' hardware counters too" },
	{ NULL },
};

const struct ctl_object ctl_obj_dev = {
	.name = "dev",
	.help = "RDMA devices: ports, PCI and SR-IOV facts, GUIDs, character devices",
	.default_verb = "show",
	.verbs = (const struct ctl_verb[]){
		{ "show", NULL, "[DEV]", show_opts, dev_show,
		  "every RDMA device (or DEV) and the system's RDMA netns mode" },
		{ "netns", NULL, "[shared|exclusive]", NULL, dev_netns,
		  "the RDMA netns mode; with an argument, set it first", .check = netns_check },
		{ .run = NULL },
	},
};

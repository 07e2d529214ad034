// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl pod add|del|show: register pod interfaces by hand, through the
 * same library calls the CNI plugin makes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "datapath/datapath.h"

static int copy_arg(const struct ctl_args *a, char *dst, size_t size, const char *opt)
{
	const char *val = ctl_arg(a, opt);

	if (!val)
		return 0;
	if (strlen(val) >= size)
		return ctl_usage(a, "%s: longer than %zu characters", opt, size - 1);
	memcpy(dst, val, strlen(val) + 1);
	return 0;
}

/* The spec from the options the verb's table allows (del has fewer). */
static int parse_spec(const struct ctl_args *a, struct rn_pod_spec *s)
{
	const char *v;

	memset(s, 0, sizeof(*s));
	s->dscp = -1;
	s->ip_keyed = ctl_flag(a, "--ip-keyed");
	if (copy_arg(a, s->ns, sizeof(s->ns), "--namespace") ||
	    copy_arg(a, s->name, sizeof(s->name), "--pod") ||
	    copy_arg(a, s->container_id, sizeof(s->container_id), "--container-id") ||
	    copy_arg(a, s->ifname, sizeof(s->ifname), "--ifname") ||
	    copy_arg(a, s->master, sizeof(s->master), "--master"))
		return CTL_EXIT_USAGE;
	v = ctl_arg(a, "--mac");
	if (v && rn_mac_parse(v, s->mac))
		return ctl_usage(a, "--mac: \"%s\" is not a MAC address", v);
	for (int i = 0; i < a->n; i++) {
		if (strcmp(a->v[i].opt->name, "--ip"))
			continue;
		if (s->n_ips >= RN_POD_MAX_IPS)
			return ctl_usage(a, "at most %d --ip", RN_POD_MAX_IPS);
		if (rn_addr_parse(a->v[i].val, &s->ips[s->n_ips]))
			return ctl_usage(a, "--ip: \"%s\" is not an IP address", a->v[i].val);
		s->n_ips++;
	}
	v = ctl_arg(a, "--dscp");
	if (v) {
		char *end;
		long d = strtol(v, &end, 0);

		if (*end || !*v || d < 0 || d > RN_DSCP_MAX)
			return ctl_usage(a, "--dscp: \"%s\" is not a DSCP value (0..%d)", v,
					 RN_DSCP_MAX);
		s->dscp = (int)d;
	}
	return 0;
}

/* before the config is read (ctl_verb.check) */
static int spec_check(const struct ctl_args *a)
{
	struct rn_pod_spec s;

	return parse_spec(a, &s);
}

static int pod_add(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_error e = { 0 };
	struct rn_pod_spec s;
	int rc = parse_spec(a, &s);

	if (rc)
		return rc;
	if (rn_registry_add(ctl->cfg.bpf.pin_dir, &s, &e))
		return ctl_fail("pod add: %s", e.msg);
	return 0;
}

static int pod_del(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_error e = { 0 };
	struct rn_pod_spec s;
	bool removed;
	int rc = parse_spec(a, &s);

	if (rc)
		return rc;
	if (rn_registry_del(ctl->cfg.bpf.pin_dir, s.container_id, s.ifname, &removed, &e))
		return ctl_fail("pod del: %s", e.msg);
	return 0;
}

static int pod_show(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_error e = { 0 };
	struct rn_stats s;
	json_t *all, *pod;
	size_t i;

	(void)a;
	if (rn_stats_load(ctl->cfg.bpf.pin_dir, &s, &e))
		return ctl_fail("%s", e.msg);
	all = rn_stats_json(&s, NULL, NULL);
	rn_stats_free(&s);
	if (ctl->json) {
		json_t *out = json_array();

		json_array_foreach(json_object_get(all, "pods"), i, pod) {
			json_t *o = json_object();
			const char *keys[] = { "namespace", "pod", "container_id", "ifname",
					       "master", "mac", "ips", "dscp", "keyed_by" };

			for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
				json_object_set(o, keys[k], json_object_get(pod, keys[k]));
			json_array_append_new(out, o);
		}
		ctl_print_json(ctl, out);
	} else {
		printf("%-32s %-10s %-10s %-17s %-14s %s\n", "POD", "IFNAME", "MASTER", "MAC",
		       "CONTAINER", "IPS");
		json_array_foreach(json_object_get(all, "pods"), i, pod) {
			char name[300];
			json_t *ip;
			size_t k;

			snprintf(name, sizeof(name), "%s/%s",
				 json_string_value(json_object_get(pod, "namespace")),
				 json_string_value(json_object_get(pod, "pod")));
			printf("%-32s %-10s %-10s %-17s %-14.12s", name,
			       json_string_value(json_object_get(pod, "ifname")),
			       json_string_value(json_object_get(pod, "master")),
			       json_string_value(json_object_get(pod, "mac")),
			       json_string_value(json_object_get(pod, "container_id")));
			json_array_foreach(json_object_get(pod, "ips"), k, ip)
				printf(" %s", json_string_value(ip));
			printf("\n");
		}
	}
	json_decref(all);
	return 0;
}

static const struct ctl_opt add_opts[] = {
	{ "--namespace", NULL, "NS", "the pod's namespace", true },
	{ "--pod", NULL, "NAME", "the pod's name", true },
	{ "--container-id", NULL, "ID", "the sandbox's container ID" },
	{ "--ifname", NULL, "IF", "the interface's name inside the pod" },
	{ "--master", NULL, "IF", "the attached master the pod's traffic uses" },
	{ "--mac", NULL, "MAC", "the pod interface's MAC address" },
	{ "--ip", NULL, "ADDR", "an address of the pod (repeatable)" },
	{ "--dscp", NULL, "0..63", "the DSCP the pod's RoCE traffic is marked with" },
	{ "--ip-keyed", NULL, NULL, "key the pod by its IP addresses, not its MAC" },
	{ NULL },
};

static const struct ctl_opt del_opts[] = {
	{ "--container-id", NULL, "ID", "the sandbox's container ID", true },
	{ "--ifname", NULL, "IF", "the interface's name inside the pod", true },
	{ "--namespace", NULL, "NS", "accepted, not needed" },
	{ "--pod", NULL, "NAME", "accepted, not needed" },
	{ "--ip-keyed", NULL, NULL, "accepted, not needed" },
	{ NULL },
};

const struct ctl_object ctl_obj_pod = {
	.name = "pod",
	.help = "pod interfaces the data path knows, registered by the CNI plugin or by hand",
	.default_verb = "show",
	.verbs = (const struct ctl_verb[]){
		{ "add", NULL, NULL, add_opts, pod_add,
		  "register (or update) a pod interface, as the CNI plugin does",
		  .check = spec_check },
		{ "del", "delete", NULL, del_opts, pod_del,
		  "unregister a pod interface (nothing to do is fine)", .check = spec_check },
		{ "show", "list", NULL, NULL, pod_show, "the registered pod interfaces" },
		{ .run = NULL },
	},
};

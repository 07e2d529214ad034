// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl pod add|del|show: register pod interfaces by hand, through the
 * same library calls the CNI plugin makes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "datapath/datapath.h"

static int copy_arg(char *dst, size_t size, const char *val, const char *opt)
{
	if (strlen(val) >= size)
		return ctl_fail("pod: %s: longer than %zu characters", opt, size - 1);
	memcpy(dst, val, strlen(val) + 1);
	return 0;
}

static int parse_spec(int argc, char **argv, struct rn_pod_spec *s, int need_all)
{
	memset(s, 0, sizeof(*s));
	s->dscp = -1;
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int err = 0;

		if (!strcmp(o, "--ip-keyed")) {
			s->ip_keyed = true;
			continue;
		}
		if (!v)
			return ctl_fail("pod: %s needs a value", o);
		i++;
		if (!strcmp(o, "--namespace"))
			err = copy_arg(s->ns, sizeof(s->ns), v, o);
		else if (!strcmp(o, "--pod"))
			err = copy_arg(s->name, sizeof(s->name), v, o);
		else if (!strcmp(o, "--container-id"))
			err = copy_arg(s->container_id, sizeof(s->container_id), v, o);
		else if (!strcmp(o, "--ifname"))
			err = copy_arg(s->ifname, sizeof(s->ifname), v, o);
		else if (!strcmp(o, "--master") && need_all)
			err = copy_arg(s->master, sizeof(s->master), v, o);
		else if (!strcmp(o, "--mac") && need_all) {
			if (rn_mac_parse(v, s->mac))
				return ctl_fail("pod: --mac: \"%s\" is not a MAC address", v);
		} else if (!strcmp(o, "--ip") && need_all) {
			if (s->n_ips >= RN_POD_MAX_IPS)
				return ctl_fail("pod: at most %d --ip", RN_POD_MAX_IPS);
			if (rn_addr_parse(v, &s->ips[s->n_ips]))
				return ctl_fail("pod: --ip: \"%s\" is not an IP address", v);
			s->n_ips++;
		} else if (!strcmp(o, "--dscp") && need_all) {
			char *end;
			long d = strtol(v, &end, 0);

			if (*end || !*v || d < 0 || d > RN_DSCP_MAX)
				return ctl_fail("pod: --dscp: \"%s\" is not a DSCP value (0..%d)", v,
						RN_DSCP_MAX);
			s->dscp = (int)d;
		} else {
			return ctl_fail("pod %s: unexpected argument \"%s\"", argv[1], o);
		}
		if (err)
			return err;
	}
	return 0;
}

static int pod_add(struct ctl *ctl, int argc, char **argv)
{
	struct rn_error e = { 0 };
	struct rn_pod_spec s;

	if (parse_spec(argc, argv, &s, 1))
		return 1;
	if (!s.ns[0] || !s.name[0])
		return ctl_fail("pod add: --namespace and --pod are required");
	if (rn_registry_add(ctl->cfg.bpf.pin_dir, &s, &e))
		return ctl_fail("pod add: %s", e.msg);
	return 0;
}

static int pod_del(struct ctl *ctl, int argc, char **argv)
{
	struct rn_error e = { 0 };
	struct rn_pod_spec s;
	bool removed;

	if (parse_spec(argc, argv, &s, 0))
		return 1;
	if (!s.container_id[0] || !s.ifname[0])
		return ctl_fail("pod del: --container-id and --ifname are required");
	if (rn_registry_del(ctl->cfg.bpf.pin_dir, s.container_id, s.ifname, &removed, &e))
		return ctl_fail("pod del: %s", e.msg);
	return 0;
}

static int pod_show(struct ctl *ctl, int argc, char **argv)
{
	struct rn_error e = { 0 };
	struct rn_stats s;
	json_t *all, *pod;
	size_t i;

	for (int a = 2; a < argc; a++)
		if (!ctl_common_opt(ctl, argv[a]))
			return ctl_fail("pod show: unexpected argument \"%s\"", argv[a]);
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

int cmd_pod(struct ctl *ctl, int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "show") || !strcmp(argv[1], "list"))
		return pod_show(ctl, argc < 2 ? 2 : argc, argv);
	if (!strcmp(argv[1], "add"))
		return pod_add(ctl, argc, argv);
	if (!strcmp(argv[1], "del") || !strcmp(argv[1], "delete"))
		return pod_del(ctl, argc, argv);
	if (ctl_common_opt(ctl, argv[1]))
		return pod_show(ctl, argc, argv);
	return ctl_fail("pod: unknown verb \"%s\" (add, del, show)", argv[1]);
}

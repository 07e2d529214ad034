// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: the CNI plugin's parsers on arbitrary bytes — the plugin
 * configuration from stdin, the prevResult in it, and the result built on
 * top of that prevResult for a made-up attachment (what a chained ADD
 * does). Nothing may crash, leak or read past the input; a rejected input
 * must carry an error code and message; an accepted one must give a result
 * that names the attachment's interface. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "user/cni/cni_error.c"
#include "user/cni/cni_version.c"
#include "user/cni/netconf.c"
#include "user/cni/prev_result.c"
#include "user/cni/result.c"
#include "user/cni/route_plan.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void attachment(struct cni_attachment *a, const struct cni_netconf *c)
{
	memset(a, 0, sizeof(*a));
	strcpy(a->ifname, "net1");
	a->sandbox = "/run/netns/fuzz";
	a->mtu = 1500;
	a->table = c->policy.enabled ? c->policy.table_base : 0;
	rn_prefix_parse("10.81.0.10/24", &a->addrs[0].address, false);
	a->addrs[0].has_gateway = true;
	rn_addr_parse("10.81.0.254", &a->addrs[0].gateway);
	rn_prefix_parse("fd81::10/64", &a->addrs[1].address, false);
	a->n_addrs = 2;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_err err = { 0 };
	struct cni_attachment a;
	struct cni_netconf c;
	struct cni_prev *prev;
	json_t *res;

	if (cni_netconf_parse(&c, (const char *)data, size, &err)) {
		if (!err.code || !err.msg[0])
			abort();	/* a rejection must say why */
		cni_netconf_free(&c);
		return 0;
	}
	prev = calloc(1, sizeof(*prev));
	if (prev && c.prev_result && cni_prev_parse(c.prev_result, prev, &err) &&
	    (err.code != CNI_ERR_CONFIG || !err.msg[0]))
		abort();
	free(prev);
	memset(&err, 0, sizeof(err));
	attachment(&a, &c);
	if (!cni_plan_routes(&c, &a, &err)) {
		res = cni_result_build(&c, &a, &err);
		if (res) {
			json_t *ifs = json_object_get(res, "interfaces");
			json_t *last = json_array_get(ifs, json_array_size(ifs) - 1);

			if (strcmp(json_string_value(json_object_get(last, "name")), "net1"))
				abort();
			free(json_dumps(res, 0));
			json_decref(res);
		} else if (!err.code) {
			abort();
		}
	}
	cni_netconf_free(&c);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ipam/ipam_json.h"

const char *rn_ipam_time_format(int64_t t, char buf[RN_IPAM_TIME_STRLEN])
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, RN_IPAM_TIME_STRLEN, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, RN_IPAM_TIME_STRLEN, "%lld", (long long)t);
	return buf;
}

json_t *rn_ipam_allocation_to_json(const struct rn_ipam_allocation *a)
{
	char ip[RN_ADDR_STRLEN], t[RN_IPAM_TIME_STRLEN];

	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
			 "pool", a->pool,
			 "ip", rn_addr_format(&a->addr, ip),
			 "container_id", a->container_id,
			 "ifname", a->ifname,
			 "namespace", a->pod_namespace,
			 "pod", a->pod_name,
			 "node", a->node,
			 "created", rn_ipam_time_format(a->created, t));
}

json_t *rn_ipam_pool_info_to_json(const struct rn_ipam_pool_info *p)
{
	json_t *o = rn_pool_to_json(&p->pool);
	unsigned long long free_n = p->total >= p->allocated ? p->total - p->allocated : 0;

	json_object_set_new(o, "total", json_integer((json_int_t)(p->total > INT64_MAX ?
								   INT64_MAX : p->total)));
	json_object_set_new(o, "allocated", json_integer((json_int_t)p->allocated));
	json_object_set_new(o, "free", json_integer((json_int_t)(free_n > INT64_MAX ?
								  INT64_MAX : free_n)));
	json_object_set_new(o, "from_config", json_boolean(p->from_config));
	return o;
}

int rn_ipam_owners_from_json(json_t *v, struct rn_ipam_owner **out, size_t *n,
			     struct rn_error *e)
{
	json_t *arr = v, *item;
	size_t i;

	*out = NULL;
	*n = 0;
	if (json_is_object(v)) {
		arr = json_object_get(v, "cni.dev/valid-attachments");
		if (!arr)
			arr = json_object_get(v, "cni.dev/attachments");
		if (!arr)
			return rn_fail(e, -EINVAL, "valid attachments: expected an array or an "
				       "object with \"cni.dev/valid-attachments\"");
	}
	if (!json_is_array(arr))
		return rn_fail(e, -EINVAL, "valid attachments: expected an array of "
			       "{\"containerID\", \"ifname\"} objects");
	*out = calloc(json_array_size(arr) + 1, sizeof(**out));
	if (!*out)
		return rn_fail(e, -ENOMEM, "valid attachments: out of memory");
	json_array_foreach(arr, i, item) {
		const char *cid = json_string_value(json_object_get(item, "containerID"));
		const char *ifn = json_string_value(json_object_get(item, "ifname"));

		if (!json_is_object(item) || !cid || !cid[0] || !ifn || !ifn[0]) {
			free(*out);
			*out = NULL;
			return rn_fail(e, -EINVAL, "valid attachments[%zu]: expected an object "
				       "with string \"containerID\" and \"ifname\"", i);
		}
		(*out)[i].container_id = cid;
		(*out)[i].ifname = ifn;
	}
	*n = json_array_size(arr);
	return 0;
}

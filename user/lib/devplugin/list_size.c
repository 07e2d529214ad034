// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The size of a ListAndWatch message, computed as protobuf encodes it,
 * because kubelet's gRPC client takes at most 4 MiB per message: a bigger
 * list ends the stream with RESOURCE_EXHAUSTED, which the plugin never
 * hears. rdmaHcaMax is refused at config time when even the smallest list
 * it makes (every device Healthy, no NUMA node) would not fit, and a view
 * whose real list (health, NUMA nodes) would not is refused with the limit
 * in its reason (view.c), so kubelet is never sent what it cannot take. */
#include <stdio.h>
#include <string.h>

#include "devplugin/devplugin.h"

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* a length-delimited field: tag, length, bytes (proto3 leaves "" out) */
static size_t field_len(size_t len)
{
	return 1 + varint_len(len) + len;
}

static size_t device_bytes(size_t id_len, bool healthy, uint64_t numa)
{
	size_t n = (id_len ? field_len(id_len) : 0) + field_len(healthy ? 7 : 9), topo = 0;

	if (numa) {
		/* TopologyInfo{ nodes: NUMANode{ID} }; ID 0 is the default, left out */
		for (int b = 0; b < 64; b++)
			if (numa >> b & 1)
				topo += field_len(b ? 1 + varint_len((uint64_t)b) : 0);
		n += field_len(topo);
	}
	return field_len(n);	/* one element of ListAndWatchResponse.devices */
}

size_t rn_dp_list_bytes(const struct rn_dp_view *v, int *fit)
{
	size_t total = 0;

	*fit = 0;
	for (int i = 0; i < v->n_units; i++) {
		const struct rn_dp_unit *u = &v->units[i];

		total += device_bytes(strlen(u->id), rn_dp_unit_healthy(v, u),
				      rn_dp_unit_numa(v, u));
		if (total <= RN_DP_KUBELET_MSG_MAX)
			*fit = i + 1;
	}
	return total;
}

long long rn_dp_shared_units_fit(long long max)
{
	char id[64];
	size_t total = 0;

	for (long long i = 0; i < max; i++) {
		/* the smallest device rdmaHcaMax makes: Healthy, no NUMA node */
		total += device_bytes((size_t)snprintf(id, sizeof(id), "shared-%lld", i), true, 0);
		if (total > RN_DP_KUBELET_MSG_MAX)
			return i;
	}
	return max;
}

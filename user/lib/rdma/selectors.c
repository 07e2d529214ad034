// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json_fields.h"
#include "rdma/selectors.h"

enum sel_kind { SEL_VENDORS, SEL_DEVICE_IDS, SEL_DRIVERS, SEL_IF_NAMES, SEL_LINK_TYPES, SEL_MAX };

static const char *const sel_keys[SEL_MAX + 1] = { "vendors", "deviceIDs", "drivers", "ifNames",
						   "linkTypes", NULL };
/* the singular the explanation uses */
static const char *const sel_what[SEL_MAX] = { "vendor", "deviceID", "driver", "ifName",
					       "linkType" };

struct sel_list {
	char *base;
	size_t width;
	int *n;
};

static struct sel_list list_of(const struct rn_rdma_selectors *cs, enum sel_kind k)
{
	struct rn_rdma_selectors *s = (struct rn_rdma_selectors *)cs;

	switch (k) {
	case SEL_VENDORS: return (struct sel_list){ s->vendors[0], sizeof(s->vendors[0]),
						    &s->n_vendors };
	case SEL_DEVICE_IDS: return (struct sel_list){ s->device_ids[0], sizeof(s->device_ids[0]),
						       &s->n_device_ids };
	case SEL_DRIVERS: return (struct sel_list){ s->drivers[0], sizeof(s->drivers[0]),
						    &s->n_drivers };
	case SEL_IF_NAMES: return (struct sel_list){ s->if_names[0], sizeof(s->if_names[0]),
						     &s->n_if_names };
	default: return (struct sel_list){ s->link_types[0], sizeof(s->link_types[0]),
					   &s->n_link_types };
	}
}

static bool is_pci_id(const char *v)
{
	if (strlen(v) != 4)
		return false;
	for (; *v; v++)
		if (!isdigit((unsigned char)*v) && !(*v >= 'a' && *v <= 'f'))
			return false;
	return true;
}

static int check_value(enum sel_kind k, const char *v, const char *where, size_t i,
		       struct rn_error *e)
{
	const char *key = sel_keys[k];

	switch (k) {
	case SEL_VENDORS:
	case SEL_DEVICE_IDS:
		if (!is_pci_id(v))
			return rn_fail(e, -EINVAL, "%s.%s[%zu]: \"%s\": expected 4 lowercase hex "
				       "digits as in sysfs, like \"%s\"", where, key, i, v,
				       k == SEL_VENDORS ? "15b3" : "1017");
		return 0;
	case SEL_LINK_TYPES:
		if (strcmp(v, "ether") && strcmp(v, "infiniband"))
			return rn_fail(e, -EINVAL, "%s.%s[%zu]: \"%s\": expected ether or "
				       "infiniband", where, key, i, v);
		return 0;
	default:
		if (!v[0] || strchr(v, '/') || isspace((unsigned char)v[0]))
			return rn_fail(e, -EINVAL, "%s.%s[%zu]: \"%s\" is not a valid name", where,
				       key, i, v);
		return 0;
	}
}

int rn_selectors_parse(json_t *obj, struct rn_rdma_selectors *s, const char *where,
		       struct rn_error *e)
{
	memset(s, 0, sizeof(*s));
	if (!obj)
		return 0;
	if (!json_is_object(obj))
		return rn_fail(e, -EINVAL, "%s: expected an object", where);
	if (rn_json_only_keys(obj, sel_keys, where, e))
		return -EINVAL;
	for (int k = 0; k < SEL_MAX; k++) {
		struct sel_list l = list_of(s, (enum sel_kind)k);
		json_t *arr, *v;
		size_t i;

		if (rn_json_typed(obj, sel_keys[k], JSON_ARRAY, &arr, where, e))
			return -EINVAL;
		if (json_array_size(arr) > RN_SEL_MAX)
			return rn_fail(e, -EINVAL, "%s.%s: more than %d entries", where,
				       sel_keys[k], RN_SEL_MAX);
		json_array_foreach(arr, i, v) {
			const char *str = json_string_value(v);

			if (!json_is_string(v))
				return rn_fail(e, -EINVAL, "%s.%s[%zu]: expected a string", where,
					       sel_keys[k], i);
			if (strlen(str) >= l.width)
				return rn_fail(e, -EINVAL, "%s.%s[%zu]: longer than %zu characters",
					       where, sel_keys[k], i, l.width - 1);
			if (check_value((enum sel_kind)k, str, where, i, e))
				return -EINVAL;
			strcpy(l.base + (size_t)(*l.n)++ * l.width, str);
		}
	}
	return 0;
}

bool rn_selectors_empty(const struct rn_rdma_selectors *s)
{
	return !s->n_vendors && !s->n_device_ids && !s->n_drivers && !s->n_if_names &&
	       !s->n_link_types;
}

static bool in_list(struct sel_list l, const char *v)
{
	for (int i = 0; i < *l.n; i++)
		if (!strcmp(l.base + (size_t)i * l.width, v))
			return true;
	return false;
}

static const char *link_type_of(const struct rn_rdma_port *p)
{
	if (!strcmp(p->link_layer, "Ethernet"))
		return "ether";
	if (!strcmp(p->link_layer, "InfiniBand"))
		return "infiniband";
	return "";
}

/* The device's value(s) for a selector; ifNames and linkTypes are per port,
 * and one matching port is enough. */
static bool kind_matches(const struct rn_rdma_selectors *s, enum sel_kind k,
			 const struct rn_rdma_dev *d)
{
	struct sel_list l = list_of(s, k);

	if (!*l.n)
		return true;
	switch (k) {
	case SEL_VENDORS: return in_list(l, d->pci.vendor);
	case SEL_DEVICE_IDS: return in_list(l, d->pci.device);
	case SEL_DRIVERS: return in_list(l, d->driver);
	case SEL_IF_NAMES:
		for (int p = 0; p < d->n_ports; p++)
			if (d->ports[p].netdev[0] && in_list(l, d->ports[p].netdev))
				return true;
		return false;
	default:
		for (int p = 0; p < d->n_ports; p++)
			if (in_list(l, link_type_of(&d->ports[p])))
				return true;
		return false;
	}
}

bool rn_selectors_match(const struct rn_rdma_selectors *s, const struct rn_rdma_dev *d)
{
	for (int k = 0; k < SEL_MAX; k++)
		if (!kind_matches(s, (enum sel_kind)k, d))
			return false;
	return true;
}

void rn_selectors_explain(const struct rn_rdma_selectors *s, const struct rn_rdma_dev *d,
			  char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int k = 0; k < SEL_MAX; k++) {
		struct sel_list l = list_of(s, (enum sel_kind)k);
		const char *have = "";

		if (kind_matches(s, (enum sel_kind)k, d))
			continue;
		switch (k) {
		case SEL_VENDORS: have = d->pci.vendor; break;
		case SEL_DEVICE_IDS: have = d->pci.device; break;
		case SEL_DRIVERS: have = d->driver; break;
		case SEL_IF_NAMES: have = d->n_ports ? d->ports[0].netdev : ""; break;
		default: have = d->n_ports ? link_type_of(&d->ports[0]) : ""; break;
		}
		off += (size_t)snprintf(buf + off, off < size ? size - off : 0, "%s%s %s not in [",
					off ? ", " : "", sel_what[k], have[0] ? have : "(none)");
		for (int i = 0; i < *l.n; i++)
			off += (size_t)snprintf(buf + off, off < size ? size - off : 0, "%s%s",
						i ? " " : "", l.base + (size_t)i * l.width);
		off += (size_t)snprintf(buf + off, off < size ? size - off : 0, "]");
	}
}

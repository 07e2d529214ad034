// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "doctor/doctor.h"

const char *const rn_check_status_names[3] = { "pass", "warn", "fail" };

static const struct {
	const char *name;
	void (*run)(const struct rn_doctor_facts *f, struct rn_check *c);
} checks[RN_DOCTOR_CHECKS] = {
	{ "modules", rn_check_modules },
	{ "rdma-core", rn_check_rdma_core },
	{ "devices", rn_check_devices },
	{ "selectors", rn_check_selectors },
	{ "link-layer", rn_check_link_layer },
	{ "port-state", rn_check_port_state },
	{ "netns-mode", rn_check_netns_mode },
	{ "pod-gids", rn_check_pod_gids },
	{ "vf-guids", rn_check_vf_guids },
	{ "bpffs", rn_check_bpffs },
	{ "datapath", rn_check_datapath },
	{ "mtu", rn_check_mtu },
	{ "vf-holds", rn_check_vf_holds },
};

void rn_check_set(struct rn_check *c, enum rn_check_status s, const char *fmt, ...)
{
	va_list ap;

	c->status = s;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

void rn_check_fix(struct rn_check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->fix, sizeof(c->fix), fmt, ap);
	va_end(ap);
}

static void append(char *buf, size_t size, const char *fmt, va_list ap)
{
	size_t len = strlen(buf);

	if (len && len + 2 < size) {
		memcpy(buf + len, "; ", 3);
		len += 2;
	}
	vsnprintf(buf + len, size - len, fmt, ap);
}

void rn_check_add(struct rn_check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	append(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

void rn_check_fix_add(struct rn_check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	append(c->fix, sizeof(c->fix), fmt, ap);
	va_end(ap);
}

static bool is_master(const struct rn_doctor_facts *f, const char *ifname)
{
	for (int i = 0; i < f->n_masters; i++)
		if (!strcmp(f->masters[i], ifname))
			return true;
	return false;
}

bool rn_doctor_port_relevant(const struct rn_doctor_facts *f, const struct rn_rdma_dev *d,
			     const struct rn_rdma_port *p)
{
	bool master = p->netdev[0] && is_master(f, p->netdev);

	if (f->masters_configured)
		return master;
	if (d->fn == RN_FN_VF && !master)
		return false;
	return rn_selectors_match(&f->rdma->selectors, d);
}

void rn_doctor_run(const struct rn_doctor_facts *f, struct rn_doctor_report *r)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < RN_DOCTOR_CHECKS; i++) {
		struct rn_check *c = &r->checks[r->n++];

		c->name = checks[i].name;
		checks[i].run(f, c);
		r->failed += c->status == RN_CHECK_FAIL;
		r->warned += c->status == RN_CHECK_WARN;
	}
}

const struct rn_check *rn_doctor_find(const struct rn_doctor_report *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->checks[i].name, name))
			return &r->checks[i];
	return NULL;
}

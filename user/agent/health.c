// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "health.h"
#include "log.h"
#include "version.h"

/* Why the node is not ready, or NULL */
static json_t *device_plugin(const struct rn_health *h, json_t *reasons)
{
	struct rn_dp_health d;

	if (!h->dp_wanted)
		return json_null();
	if (!h->dp) {
		json_array_append_new(reasons, json_string("the device plugin is not running"));
		return json_null();
	}
	rn_dp_health(h->dp, &d);
	if (d.beat_age_ms < 0)
		json_array_append_new(reasons, json_string("the device plugin is starting"));
	else if (d.registered < d.resources - d.unservable)
		json_array_append_new(reasons, json_sprintf("device plugin: %d of %d resources "
			"registered with kubelet", d.registered, d.resources - d.unservable));
	return json_pack("{s:i, s:i, s:i, s:i, s:I}", "resources", d.resources,
			 "unservable", d.unservable, "served", d.served, "registered", d.registered,
			 "beat_age_ms", (json_int_t)d.beat_age_ms);
}

static json_t *dra_slices(const struct rn_dra_slices_health *s)
{
	if (!s->enabled)
		return json_pack("{s:b}", "enabled", 0);
	return json_pack("{s:b, s:i, s:i, s:I, s:I, s:I, s:s}", "enabled", 1,
			 "slices", s->slices, "devices", s->devices,
			 "publishes", (json_int_t)s->publishes, "failures", (json_int_t)s->failures,
			 "since_ok_s", (json_int_t)s->since_ok_s, "last_error", s->last_error);
}

/* The DRA driver: not ready until kubelet registered it (pods with claims
 * would not start on this node) */
static json_t *dra(const struct rn_health *h, json_t *reasons)
{
	struct rn_dra_health d;

	if (!h->dra_wanted)
		return json_null();
	if (!h->dra) {
		json_array_append_new(reasons, json_string("the DRA driver is not running"));
		return json_null();
	}
	rn_dra_health(h->dra, &d);
	if (d.beat_age_ms < 0)
		json_array_append_new(reasons, json_string("the DRA driver is starting"));
	else if (!d.registered)
		json_array_append_new(reasons, json_sprintf("DRA driver %s: not registered with "
			"kubelet", d.driver));
	return json_pack("{s:s, s:b, s:i, s:I, s:o}", "driver", d.driver,
			 "registered", d.registered, "prepared_claims", d.prepared,
			 "beat_age_ms", (json_int_t)d.beat_age_ms, "slices", dra_slices(&d.slices));
}

void rn_health_write(const char *path, const struct rn_health *h)
{
	static int last_errno;
	char tmp[4096];
	json_t *reasons = json_array(), *o, *dp, *dr;
	int err = 0;

	if (h->masters_attached < h->masters_wanted)
		json_array_append_new(reasons, json_sprintf("%d of %d masters attached",
			h->masters_attached, h->masters_wanted));
	/* the reasons in this order: masters, device plugin, DRA */
	dp = device_plugin(h, reasons);
	dr = dra(h, reasons);
	o = json_pack("{s:s, s:s, s:i, s:{s:i, s:i}, s:o, s:o}", "version", rn_version,
		      "commit", rn_commit, "pid", (int)getpid(),
		      "masters", "wanted", h->masters_wanted, "attached", h->masters_attached,
		      "device_plugin", dp, "dra", dr);
	json_object_set_new(o, "ready", json_boolean(json_array_size(reasons) == 0));
	json_object_set_new(o, "not_ready_because", reasons);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		err = ENAMETOOLONG;
	else if (json_dump_file(o, tmp, JSON_COMPACT) || rename(tmp, path))
		err = errno ? errno : EIO;
	json_decref(o);
	if (err && err != last_errno)
		rn_warn("health file %s: %s (the probes will fail)", path, strerror(err));
	else if (!err && last_errno)
		rn_info("health file %s: written again", path);
	last_errno = err;
}

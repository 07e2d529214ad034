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

void rn_health_write(const char *path, const struct rn_health *h)
{
	static int last_errno;
	char tmp[4096];
	json_t *reasons = json_array(), *o;
	int err = 0;

	if (h->masters_attached < h->masters_wanted)
		json_array_append_new(reasons, json_sprintf("%d of %d masters attached",
			h->masters_attached, h->masters_wanted));
	o = json_pack("{s:s, s:s, s:i, s:{s:i, s:i}, s:o}", "version", rn_version,
		      "commit", rn_commit, "pid", (int)getpid(),
		      "masters", "wanted", h->masters_wanted, "attached", h->masters_attached,
		      "device_plugin", device_plugin(h, reasons));
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

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl health [--health-file FILE] [--max-age S] [--ready] [-j]: the
 * agent's health file read as the DaemonSet's probes read it. Alive: the
 * file was rewritten within S seconds (the main loop beats every 5 s) and
 * the device plugin's thread beat within S seconds when it rewrote it.
 * With --ready also ready: every master attached, every device-plugin
 * resource registered and the DRA driver (when configured) registered, as
 * the agent saw them. Exit 0, or 1 with the reason
 * on stderr. Never reads the node config: a config the agent refused must
 * not fail the probes of an agent that keeps running the last good one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "ctl.h"

static int health_check(struct ctl *ctl, const struct ctl_args *a)
{
	const char *path = ctl_arg(a, "--health-file") ?: RN_DEFAULT_HEALTH_FILE;
	const char *max_age_text = ctl_arg(a, "--max-age");
	double max_age = 30, age;
	bool ready = ctl_flag(a, "--ready");
	json_t *h, *dp, *why;
	json_error_t jerr;
	struct timespec now;
	struct stat st;
	char *end;

	if (max_age_text) {
		max_age = strtod(max_age_text, &end);
		if (*end || end == max_age_text || max_age <= 0)
			return ctl_usage(a, "--max-age \"%s\" is not a number of seconds > 0",
					 max_age_text);
	}
	if (stat(path, &st))
		return ctl_fail("health: %s: %s (is rdmanetd running with --health-file?)", path,
				strerror(errno));
	clock_gettime(CLOCK_REALTIME, &now);
	age = (double)(now.tv_sec - st.st_mtim.tv_sec) +
	      (double)(now.tv_nsec - st.st_mtim.tv_nsec) / 1e9;
	h = json_load_file(path, 0, &jerr);
	if (!json_is_object(h))
		return ctl_fail("health: %s: %s", path, jerr.text);
	json_object_set_new(h, "age_s", json_real(age));
	if (ctl->json)
		ctl_print_json(ctl, json_incref(h));
	if (age > max_age)
		return ctl_fail("health: not alive: the agent's main loop last beat %.0f s ago "
				"(limit %.0f s)", age, max_age);
	dp = json_object_get(h, "device_plugin");
	if (json_is_object(dp) &&
	    json_integer_value(json_object_get(dp, "beat_age_ms")) > max_age * 1000)
		return ctl_fail("health: not alive: the device plugin's thread last beat %lld ms "
				"before the agent wrote its health",
				(long long)json_integer_value(json_object_get(dp, "beat_age_ms")));
	why = json_object_get(h, "not_ready_because");
	if (ready && !json_is_true(json_object_get(h, "ready")))
		return ctl_fail("health: alive, not ready: %s", json_array_size(why) ?
				json_string_value(json_array_get(why, 0)) : "(no reason given)");
	if (!ctl->json)
		printf("alive (beat %.1f s ago)%s, %s\n", age,
		       json_is_true(json_object_get(h, "ready")) ? ", ready" : "",
		       json_string_value(json_object_get(h, "version")));
	return 0;
}

static const struct ctl_opt health_opts[] = {
	{ "--health-file", NULL, "FILE", "the agent's health file (default "
	  RN_DEFAULT_HEALTH_FILE ")" },
	{ "--max-age", NULL, "S", "alive if rewritten within S seconds (default 30)" },
	{ "--ready", NULL, NULL, "ready too: every master attached, every resource and the DRA driver "
	  "registered" },
	{ NULL },
};

const struct ctl_object ctl_obj_health = {
	.name = "health",
	.help = "the agent's liveness and readiness, as the DaemonSet's probes see them",
	.no_config = true,
	.verbs = (const struct ctl_verb[]){
		{ .opts = health_opts, .run = health_check,
		  .help = "exit 0 if the agent is alive (and ready with --ready), else 1 and "
			  "why; never reads the node config" },
		{ .run = NULL },
	},
};

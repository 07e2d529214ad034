// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl health [--health-file FILE] [--max-age S] [--ready] [-j]: the
 * agent's health file read as the DaemonSet's probes read it. Alive: the
 * file was rewritten within S seconds (the main loop beats every 5 s) and
 * the device plugin's thread beat within S seconds when it rewrote it.
 * With --ready also ready: every master attached and every device-plugin
 * resource registered, as the agent saw them. Exit 0, or 1 with the reason
 * on stderr. Never reads the node config: a config the agent refused must
 * not fail the probes of an agent that keeps running the last good one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "ctl.h"

int cmd_health(struct ctl *ctl, int argc, char **argv)
{
	const char *path = RN_DEFAULT_HEALTH_FILE;
	double max_age = 30, age;
	bool ready = false;
	json_t *h, *dp, *why;
	json_error_t jerr;
	struct timespec now;
	struct stat st;
	char *end;

	for (int i = 1; i < argc; i++) {
		if (ctl_common_opt(ctl, argv[i]))
			continue;
		if (!strcmp(argv[i], "--health-file") && i + 1 < argc) {
			path = argv[++i];
		} else if (!strcmp(argv[i], "--max-age") && i + 1 < argc) {
			max_age = strtod(argv[++i], &end);
			if (*end || end == argv[i] || max_age <= 0)
				return ctl_fail("health: --max-age \"%s\" is not a number of seconds > 0",
						argv[i]);
		} else if (!strcmp(argv[i], "--ready")) {
			ready = true;
		} else {
			return ctl_fail("health: unexpected argument \"%s\"", argv[i]);
		}
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

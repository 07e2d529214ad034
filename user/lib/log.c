// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

static const char *log_prog = "rdmanet";
static enum rn_log_level log_level = RN_LOG_WARN;

void rn_log_init(const char *prog, enum rn_log_level level)
{
	const char *slash = strrchr(prog, '/');

	log_prog = slash ? slash + 1 : prog;
	log_level = level;
}

void rn_log_set_level(enum rn_log_level level)
{
	log_level = level;
}

enum rn_log_level rn_log_level(void)
{
	return log_level;
}

void rn_vlog(enum rn_log_level level, const char *fmt, va_list ap)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	char line[1024];
	size_t n;

	if (level > log_level)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	fprintf(stderr, "%s: %s: %s\n", log_prog, names[level], line);
}

void rn_log(enum rn_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rn_vlog(level, fmt, ap);
	va_end(ap);
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "log.h"

static const char *log_prog = "rdmanet";
static enum rn_log_level log_level = RN_LOG_WARN;
static int libbpf_quiet;

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

static void vlog(enum rn_log_level level, const char *fmt, va_list ap)
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
	vlog(level, fmt, ap);
	va_end(ap);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* probes that are expected to fail (clsact query on a device without
	 * the qdisc, libxdp's dispatcher compatibility check) are not news */
	if (level == LIBBPF_WARN && !libbpf_quiet)
		vlog(RN_LOG_WARN, fmt, ap);
	else
		vlog(RN_LOG_DEBUG, fmt, ap);
	return 0;
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	vlog(level == LIBXDP_WARN ? RN_LOG_WARN : RN_LOG_DEBUG, fmt, ap);
	return 0;
}

void rn_log_hook_libbpf(void)
{
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}

void rn_log_libbpf_quiet(int quiet)
{
	libbpf_quiet = quiet;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libbpf's and libxdp's messages through rn_log. Apart from log.c so that
 * what uses rn_log alone (the CNI plugin) does not link libbpf's object
 * loader, and with it libelf, zlib and zstd. */
#include <stdarg.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "log.h"

static int libbpf_quiet;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* probes that are expected to fail (clsact query on a device without
	 * the qdisc, libxdp's dispatcher compatibility check) are not news */
	if (level == LIBBPF_WARN && !libbpf_quiet)
		rn_vlog(RN_LOG_WARN, fmt, ap);
	else
		rn_vlog(RN_LOG_DEBUG, fmt, ap);
	return 0;
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	rn_vlog(level == LIBXDP_WARN ? RN_LOG_WARN : RN_LOG_DEBUG, fmt, ap);
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

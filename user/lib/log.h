/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Logging to stderr, one line per message, prefixed with the program name. */
#ifndef RDMANET_LOG_H
#define RDMANET_LOG_H

#include <stdarg.h>

enum rn_log_level { RN_LOG_ERROR = 0, RN_LOG_WARN, RN_LOG_INFO, RN_LOG_DEBUG };

void rn_log_init(const char *prog, enum rn_log_level level);
void rn_log_set_level(enum rn_log_level level);
enum rn_log_level rn_log_level(void);
void rn_log(enum rn_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rn_vlog(enum rn_log_level level, const char *fmt, va_list ap);
/* Routes libbpf and libxdp messages through rn_log (warnings, or all at debug). */
void rn_log_hook_libbpf(void);
/* While set, libbpf warnings are logged at debug level: around probes
 * that are expected to fail. */
void rn_log_libbpf_quiet(int quiet);

#define rn_err(...)   rn_log(RN_LOG_ERROR, __VA_ARGS__)
#define rn_warn(...)  rn_log(RN_LOG_WARN, __VA_ARGS__)
#define rn_info(...)  rn_log(RN_LOG_INFO, __VA_ARGS__)
#define rn_debug(...) rn_log(RN_LOG_DEBUG, __VA_ARGS__)

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Prometheus text exposition for node_exporter's textfile collector:
 * written to a temporary file in the same directory, fsync'd, renamed into
 * place, so a scrape never sees half a file. No sample timestamps.
 * Opening one also removes the temporary files of NAME that writers killed
 * mid-write left, once older than RN_TEXTFILE_STALE_S (looked for at most
 * that often in a process). */
#ifndef RDMANET_TEXTFILE_H
#define RDMANET_TEXTFILE_H

#include <limits.h>
#include <stdio.h>

#include "error.h"

#define RN_TEXTFILE_STALE_S 60

struct rn_textfile {
	FILE *f;
	char tmp[PATH_MAX];
	char path[PATH_MAX];
};

int rn_textfile_open(struct rn_textfile *t, const char *dir, const char *name,
		     struct rn_error *e);
int rn_textfile_commit(struct rn_textfile *t, struct rn_error *e);
void rn_textfile_abort(struct rn_textfile *t);

/* # HELP and # TYPE lines; type is "counter" or "gauge". */
void rn_metric_family(FILE *f, const char *name, const char *type, const char *help);
/* One sample: labels are NULL-terminated name, value pairs. */
void rn_metric_sample(FILE *f, const char *name, const char *const labels[],
		      unsigned long long value);

#endif

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Which build this is: the release version from the Makefile (VERSION)
 * and the git commit it was built from (GIT_COMMIT; "-dirty" when the tree
 * had uncommitted changes). Every binary prints them for --version and the
 * agent exports them as rdmanet_build_info: the map layout and the upgrade
 * rules depend on the build, so an operator must be able to tell it. */
#ifndef RDMANET_VERSION_H
#define RDMANET_VERSION_H

#include <stdio.h>

extern const char rn_version[];
extern const char rn_commit[];

/* "PROG VERSION (commit COMMIT)\n", as the reference CNI plugins print theirs */
void rn_version_print(FILE *f, const char *prog);

/* rdmanet_build_info{version,commit} 1, with its HELP and TYPE */
void rn_metrics_build_info(FILE *f);

#endif

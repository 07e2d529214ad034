/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The CNI spec versions the plugin speaks: configs of 0.4.0, 1.0.0 and
 * 1.1.0 are accepted and answered in the version they carry. */
#ifndef RDMANET_CNI_VERSION_H
#define RDMANET_CNI_VERSION_H

#include <jansson.h>

enum cni_ver { CNI_V040 = 0, CNI_V100, CNI_V110, CNI_N_VERSIONS };

#define CNI_VERSION_LATEST "1.1.0"

extern const char *const cni_version_names[CNI_N_VERSIONS];

/* Returns 0 and sets *out, or -1 if the version is not one we speak. */
int cni_version_parse(const char *s, enum cni_ver *out);
/* { "cniVersion": <asked>, "supportedVersions": [...] } */
json_t *cni_version_result(const char *asked);

#endif

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>

#include "cni_version.h"

const char *const cni_version_names[CNI_N_VERSIONS] = { "0.4.0", "1.0.0", "1.1.0" };

int cni_version_parse(const char *s, enum cni_ver *out)
{
	for (int v = 0; v < CNI_N_VERSIONS; v++) {
		if (!strcmp(s, cni_version_names[v])) {
			*out = (enum cni_ver)v;
			return 0;
		}
	}
	return -1;
}

json_t *cni_version_result(const char *asked)
{
	json_t *o = json_object(), *list = json_array();

	for (int v = 0; v < CNI_N_VERSIONS; v++)
		json_array_append_new(list, json_string(cni_version_names[v]));
	json_object_set_new(o, "cniVersion", json_string(asked ? asked : CNI_VERSION_LATEST));
	json_object_set_new(o, "supportedVersions", list);
	return o;
}

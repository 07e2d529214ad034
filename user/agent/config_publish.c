// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_publish.h"
#include "log.h"
#include "write_all.h"

/* text with "node": node added when it has none (NULL: text as it is) */
static char *with_node(const char *text, size_t len, const char *node)
{
	json_t *root = json_loadb(text, len, 0, NULL);
	char *out = NULL;

	if (json_is_object(root) && !json_object_get(root, "node") &&
	    !json_object_set_new(root, "node", json_string(node)))
		out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return out;
}

int rn_config_publish(const char *path, const char *text, size_t len, const char *node)
{
	char tmp[PATH_MAX], dir[PATH_MAX], *named = NULL;
	int err, dfd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (node && node[0] && (named = with_node(text, len, node))) {
		text = named;
		len = strlen(named);
	}
	err = rn_write_file_replace(path, tmp, text, len, 0644, true);
	free(named);
	if (err) {
		rn_err("config: publishing to %s failed: %s (the CNI plugin keeps reading the "
		       "previous copy)", path, strerror(-err));
		return err;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	rn_debug("config: published to %s", path);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Noticing that the config file changed, the way a Kubernetes ConfigMap
 * mount changes: kubelet writes a new ..<timestamp> directory and renames
 * a ..data symlink onto the old one, while config.json (a symlink through
 * ..data) never changes itself. A watch on the file would follow the old
 * inode and miss it, so the directory is watched (inotify), and every
 * event, or a tick, leads to one question: are the file's bytes different
 * from the last ones seen?
 *
 * The config may name other files (device_plugin.configFile, the shared
 * device plugin's own ConfigMap): they are inputs of the same config. Their
 * directories are watched too, and a change of any input is a change of
 * the config: its text is handed back to be parsed again, so a config
 * refused for a bad input is retried once that input is fixed. */
#ifndef RDMANET_AGENT_CONFIG_WATCH_H
#define RDMANET_AGENT_CONFIG_WATCH_H

#include <limits.h>
#include <stddef.h>

#define RN_CONFIG_WATCH_INPUTS 4	/* files a config names, besides itself */

struct rn_config_input {
	char path[PATH_MAX];
	char *seen;		/* its bytes when last looked at (NULL: unreadable) */
	size_t seen_len;
};

struct rn_config_watch {
	int fd;			/* inotify; -1 when the directory cannot be watched */
	char path[PATH_MAX];
	char *seen;		/* the bytes of the last version looked at (NULL: none) */
	size_t seen_len;
	int gone;		/* the last look found no file */
	struct rn_config_input inputs[RN_CONFIG_WATCH_INPUTS];	/* the files seen names */
	int n_inputs;
};

/* Starts watching the directory of path; seen starts as the file's current
 * bytes (the config the agent started with). Without inotify, the tick's
 * look still notices changes. */
void rn_config_watch_open(struct rn_config_watch *w, const char *path);
/* Waits up to timeout_ms (-1: forever) for the directory to change; 1 if
 * it did, 0 on timeout. Interrupted by a signal: 0. */
int rn_config_watch_wait(struct rn_config_watch *w, int timeout_ms);
/* The file's bytes if they or any file they name differ from the last seen
 * (the caller frees them), else NULL. A file that vanished is logged once
 * and gives NULL: the running config stays. */
char *rn_config_watch_changed(struct rn_config_watch *w);
void rn_config_watch_close(struct rn_config_watch *w);

#endif

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>

#include "config_watch.h"
#include "devplugin/devplugin.h"
#include "log.h"

/* a node config is kilobytes; anything this big is not one */
#define CONFIG_MAX (4u << 20)

static char *read_all(const char *path, size_t *len, int *err)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	*err = 0;
	if (fd < 0 || !buf) {
		*err = fd < 0 ? errno : ENOMEM;
		goto fail;
	}
	while ((r = read(fd, buf + n, cap - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*err = errno;
			goto fail;
		}
		n += (size_t)r;
		if (n == cap) {
			char *more = cap < CONFIG_MAX ? realloc(buf, cap * 2) : NULL;

			if (!more) {
				*err = EFBIG;
				goto fail;
			}
			buf = more;
			cap *= 2;
		}
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* Watches the directory of path (a second watch of one directory is the
 * same watch). 0, or -1 with errno. */
static int watch_dir_of(int fd, const char *path)
{
	char dir[PATH_MAX], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	/* IN_MOVED_TO: kubelet's ..data rename, an editor's save-by-rename;
	 * IN_CLOSE_WRITE: an in-place write, seen once it is complete;
	 * IN_CREATE/IN_DELETE: the file appearing or going */
	if (inotify_add_watch(fd, dir, IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE |
			      IN_MOVED_FROM) < 0) {
		rn_warn("config: cannot watch %s (%s); changes are picked up at each tick",
			dir, strerror(errno));
		return -1;
	}
	return 0;
}

static void inputs_free(struct rn_config_watch *w)
{
	for (int i = 0; i < w->n_inputs; i++)
		free(w->inputs[i].seen);
	w->n_inputs = 0;
}

/* The files text names, their bytes now, their directories watched. */
static void inputs_read(struct rn_config_watch *w, const char *text)
{
	char paths[RN_CONFIG_WATCH_INPUTS][PATH_MAX];
	int n = text ? rn_dp_config_files(text, paths, RN_CONFIG_WATCH_INPUTS) : 0, err;

	inputs_free(w);
	for (int i = 0; i < n; i++) {
		struct rn_config_input *in = &w->inputs[w->n_inputs++];

		memcpy(in->path, paths[i], sizeof(in->path));
		in->seen = read_all(in->path, &in->seen_len, &err);
		if (w->fd >= 0)
			watch_dir_of(w->fd, in->path);
	}
}

/* Whether an input's bytes now differ from the ones last seen. */
static bool input_changed(const struct rn_config_input *in)
{
	size_t len;
	int err;
	char *now = read_all(in->path, &len, &err);
	bool changed = !now != !in->seen ||
		       (now && (len != in->seen_len || memcmp(now, in->seen, len)));

	free(now);
	return changed;
}

void rn_config_watch_open(struct rn_config_watch *w, const char *path)
{
	int err;

	memset(w, 0, sizeof(*w));
	snprintf(w->path, sizeof(w->path), "%s", path);
	w->seen = read_all(path, &w->seen_len, &err);
	w->gone = !w->seen;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0)
		rn_warn("config: no inotify (%s); changes are picked up at each tick",
			strerror(errno));
	else if (watch_dir_of(w->fd, path)) {
		close(w->fd);
		w->fd = -1;
	}
	inputs_read(w, w->seen);
}

int rn_config_watch_wait(struct rn_config_watch *w, int timeout_ms)
{
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int n;

	if (w->fd < 0) {
		poll(NULL, 0, timeout_ms);
		return 0;
	}
	n = poll(&p, 1, timeout_ms);
	if (n <= 0)
		return 0;
	/* drain: a swap is several events, one look answers them all */
	while (read(w->fd, buf, sizeof(buf)) > 0)
		;
	return 1;
}

char *rn_config_watch_changed(struct rn_config_watch *w)
{
	size_t len;
	int err;
	char *now = read_all(w->path, &len, &err);

	if (!now) {
		if (!w->gone)
			rn_err("config %s: %s; keeping the last good config", w->path,
			       strerror(err));
		w->gone = 1;
		return NULL;
	}
	w->gone = 0;
	if (w->seen && len == w->seen_len && !memcmp(now, w->seen, len)) {
		bool changed = false;

		/* the same text: a change of a file it names is a change too */
		for (int i = 0; i < w->n_inputs && !changed; i++)
			changed = input_changed(&w->inputs[i]);
		if (!changed) {
			free(now);
			return NULL;
		}
	}
	inputs_read(w, now);
	free(w->seen);
	w->seen = malloc(len + 1);
	if (w->seen)
		memcpy(w->seen, now, len + 1);
	w->seen_len = w->seen ? len : 0;
	return now;
}

void rn_config_watch_close(struct rn_config_watch *w)
{
	inputs_free(w);
	if (w->fd >= 0)
		close(w->fd);
	free(w->seen);
	w->seen = NULL;
	w->fd = -1;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "textfile.h"

/* A writer killed between mkstemp and rename (SIGKILL, a pod removed with
 * no grace) leaves its temporary file behind, and every such kill one
 * more. Those older than RN_TEXTFILE_STALE_S go; a younger one may be
 * another writer's in progress (a write takes milliseconds). At most once
 * per RN_TEXTFILE_STALE_S in a process: the agent writes every second. */
static void sweep_stale(const char *dir, const char *name)
{
	static time_t last;
	size_t len = strlen(name);
	time_t now = time(NULL);
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (last && now - last < RN_TEXTFILE_STALE_S)
		return;
	last = now;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] != '.' || strncmp(de->d_name + 1, name, len) ||
		    de->d_name[len + 1] != '.' || strlen(de->d_name + len + 2) != 6)
			continue;
		if (!fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode) && now - st.st_mtime > RN_TEXTFILE_STALE_S)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

int rn_textfile_open(struct rn_textfile *t, const char *dir, const char *name,
		     struct rn_error *e)
{
	int fd, n;

	memset(t, 0, sizeof(*t));
	n = snprintf(t->path, sizeof(t->path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(t->path) ||
	    snprintf(t->tmp, sizeof(t->tmp), "%s/.%s.XXXXXX", dir, name) >= (int)sizeof(t->tmp))
		return rn_fail(e, -ENAMETOOLONG, "%s: path too long", dir);
	sweep_stale(dir, name);
	fd = mkstemp(t->tmp);
	if (fd < 0)
		return rn_fail(e, -errno, "create %s: %s", t->tmp, strerror(errno));
	/* node_exporter runs unprivileged and must read it */
	fchmod(fd, 0644);
	t->f = fdopen(fd, "w");
	if (!t->f) {
		int err = -errno;

		close(fd);
		unlink(t->tmp);
		return rn_fail(e, err, "fdopen %s: %s", t->tmp, strerror(-err));
	}
	return 0;
}

void rn_textfile_abort(struct rn_textfile *t)
{
	if (t->f) {
		fclose(t->f);
		unlink(t->tmp);
		t->f = NULL;
	}
}

int rn_textfile_commit(struct rn_textfile *t, struct rn_error *e)
{
	int err = 0;

	if (fflush(t->f) || fsync(fileno(t->f)))
		err = -errno;
	if (fclose(t->f) && !err)
		err = -errno;
	t->f = NULL;
	if (!err && rename(t->tmp, t->path))
		err = -errno;
	if (err) {
		unlink(t->tmp);
		return rn_fail(e, err, "write %s: %s", t->path, strerror(-err));
	}
	return 0;
}

void rn_metric_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\')
			fputs("\\\\", f);
		else if (*v == '"')
			fputs("\\\"", f);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

void rn_metric_sample(FILE *f, const char *name, const char *const labels[],
		      unsigned long long value)
{
	fputs(name, f);
	if (labels && labels[0]) {
		fputc('{', f);
		for (int i = 0; labels[i]; i += 2) {
			fprintf(f, "%s%s=\"", i ? "," : "", labels[i]);
			label_value(f, labels[i + 1] ? labels[i + 1] : "");
			fputc('"', f);
		}
		fputc('}', f);
	}
	fprintf(f, " %llu\n", value);
}

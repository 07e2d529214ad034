// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "mkdir_p.h"
#include "ipam/precheck_table.h"
#include "ipam/store.h"

#define BOOT_ID_LEN 36

int64_t rn_precheck_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int boot_id(char out[BOOT_ID_LEN + 1])
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%36s", out) == 1;
	fclose(f);
	return ok ? 0 : -EIO;
}

static void path_of(char *out, size_t size, const char *state_dir, const char *name)
{
	snprintf(out, size, "%s/%s", state_dir, name);
}

/* One entry line; false if it is not one. */
static bool parse_entry(const char *line, struct rn_precheck_entry *x)
{
	char addr[RN_ADDR_STRLEN + 1];
	long long at;
	int end = 0;

	memset(x, 0, sizeof(*x));
	if (sscanf(line, "%63s %15s %46s %lld%n", x->pool, x->master, addr, &at, &end) != 4 ||
	    (line[end] && line[end] != '\n') || rn_addr_parse(addr, &x->addr) || at < 0)
		return false;
	x->checked_ms = at;
	return true;
}

static int load_file(FILE *f, struct rn_precheck_table *t, struct rn_error *e)
{
	char boot[BOOT_ID_LEN + 1], mine[BOOT_ID_LEN + 1], *line = NULL;
	long long max_age;
	size_t cap = 0;
	int version, rc = 0;

	if (getline(&line, &cap, f) < 0 ||
	    sscanf(line, "rdmanet-precheck %d %36s %lld", &version, boot, &max_age) != 3 ||
	    version != 1 || max_age <= 0) {
		free(line);
		return rn_fail(e, -EINVAL, "no pre-check table header");
	}
	if (boot_id(mine) || strcmp(boot, mine)) {
		free(line);
		return 0;	/* an earlier boot's: its times mean nothing now */
	}
	t->max_age_ms = max_age;
	t->e = calloc(RN_PRECHECK_MAX, sizeof(*t->e));
	if (!t->e) {
		free(line);
		return rn_fail(e, -ENOMEM, "out of memory");
	}
	while (getline(&line, &cap, f) >= 0) {
		if (t->n == RN_PRECHECK_MAX || !parse_entry(line, &t->e[t->n])) {
			rc = rn_fail(e, -EINVAL, "bad pre-check entry %u", t->n + 1);
			t->n = 0;	/* all or nothing */
			break;
		}
		t->n++;
	}
	free(line);
	return rc;
}

int rn_precheck_load(const char *state_dir, struct rn_precheck_table *t, struct rn_error *e)
{
	char path[PATH_MAX];
	struct rn_error local = { 0 };
	FILE *f;
	int rc;

	memset(t, 0, sizeof(*t));
	path_of(path, sizeof(path), state_dir, RN_PRECHECK_FILE);
	f = fopen(path, "re");
	if (!f)
		return 0;
	rc = load_file(f, t, e ? e : &local);
	fclose(f);
	if (rc == -ENOMEM) {
		rn_precheck_free(t);
		return rc;
	}
	if (rc)
		t->n = 0;	/* unreadable: no pre-checks */
	return 0;
}

int rn_precheck_save(const char *state_dir, const struct rn_precheck_table *t,
		     struct rn_error *e)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], boot[BOOT_ID_LEN + 1], buf[RN_ADDR_STRLEN];
	FILE *f;
	int rc = boot_id(boot);

	if (rc)
		return rn_fail(e, rc, "boot id: %s", strerror(-rc));
	path_of(path, sizeof(path), state_dir, RN_PRECHECK_FILE);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	rc = rn_mkdir_p(state_dir, 0700);
	if (rc)
		return rn_fail(e, rc, "%s: %s", state_dir, strerror(-rc));
	f = fopen(tmp, "we");
	if (!f)
		return rn_fail(e, -errno, "%s: %s", tmp, strerror(errno));
	fprintf(f, "rdmanet-precheck 1 %s %" PRId64 "\n", boot, t->max_age_ms);
	for (unsigned int i = 0; i < t->n && i < RN_PRECHECK_MAX; i++)
		fprintf(f, "%s %s %s %" PRId64 "\n", t->e[i].pool, t->e[i].master,
			rn_addr_format(&t->e[i].addr, buf), t->e[i].checked_ms);
	if (ferror(f) | fclose(f)) {
		rc = errno ? -errno : -EIO;
		unlink(tmp);
		return rn_fail(e, rc, "%s: write failed", tmp);
	}
	if (rename(tmp, path)) {
		rc = -errno;
		unlink(tmp);
		return rn_fail(e, rc, "%s: %s", path, strerror(-rc));
	}
	return 0;
}

void rn_precheck_free(struct rn_precheck_table *t)
{
	free(t->e);
	t->e = NULL;
	t->n = 0;
}

bool rn_precheck_fresh(const struct rn_precheck_table *t, const struct rn_precheck_entry *x,
		       int64_t now)
{
	return x->checked_ms <= now && now - x->checked_ms < t->max_age_ms;
}

const struct rn_precheck_entry *rn_precheck_find(const struct rn_precheck_table *t,
						 const char *pool, const char *master,
						 const struct rn_addr *addr, int64_t now)
{
	for (unsigned int i = 0; i < t->n; i++) {
		const struct rn_precheck_entry *x = &t->e[i];

		if (!strcmp(x->pool, pool) && !strcmp(x->master, master) &&
		    rn_addr_equal(&x->addr, addr) && rn_precheck_fresh(t, x, now))
			return x;
	}
	return NULL;
}

static void want_path(char *out, size_t size, const char *state_dir, const char *pool,
		      const char *master)
{
	snprintf(out, size, "%s/%s/%s:%s", state_dir, RN_PRECHECK_WANT_DIR, pool, master);
}

int rn_precheck_want(const char *state_dir, const char *pool, const char *master,
		     struct rn_error *e)
{
	char path[PATH_MAX];
	int fd, rc;

	want_path(path, sizeof(path), state_dir, pool, master);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 && errno == ENOENT) {
		rc = rn_mkdir_parent(path, 0700);
		if (rc)
			return rn_fail(e, rc, "%s: %s", path, strerror(-rc));
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	}
	if (fd < 0)
		return rn_fail(e, -errno, "%s: %s", path, strerror(errno));
	close(fd);
	/* the directory's time says "an ADD took addresses" to the agent */
	path_of(path, sizeof(path), state_dir, RN_PRECHECK_WANT_DIR);
	utimensat(AT_FDCWD, path, NULL, 0);
	return 0;
}

int64_t rn_precheck_wants_changed(const char *state_dir)
{
	char dir[PATH_MAX];
	struct stat st;

	path_of(dir, sizeof(dir), state_dir, RN_PRECHECK_WANT_DIR);
	if (stat(dir, &st))
		return 0;
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

int rn_precheck_wants(const char *state_dir, struct rn_precheck_want *out, unsigned int max)
{
	char dir[PATH_MAX];
	struct dirent *d;
	unsigned int n = 0;
	DIR *dp;

	path_of(dir, sizeof(dir), state_dir, RN_PRECHECK_WANT_DIR);
	dp = opendir(dir);
	if (!dp)
		return 0;
	while (n < max && (d = readdir(dp))) {
		const char *colon = strrchr(d->d_name, ':');
		size_t plen = colon ? (size_t)(colon - d->d_name) : 0;

		if (!colon || !plen || plen >= sizeof(out->pool) || !colon[1] ||
		    strlen(colon + 1) >= sizeof(out->master))
			continue;
		memcpy(out[n].pool, d->d_name, plen);
		out[n].pool[plen] = '\0';
		snprintf(out[n].master, sizeof(out[n].master), "%s", colon + 1);
		n++;
	}
	closedir(dp);
	return (int)n;
}

void rn_precheck_unwant(const char *state_dir, const struct rn_precheck_want *w)
{
	char path[PATH_MAX];

	want_path(path, sizeof(path), state_dir, w->pool, w->master);
	unlink(path);
}

int rn_precheck_node_allocations(const struct rn_ipam_settings *st, const char *pool,
				 struct rn_ipam_allocation **out, struct rn_error *e)
{
	struct rn_alloc_filter f = { .pool = pool };
	struct rn_ipam_settings local = *st;
	struct rn_store *s;
	int n;

	*out = NULL;
	local.store = RN_IPAM_STORE_SQLITE;
	n = rn_store_sqlite_open(&s, &local, true, e);
	if (n)
		return n == -ENOENT ? 0 : n;
	n = s->ops->list(s, &f, out, e);
	s->ops->close(s);
	return n;
}

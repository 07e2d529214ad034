// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <jansson.h>

#include "fault.h"
#include "log.h"
#include "private_file.h"
#include "record.h"
#include "write_all.h"

/* The temporary file a record is written to before its rename. */
#define RECORD_TMP_PREFIX ".rec."

/* Makes the entries of dir (a new or renamed file, a new directory) durable. */
static int fsync_dir(const char *dir, struct rn_error *e)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return rn_fail(e, -errno, "open %s: %s", dir, strerror(errno));
	if (fsync(fd))
		rc = rn_fail(e, -errno, "fsync %s: %s", dir, strerror(errno));
	close(fd);
	return rc;
}

/* A directory it creates is made durable in its parent: a record in a
 * directory that a crash forgets is as lost as the record. */
static int make_dir(char *path, struct rn_error *e)
{
	char *slash;
	int rc;

	if (mkdir(path, 0700))
		return errno == EEXIST ? 0 : rn_fail(e, -errno, "mkdir %s: %s", path,
						     strerror(errno));
	slash = strrchr(path, '/');
	if (!slash || slash == path)
		return fsync_dir(slash ? "/" : ".", e);
	*slash = '\0';
	rc = fsync_dir(path, e);
	*slash = '/';
	return rc;
}

static int mkdir_p(const char *path, struct rn_error *e)
{
	char tmp[PATH_MAX];
	struct stat st;
	int rc;

	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return 0;	/* the usual case: one call, not one per component */
	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return rn_fail(e, -ENAMETOOLONG, "state dir %s: path too long", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		rc = make_dir(tmp, e);
		*p = '/';
		if (rc)
			return rc;
	}
	return make_dir(tmp, e);
}

static int net_dir(char *out, size_t size, const char *dir, const char *network)
{
	return snprintf(out, size, "%s/%s", dir, network) >= (int)size ? -ENAMETOOLONG : 0;
}

/* ':' is in neither a container id nor an ifname, so the name is unambiguous */
static int rec_path(char *out, size_t size, const char *dir, const char *network,
		    const char *cid, const char *ifname)
{
	return snprintf(out, size, "%s/%s/%s:%s", dir, network, cid, ifname) >= (int)size ?
		-ENAMETOOLONG : 0;
}

static int lock_path(char *out, size_t size, const char *dir, const char *network,
		     const char *cid, const char *ifname)
{
	return snprintf(out, size, "%s/%s/.lock.%s:%s", dir, network, cid, ifname) >=
		(int)size ? -ENAMETOOLONG : 0;
}

int cni_record_lock(const char *dir, const char *network, const char *container_id,
		    const char *ifname, bool wait, struct rn_error *e)
{
	char d[PATH_MAX], path[PATH_MAX];
	struct stat held, named;
	int fd;

	if (net_dir(d, sizeof(d), dir, network) ||
	    lock_path(path, sizeof(path), dir, network, container_id, ifname))
		return rn_fail(e, -ENAMETOOLONG, "state dir %s: path too long", dir);
	if (mkdir_p(d, e))
		return e->code;
	for (;;) {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return rn_fail(e, -errno, "open %s: %s", path, strerror(errno));
		if (flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB)) {
			int err = errno;

			close(fd);
			if (err == EINTR)
				continue;
			if (err == EWOULDBLOCK)
				return rn_fail(e, -EWOULDBLOCK, "%s: held", path);
			return rn_fail(e, -err, "lock %s: %s", path, strerror(err));
		}
		/* the holder before us removed the file (its attachment was gone):
		 * a lock on that file excludes nobody; take the one at the name */
		if (!fstat(fd, &held) && !stat(path, &named) && held.st_ino == named.st_ino &&
		    held.st_dev == named.st_dev)
			return fd;
		close(fd);
	}
}

void cni_record_unlock(const char *dir, const char *network, const char *container_id,
		       const char *ifname, int fd)
{
	char rec[PATH_MAX], path[PATH_MAX];

	if (fd < 0)
		return;
	/* only lock holders write records: none can appear between the two */
	if (!rec_path(rec, sizeof(rec), dir, network, container_id, ifname) &&
	    !lock_path(path, sizeof(path), dir, network, container_id, ifname) &&
	    access(rec, F_OK) && errno == ENOENT)
		unlink(path);
	close(fd);
}

static json_t *to_json(const struct cni_record *r)
{
	json_t *o = json_object(), *addrs = json_array();
	char buf[RN_PREFIX_STRLEN];

	for (unsigned int i = 0; i < r->n_addrs; i++)
		json_array_append_new(addrs, json_string(rn_prefix_format(&r->addrs[i], buf)));
	json_object_set_new(o, "network", json_string(r->network));
	json_object_set_new(o, "containerID", json_string(r->container_id));
	json_object_set_new(o, "ifname", json_string(r->ifname));
	json_object_set_new(o, "netns", json_string(r->netns));
	json_object_set_new(o, "master", json_string(r->master));
	json_object_set_new(o, "complete", json_boolean(r->complete));
	json_object_set_new(o, "addresses", addrs);
	json_object_set_new(o, "table", json_integer(r->table));
	return o;
}

static char *json_dumps_record(const struct cni_record *r)
{
	json_t *o = to_json(r);
	char *text = json_dumps(o, JSON_COMPACT);

	json_decref(o);
	return text;
}

static int copy_str(json_t *o, const char *key, char *out, size_t size)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s || strlen(s) >= size)
		return -1;
	strcpy(out, s);
	return 0;
}

static int from_json(json_t *o, struct cni_record *r)
{
	json_t *addrs = json_object_get(o, "addresses"), *a;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(o) || copy_str(o, "network", r->network, sizeof(r->network)) ||
	    copy_str(o, "containerID", r->container_id, sizeof(r->container_id)) ||
	    copy_str(o, "ifname", r->ifname, sizeof(r->ifname)) ||
	    copy_str(o, "netns", r->netns, sizeof(r->netns)) ||
	    copy_str(o, "master", r->master, sizeof(r->master)) || !json_is_array(addrs) ||
	    json_array_size(addrs) > 2 || !json_is_integer(json_object_get(o, "table")))
		return -1;
	r->complete = json_is_true(json_object_get(o, "complete"));
	r->table = (uint32_t)json_integer_value(json_object_get(o, "table"));
	json_array_foreach(addrs, i, a) {
		if (!json_is_string(a) ||
		    rn_prefix_parse(json_string_value(a), &r->addrs[r->n_addrs], false))
			return -1;
		r->n_addrs++;
	}
	return 0;
}

/* The record's directory, made and kept root-only (records name pods'
 * netns), also when an older version or a hand-made directory left it
 * wider; and the record's path in it. */
static int record_place(const char *dir, const struct cni_record *r, char d[PATH_MAX],
			char path[PATH_MAX], struct rn_error *e)
{
	if (net_dir(d, PATH_MAX, dir, r->network) ||
	    rec_path(path, PATH_MAX, dir, r->network, r->container_id, r->ifname))
		return rn_fail(e, -ENAMETOOLONG, "state dir %s: path too long", dir);
	if (mkdir_p(d, e))
		return e->code;
	rn_private_dir(dir);
	rn_private_dir(d);
	return 0;
}

/* Through a temporary file and a rename: a reader (or a crash) sees the old
 * record or the new one, never half of one. durable: the content is
 * fsync'd before the rename and the directory after it. */
static int write_renamed(const char *d, const char *path, const char *text,
			 bool durable, struct rn_error *e)
{
	char tmp[PATH_MAX];
	int fd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s/" RECORD_TMP_PREFIX "XXXXXX", d) >= (int)sizeof(tmp))
		return rn_fail(e, -ENAMETOOLONG, "state dir %s: path too long", d);
	fd = mkstemp(tmp);	/* 0600 */
	if (fd < 0)
		return rn_fail(e, -errno, "create %s: %s", tmp, strerror(errno));
	if (rn_write_all(fd, text, strlen(text)) || (durable && fsync(fd)))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (err) {
		unlink(tmp);
		return rn_fail(e, err, "write %s: %s", tmp, strerror(-err));
	}
	cni_fault_point("record-written");
	if (rename(tmp, path)) {
		err = -errno;
		unlink(tmp);
		return rn_fail(e, err, "rename to %s: %s", path, strerror(-err));
	}
	return durable ? fsync_dir(d, e) : 0;
}

int cni_record_write(const char *dir, const struct cni_record *r, struct rn_error *e)
{
	char d[PATH_MAX], path[PATH_MAX];
	char *text;
	int rc;

	if (record_place(dir, r, d, path, e))
		return e->code;
	text = json_dumps_record(r);
	if (!text)
		return rn_fail(e, -ENOMEM, "out of memory");
	/* The final record of a finished ADD is not synced: should a crash
	 * forget it, or keep its name and lose its content, the first record
	 * (same attachment; the store holds the addresses by owner) or the
	 * file's name is what GC and DEL go by (cni_record_list). */
	rc = write_renamed(d, path, text, !r->complete, e);
	free(text);
	return rc;
}

static void *sync_record(void *arg)
{
	struct cni_record_pending *p = arg;

	if (fsync(p->fd))
		rn_fail(&p->e, -errno, "fsync %s: %s", p->path, strerror(errno));
	else
		fsync_dir(p->dir, &p->e);
	return NULL;
}

int cni_record_begin(const char *dir, const struct cni_record *r, struct cni_record_pending *p,
		     struct rn_error *e)
{
	char *text;
	int rc;

	memset(p, 0, sizeof(*p));
	p->fd = -1;
	if (record_place(dir, r, p->dir, p->path, e))
		return e->code;
	text = json_dumps_record(r);
	if (!text)
		return rn_fail(e, -ENOMEM, "out of memory");
	/* the usual case, a new attachment: the record is created at its name
	 * (one sync of file and directory entry together, where a rename
	 * would need two); one already there is replaced the careful way */
	p->fd = open(p->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (p->fd < 0) {
		rc = errno == EEXIST ? write_renamed(p->dir, p->path, text, true, e) :
				       rn_fail(e, -errno, "create %s: %s", p->path,
					       strerror(errno));
		free(text);
		return rc;
	}
	if (rn_write_all(p->fd, text, strlen(text))) {
		rc = rn_fail(e, -errno, "write %s: %s", p->path, strerror(errno));
		unlink(p->path);
		close(p->fd);
		p->fd = -1;
		free(text);
		return rc;
	}
	free(text);
	p->running = !pthread_create(&p->thread, NULL, sync_record, p);
	if (!p->running)
		sync_record(p);		/* no thread: the caller waits here */
	return 0;
}

int cni_record_wait(struct cni_record_pending *p, struct rn_error *e)
{
	int rc;

	if (p->running)
		pthread_join(p->thread, NULL);
	p->running = false;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	rc = p->e.code;
	if (rc)
		*e = p->e;
	p->e.code = 0;
	return rc;
}

static int read_file(const char *path, struct cni_record *r, struct rn_error *e)
{
	json_error_t jerr;
	json_t *o = json_load_file(path, 0, &jerr);
	int rc;

	if (!o) {
		if (access(path, F_OK))
			return rn_fail(e, -ENOENT, "%s: no record", path);
		return rn_fail(e, -EINVAL, "%s: %s", path, jerr.text);
	}
	rc = from_json(o, r);
	json_decref(o);
	return rc ? rn_fail(e, -EINVAL, "%s: not an attachment record", path) : 0;
}

int cni_record_read(const char *dir, const char *network, const char *container_id,
		    const char *ifname, struct cni_record *r, struct rn_error *e)
{
	char path[PATH_MAX];

	if (rec_path(path, sizeof(path), dir, network, container_id, ifname))
		return rn_fail(e, -ENAMETOOLONG, "state dir %s: path too long", dir);
	return read_file(path, r, e);
}

int cni_record_remove(const char *dir, const char *network, const char *container_id,
		      const char *ifname, struct rn_error *e)
{
	char path[PATH_MAX];

	if (rec_path(path, sizeof(path), dir, network, container_id, ifname))
		return rn_fail(e, -ENAMETOOLONG, "state dir %s: path too long", dir);
	if (unlink(path) && errno != ENOENT)
		return rn_fail(e, -errno, "remove %s: %s", path, strerror(errno));
	return 0;
}

/* NULL and *rc 0 when the network has no directory (nothing recorded yet),
 * NULL and *rc < 0 on an error. d receives the path. */
static DIR *open_net_dir(const char *dir, const char *network, char d[PATH_MAX], int *rc,
			 struct rn_error *e)
{
	DIR *dh;

	*rc = 0;
	if (net_dir(d, PATH_MAX, dir, network)) {
		*rc = rn_fail(e, -ENAMETOOLONG, "state dir %s: path too long", dir);
		return NULL;
	}
	dh = opendir(d);
	if (!dh && errno != ENOENT)
		*rc = rn_fail(e, -errno, "open %s: %s", d, strerror(errno));
	return dh;
}

/* What a record's file name says: its attachment (container id and
 * ifname; ':' is in neither). */
static int record_from_name(const char *network, const char *name, struct cni_record *r)
{
	const char *colon = strchr(name, ':');
	size_t id_len = colon ? (size_t)(colon - name) : 0;

	memset(r, 0, sizeof(*r));
	if (!colon || !id_len || id_len >= sizeof(r->container_id) || !colon[1] ||
	    strlen(colon + 1) >= sizeof(r->ifname) || strchr(colon + 1, ':') ||
	    strlen(network) >= sizeof(r->network))
		return -1;
	memcpy(r->container_id, name, id_len);
	strcpy(r->ifname, colon + 1);
	strcpy(r->network, network);
	return 0;
}

int cni_record_list(const char *dir, const char *network, struct cni_record **out, int *n,
		    struct rn_error *e)
{
	struct cni_record *v = NULL;
	char d[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	int cap = 0, rc;
	DIR *dh;

	*out = NULL;
	*n = 0;
	dh = open_net_dir(dir, network, d, &rc, e);
	if (!dh)
		return rc;
	while ((de = readdir(dh))) {
		struct rn_error re = { 0 };

		if (de->d_name[0] == '.' || !strchr(de->d_name, ':'))
			continue;
		if (*n == cap) {
			struct cni_record *nv;

			cap = cap ? cap * 2 : 16;
			nv = realloc(v, (size_t)cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(dh);
				return rn_fail(e, -ENOMEM, "out of memory");
			}
			v = nv;
		}
		if (snprintf(path, sizeof(path), "%s/%s", d, de->d_name) >= (int)sizeof(path)) {
			rn_warn("GC: skipping %s/%s: path too long", d, de->d_name);
			continue;
		}
		if (read_file(path, &v[*n], &re)) {
			/* a record cut short (a writer killed mid-write, a final
			 * record whose content a crash lost) still names its
			 * attachment: enough to release what the store holds for
			 * it; what was in the pod's netns went with the netns */
			if (re.code != -EINVAL ||
			    record_from_name(network, de->d_name, &v[*n])) {
				rn_warn("GC: skipping %s: %s", path, re.msg);
				continue;
			}
			rn_warn("GC: %s: %s; going by its name", path, re.msg);
		}
		(*n)++;
	}
	closedir(dh);
	*out = v;
	return 0;
}

int cni_record_sweep_tmp(const char *dir, const char *network, unsigned int max_age_s,
			 struct rn_error *e)
{
	time_t now = time(NULL);
	char d[PATH_MAX];
	struct dirent *de;
	int removed = 0;
	DIR *dh;

	dh = open_net_dir(dir, network, d, &removed, e);
	if (!dh)
		return removed;
	while ((de = readdir(dh))) {
		struct stat st;

		if (strncmp(de->d_name, RECORD_TMP_PREFIX, strlen(RECORD_TMP_PREFIX)) ||
		    fstatat(dirfd(dh), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		/* a writer renames its file within milliseconds of creating it;
		 * one this old was left by a writer that died (a clock set back
		 * only keeps files longer) */
		if (st.st_mtime > now - (time_t)max_age_s)
			continue;
		if (unlinkat(dirfd(dh), de->d_name, 0) && errno != ENOENT) {
			rn_warn("GC: remove %s/%s: %s", d, de->d_name, strerror(errno));
			continue;
		}
		removed++;
	}
	closedir(dh);
	return removed;
}

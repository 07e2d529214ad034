// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ipam/sqlite_lock.h"

#define LOCK_MAGIC 0x726e4c6b	/* "rnLk" */
#define LOCK_VERSION 1

struct shared_lock {
	uint32_t magic;
	uint32_t version;
	uint32_t mutex_size;	/* a different pthread layout must not share it */
	uint32_t pad;
	pthread_mutex_t mutex;
};

static int init_mutex(struct shared_lock *sh)
{
	pthread_mutexattr_t attr;
	int err;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	err = pthread_mutex_init(&sh->mutex, &attr);
	pthread_mutexattr_destroy(&attr);
	if (err)
		return -err;
	sh->version = LOCK_VERSION;
	sh->mutex_size = sizeof(pthread_mutex_t);
	__atomic_store_n(&sh->magic, LOCK_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

void rn_sqlite_lock_open(struct rn_sqlite_lock *l, const char *db_path)
{
	char path[PATH_MAX];
	struct shared_lock *sh;
	struct stat st;
	bool ok = false;

	l->shared = NULL;
	snprintf(path, sizeof(path), "%s.lock", db_path);
	l->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (l->fd < 0)
		return;
	/* one opener initialises; the others wait on the file lock */
	if (flock(l->fd, LOCK_EX) || fstat(l->fd, &st))
		goto out;
	if ((size_t)st.st_size < sizeof(*sh) && ftruncate(l->fd, sizeof(*sh)))
		goto unlock;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, l->fd, 0);
	if (sh == MAP_FAILED)
		goto unlock;
	if (__atomic_load_n(&sh->magic, __ATOMIC_ACQUIRE) != LOCK_MAGIC && init_mutex(sh))
		goto unmap;
	if (sh->version != LOCK_VERSION || sh->mutex_size != sizeof(pthread_mutex_t))
		goto unmap;
	l->shared = sh;
	ok = true;
unmap:
	if (!ok)
		munmap(sh, sizeof(*sh));
unlock:
	flock(l->fd, LOCK_UN);
out:
	if (!ok) {
		close(l->fd);
		l->fd = -1;
	}
}

int rn_sqlite_lock_acquire(struct rn_sqlite_lock *l, long long deadline_ms)
{
	struct shared_lock *sh = l->shared;
	struct timespec abs = { deadline_ms / 1000, (deadline_ms % 1000) * 1000000 };
	int err;

	if (!sh)
		return 0;
	err = pthread_mutex_clocklock(&sh->mutex, CLOCK_MONOTONIC, &abs);
	if (err == EOWNERDEAD) {
		/* the holder died mid-transaction; SQLite undoes its writes */
		pthread_mutex_consistent(&sh->mutex);
		err = 0;
	}
	if (err == ETIMEDOUT)
		return -EAGAIN;
	if (err) {
		/* unusable (ENOTRECOVERABLE): carry on polling SQLite's lock */
		l->shared = NULL;
		munmap(sh, sizeof(*sh));
		return 0;
	}
	return 0;
}

void rn_sqlite_lock_release(struct rn_sqlite_lock *l)
{
	struct shared_lock *sh = l->shared;

	if (sh)
		pthread_mutex_unlock(&sh->mutex);
}

void rn_sqlite_lock_close(struct rn_sqlite_lock *l)
{
	if (l->shared)
		munmap(l->shared, sizeof(struct shared_lock));
	if (l->fd >= 0)
		close(l->fd);
	l->shared = NULL;
	l->fd = -1;
}

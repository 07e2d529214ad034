// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipam/sqlite_lock.h"
#include "private_file.h"
#include "monotonic.h"

/* The blocking OFD lock call has no timeout of its own: a timer of this
 * thread interrupts it with a signal whose handler does nothing (installed
 * without SA_RESTART, so the call returns EINTR). It repeats every
 * WAKE_REPEAT_NS after the deadline, in case the first one landed just
 * before the call went to sleep. */
#define WAKE_REPEAT_NS 5000000L

static int wake_sig;
static pthread_once_t wake_once = PTHREAD_ONCE_INIT;

static void wake(int sig)
{
	(void)sig;
}

static void wake_install(void)
{
	struct sigaction sa = { .sa_handler = wake }, old;
	int sig = SIGRTMIN + 3;

	/* never take a signal someone else handles */
	if (sigaction(sig, NULL, &old) || old.sa_handler != SIG_DFL)
		return;
	sigemptyset(&sa.sa_mask);
	if (!sigaction(sig, &sa, NULL))
		wake_sig = sig;
}

static struct flock whole_write_lock(short type)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));	/* OFD locks want l_pid 0 */
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	return fl;
}

void rn_sqlite_lock_open(struct rn_sqlite_lock *l, const char *db_path)
{
	char path[PATH_MAX];

	l->fd = -1;
	if (snprintf(path, sizeof(path), "%s.lock", db_path) >= (int)sizeof(path))
		return;
	l->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (l->fd >= 0)
		rn_private_fd(l->fd);
}

/* Without a usable timer or signal: short sleeps, like SQLite's own lock. */
static int poll_lock(struct rn_sqlite_lock *l, long long deadline_ms)
{
	struct flock fl = whole_write_lock(F_WRLCK);

	for (;;) {
		if (!fcntl(l->fd, F_OFD_SETLK, &fl))
			return 0;
		if (errno != EAGAIN && errno != EACCES)
			return -errno;
		if (rn_monotonic_ms() >= deadline_ms)
			return -EAGAIN;
		usleep(500);
	}
}

static int wait_lock(struct rn_sqlite_lock *l, long long deadline_ms)
{
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID };
	struct itimerspec its = {
		.it_value = { deadline_ms / 1000, (deadline_ms % 1000) * 1000000 },
		.it_interval = { 0, WAKE_REPEAT_NS },
	};
	struct flock fl = whole_write_lock(F_WRLCK);
	sigset_t mask;
	timer_t timer;
	int rc;

	pthread_once(&wake_once, wake_install);
	/* a thread that blocks the signal would never be woken: poll there */
	if (!wake_sig || pthread_sigmask(SIG_BLOCK, NULL, &mask) || sigismember(&mask, wake_sig))
		return poll_lock(l, deadline_ms);
	sev.sigev_signo = wake_sig;
	sev._sigev_un._tid = gettid();	/* sigev_notify_thread_id */
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer))
		return poll_lock(l, deadline_ms);
	if (timer_settime(timer, TIMER_ABSTIME, &its, NULL)) {
		timer_delete(timer);
		return poll_lock(l, deadline_ms);
	}
	for (;;) {
		if (!fcntl(l->fd, F_OFD_SETLKW, &fl)) {
			rc = 0;
			break;
		}
		if (errno != EINTR) {
			rc = -errno;
			break;
		}
		/* our timer, or any other signal: only the clock decides */
		if (rn_monotonic_ms() >= deadline_ms) {
			rc = -EAGAIN;
			break;
		}
	}
	timer_delete(timer);
	return rc;
}

int rn_sqlite_lock_acquire(struct rn_sqlite_lock *l, long long deadline_ms)
{
	struct flock fl = whole_write_lock(F_WRLCK);
	int rc;

	if (l->fd < 0)
		return 0;
	if (!fcntl(l->fd, F_OFD_SETLK, &fl))
		return 0;
	rc = errno == EAGAIN || errno == EACCES ? wait_lock(l, deadline_ms) : -errno;
	if (rc && rc != -EAGAIN) {
		/* unusable (a file system without locks): poll SQLite's lock */
		close(l->fd);
		l->fd = -1;
		return 0;
	}
	return rc;
}

void rn_sqlite_lock_release(struct rn_sqlite_lock *l)
{
	struct flock fl = whole_write_lock(F_UNLCK);

	if (l->fd >= 0)
		fcntl(l->fd, F_OFD_SETLK, &fl);
}

void rn_sqlite_lock_close(struct rn_sqlite_lock *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

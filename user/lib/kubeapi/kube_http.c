// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* HTTP/1.1 to the API server over one kept-alive connection (TLS for
 * https://): a request written whole, its answer read whole
 * (http_answer.h). The socket is non-blocking and every wait is a poll()
 * on what is left of one deadline, the client's timeout, from the connect
 * on: a server that trickles its answer cannot stretch a request past it.
 *
 * A kept-alive connection is checked before it is reused: readable means
 * the server closed it (its idle timeout) or sent what nobody asked for;
 * either way a new one is opened. A request that still meets a closed
 * connection, before any byte of an answer, is sent again on a new one,
 * unless it is a POST the server may have taken: a create is not repeated
 * behind the caller's back. */
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kubeapi/kube_conn.h"
#include "monotonic.h"

#define READ_CHUNK 16384

int rn_kube_wait(int fd, short events, long long deadline)
{
	for (;;) {
		long long left = deadline - rn_monotonic_ms();
		struct pollfd p = { .fd = fd, .events = events };
		int rc;

		if (left <= 0)
			return -ETIMEDOUT;
		rc = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (rc > 0)
			return 0;
		if (rc == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/* k->server, split */
struct server_url {
	bool tls;		/* https:// */
	char host[256];		/* no brackets */
	char port[16];
	const char *prefix;	/* the path before the request's, in k->server */
};

static int split_server(const struct rn_kube *k, struct server_url *u, struct rn_error *e)
{
	const char *s = k->server, *h, *h_end, *p = NULL;
	size_t hl;

	u->tls = !strncmp(s, "https://", 8);
	if (!u->tls && strncmp(s, "http://", 7))
		return rn_fail(e, -EINVAL, "server \"%s\" is not an http(s) URL", s);
	h = s + (u->tls ? 8 : 7);
	u->prefix = h + strcspn(h, "/");
	if (*h == '[') {
		h_end = memchr(h, ']', u->prefix - h);
		if (!h_end)
			return rn_fail(e, -EINVAL, "server \"%s\": no ']'", s);
		h++;
		if (h_end[1] == ':')
			p = h_end + 2;
		else if (h_end + 1 != u->prefix)
			return rn_fail(e, -EINVAL, "server \"%s\": text after ']'", s);
	} else {
		h_end = memchr(h, ':', u->prefix - h);
		if (h_end)
			p = h_end + 1;
		else
			h_end = u->prefix;
	}
	hl = h_end - h;
	if (!hl || hl >= sizeof(u->host) ||
	    (p && ((size_t)(u->prefix - p) >= sizeof(u->port) || p == u->prefix)))
		return rn_fail(e, -EINVAL, "server \"%s\": no host or a bad port", s);
	memcpy(u->host, h, hl);
	u->host[hl] = '\0';
	if (p) {
		memcpy(u->port, p, u->prefix - p);
		u->port[u->prefix - p] = '\0';
	} else {
		snprintf(u->port, sizeof(u->port), "%s", u->tls ? "443" : "80");
	}
	return 0;
}

void rn_kube_http_close(struct rn_kube *k)
{
	if (k->ssl)
		k->ssl_api->SSL_free(k->ssl);	/* no close_notify: the socket goes */
	k->ssl = NULL;
	if (k->conn_open)
		close(k->fd);
	k->conn_open = false;
}

/* Each address gets an equal share of the time left, so one that drops
 * packets (an unreachable AAAA) leaves time for the next. */
static int tcp_connect(struct rn_kube *k, const char *host, const char *port, long long deadline,
		       struct rn_error *e)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int rc, n = 0, i = 0, err = -ECONNREFUSED, one = 1;

	/* not bounded by the deadline: glibc's resolver has its own
	 * timeouts (resolv.conf); in a cluster the server is an address */
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc)
		return rn_fail(e, -EHOSTUNREACH, "cannot resolve %s: %s", host,
			       rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next)
		n++;
	for (ai = res; ai; ai = ai->ai_next, i++) {
		long long share = rn_monotonic_ms() + (deadline - rn_monotonic_ms()) / (n - i);
		socklen_t len = sizeof(rc);
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
				ai->ai_protocol);

		if (fd < 0) {
			err = -errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
			err = -errno;
			close(fd);
			continue;
		}
		err = rn_kube_wait(fd, POLLOUT, share);
		if (!err && getsockopt(fd, SOL_SOCKET, SO_ERROR, &rc, &len))
			err = -errno;
		else if (!err && rc)
			err = -rc;
		if (err) {
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		k->fd = fd;
		k->conn_open = true;
		break;
	}
	freeaddrinfo(res);
	if (err)
		return rn_fail(e, err, "cannot connect to %s port %s: %s", host, port,
			       err == -ETIMEDOUT ? "timed out" : strerror(-err));
	return 0;
}

static int conn_open(struct rn_kube *k, const struct server_url *u, long long deadline,
		     struct rn_error *e)
{
	int err = u->tls ? rn_kube_tls_context(k, e) : 0;

	if (!err)
		err = tcp_connect(k, u->host, u->port, deadline, e);
	if (!err && u->tls)
		err = rn_kube_tls_handshake(k, u->host, deadline, e);
	if (err)
		rn_kube_http_close(k);
	return err;
}

/* A kept-alive connection with something to read (the server's close, or
 * bytes nobody asked for) cannot carry the next request. */
static bool conn_reusable(const struct rn_kube *k)
{
	struct pollfd p = { .fd = k->fd, .events = POLLIN };

	if (k->ssl && k->ssl_api->SSL_pending(k->ssl) > 0)
		return false;
	return poll(&p, 1, 0) == 0;
}

/* the socket's wait for what an SSL call wants; -EPROTO when it failed */
static int ssl_wait(struct rn_kube *k, int rc, long long deadline)
{
	const struct rn_ssl_api *api = k->ssl_api;

	switch (api->SSL_get_error(k->ssl, rc)) {
	case SSL_ERROR_WANT_READ:
		return rn_kube_wait(k->fd, POLLIN, deadline);
	case SSL_ERROR_WANT_WRITE:
		return rn_kube_wait(k->fd, POLLOUT, deadline);
	case SSL_ERROR_SYSCALL:
		api->ERR_clear_error();
		return errno ? -errno : -EPIPE;
	default:
		api->ERR_clear_error();
		return -EPROTO;
	}
}

static int write_all(struct rn_kube *k, const char *buf, size_t n, long long deadline)
{
	int err = 0;

	while (n && !err) {
		ssize_t w;

		if (k->ssl) {
			/* not partial: all of it, or a wait and the same call again */
			int rc = k->ssl_api->SSL_write(k->ssl, buf, n > INT_MAX ? INT_MAX : (int)n);

			if (rc <= 0) {
				err = ssl_wait(k, rc, deadline);
				continue;
			}
			w = rc;
		} else {
			w = send(k->fd, buf, n, MSG_NOSIGNAL);
			if (w < 0) {
				err = errno == EAGAIN ? rn_kube_wait(k->fd, POLLOUT, deadline)
				      : errno == EINTR ? 0 : -errno;
				continue;
			}
		}
		buf += w;
		n -= (size_t)w;
	}
	return err;
}

/* >0 bytes, 0 at the end of the stream, or -errno */
static ssize_t read_some(struct rn_kube *k, char *buf, size_t size, long long deadline)
{
	for (;;) {
		ssize_t r;
		int err;

		if (k->ssl) {
			int rc = k->ssl_api->SSL_read(k->ssl, buf, (int)size);

			if (rc > 0)
				return rc;
			if (k->ssl_api->SSL_get_error(k->ssl, rc) == SSL_ERROR_ZERO_RETURN)
				return 0;	/* close_notify */
			/* OpenSSL 3 reads an end without close_notify as an
			 * error: an answer running to the close is never cut
			 * short unnoticed */
			err = ssl_wait(k, rc, deadline);
		} else {
			r = recv(k->fd, buf, size, 0);
			if (r >= 0)
				return r;
			err = errno == EAGAIN ? rn_kube_wait(k->fd, POLLIN, deadline)
			      : errno == EINTR ? 0 : -errno;
		}
		if (err)
			return err;
	}
}

/* The answer to what was written; *got: whether any byte of it came */
static int read_answer(struct rn_kube *k, struct rn_http_answer *ans, long long deadline,
		       bool *got, struct rn_error *e)
{
	char buf[READ_CHUNK];
	int rc = 0;

	*got = false;
	while (rc == 0) {
		ssize_t n = read_some(k, buf, sizeof(buf), deadline);
		size_t used;

		if (n < 0)
			return rn_fail(e, (int)n, "reading the answer: %s",
				       n == -ETIMEDOUT ? "no answer in time" : strerror((int)-n));
		if (n == 0) {
			rc = rn_http_answer_eof(ans);
			break;
		}
		*got = true;
		rc = rn_http_answer_feed(ans, buf, (size_t)n, &used);
		/* nothing may follow an answer to a request not pipelined */
		if (rc == 1 && used < (size_t)n)
			ans->keep_alive = false;
	}
	if (rc < 0)
		return rn_fail(e, rc == -2 ? -ENOMEM : -EPROTO, "the answer: %s", ans->err);
	return 0;
}

/* method path HTTP/1.1 and the headers (the body follows) */
static int request_head(const struct rn_kube *k, const struct server_url *u, const char *method,
			const char *path, const char *type, size_t body_len, bool has_body,
			char **out, struct rn_error *e)
{
	bool v6 = strchr(u->host, ':') != NULL;
	char *auth = NULL;
	int n;

	*out = NULL;
	if (k->token && asprintf(&auth, "Authorization: Bearer %s\r\n", k->token) < 0)
		return rn_fail(e, -ENOMEM, "out of memory");
	n = asprintf(out,
		     "%s %s%s HTTP/1.1\r\n"
		     "Host: %s%s%s:%s\r\n"
		     "User-Agent: rdmanetd\r\n"
		     "Accept: application/json\r\n"
		     "%s"
		     "%s%s%s"
		     "Content-Length: %zu\r\n"
		     "\r\n",
		     method, u->prefix, path, v6 ? "[" : "", u->host, v6 ? "]" : "", u->port,
		     auth ? auth : "",
		     has_body ? "Content-Type: " : "", has_body ? type : "", has_body ? "\r\n" : "",
		     body_len);
	free(auth);
	if (n < 0) {
		*out = NULL;
		return rn_fail(e, -ENOMEM, "out of memory");
	}
	return 0;
}

/* One attempt on the open connection (opened first if none): 1 when it
 * failed in a way that sending again on a new connection may fix. */
static int attempt(struct rn_kube *k, const struct server_url *u, const char *method,
		   const char *head, const char *body, size_t body_len, struct rn_http_answer *ans,
		   long long deadline, int *err, struct rn_error *e)
{
	bool reused = k->conn_open, got = false;

	if (reused && !conn_reusable(k)) {
		rn_kube_http_close(k);
		reused = false;
	}
	if (!reused && (*err = conn_open(k, u, deadline, e)))
		return 0;
	*err = write_all(k, head, strlen(head), deadline);
	if (!*err && body_len)
		*err = write_all(k, body, body_len, deadline);
	if (*err) {
		rn_kube_http_close(k);
		rn_fail(e, *err, "sending the request: %s",
			*err == -ETIMEDOUT ? "timed out" : strerror(-*err));
		/* a request not written whole was not taken */
		return reused && *err != -ETIMEDOUT;
	}
	*err = read_answer(k, ans, deadline, &got, e);
	if (*err || !ans->keep_alive)
		rn_kube_http_close(k);
	return *err && reused && !got && *err != -ETIMEDOUT && strcmp(method, "POST");
}

int rn_kube_http(struct rn_kube *k, const char *method, const char *path, const char *type,
		 const char *body, struct rn_http_answer *ans, struct rn_error *e)
{
	long long deadline = rn_monotonic_ms() + k->timeout_ms;
	size_t body_len = body ? strlen(body) : 0;
	sigset_t pipe_set, old, pending;
	struct server_url u;
	bool was_pending;
	char *head;
	int err = split_server(k, &u, e);

	if (!err)
		err = request_head(k, &u, method, path, type, body_len, body != NULL, &head, e);
	if (err)
		return err;
	/* SIGPIPE, which writing to a connection the server closed raises
	 * (OpenSSL writes with write(2), which has no MSG_NOSIGNAL), held
	 * back for the thread for the whole request, the handshake's and
	 * alerts' writes included, and taken if it was raised: the agent
	 * ignores it, a program using this client may not */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	for (int i = 0; i < 2; i++) {
		rn_http_answer_free(ans);
		memset(ans, 0, sizeof(*ans));
		ans->max = k->answer_max;
		if (!attempt(k, &u, method, head, body, body_len, ans, deadline, &err, e) || i == 1)
			break;
		if (e)	/* the new connection's outcome is the request's */
			*e = (struct rn_error){ 0 };
	}
	sigpending(&pending);
	if (!was_pending && sigismember(&pending, SIGPIPE)) {
		struct timespec zero = { 0 };

		sigtimedwait(&pipe_set, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(head);
	return err;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* HTTP/1.1 to the API server over one kept-alive connection (TLS for
 * https://): a request written whole, its answer read whole
 * (http_answer.h). One deadline, the client's timeout, covers the whole
 * request from the connect on. A kept-alive connection the server has
 * closed meanwhile (its idle timeout) fails before any byte of the
 * answer: the request is then sent once more on a new connection, as
 * HTTP clients do; the server never saw the first one. */
#include <errno.h>
#include <fcntl.h>
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

#define READ_CHUNK 16384

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* the socket's send and receive timeouts: what is left of the deadline */
static int arm(struct rn_kube *k, long long deadline)
{
	long long left = deadline - now_ms();
	struct timeval tv;

	if (left <= 0)
		return -ETIMEDOUT;
	tv.tv_sec = left / 1000;
	tv.tv_usec = (left % 1000) * 1000;
	if (setsockopt(k->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(k->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -errno;
	return 0;
}

/* k->server split: scheme, host (no brackets), port, path prefix */
static int split_server(struct rn_kube *k, char *host, size_t hsize, char *port, size_t psize,
			const char **prefix, struct rn_error *e)
{
	const char *s = k->server, *h, *h_end, *p = NULL;
	size_t hl;

	k->tls = !strncmp(s, "https://", 8);
	if (!k->tls && strncmp(s, "http://", 7))
		return rn_fail(e, -EINVAL, "server \"%s\" is not an http(s) URL", s);
	h = s + (k->tls ? 8 : 7);
	*prefix = h + strcspn(h, "/");
	if (*h == '[') {
		h_end = memchr(h, ']', *prefix - h);
		if (!h_end)
			return rn_fail(e, -EINVAL, "server \"%s\": no ']'", s);
		h++;
		if (h_end[1] == ':')
			p = h_end + 2;
	} else {
		h_end = memchr(h, ':', *prefix - h);
		if (h_end)
			p = h_end + 1;
		else
			h_end = *prefix;
	}
	hl = h_end - h;
	if (!hl || hl >= hsize || (p && ((size_t)(*prefix - p) >= psize || p == *prefix)))
		return rn_fail(e, -EINVAL, "server \"%s\": no host or a bad port", s);
	memcpy(host, h, hl);
	host[hl] = '\0';
	if (p) {
		memcpy(port, p, *prefix - p);
		port[*prefix - p] = '\0';
	} else {
		snprintf(port, psize, "%s", k->tls ? "443" : "80");
	}
	return 0;
}

void rn_kube_http_close(struct rn_kube *k)
{
	const struct rn_ssl_api *api = k->ssl_api;

	if (k->ssl)
		api->SSL_free(k->ssl);	/* no close_notify: the socket goes */
	k->ssl = NULL;
	if (k->conn_open)
		close(k->fd);
	k->conn_open = false;
}

static int tcp_connect(struct rn_kube *k, const char *host, const char *port, long long deadline,
		       struct rn_error *e)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int rc, err = -ECONNREFUSED, one = 1;

	rc = getaddrinfo(host, port, &hints, &res);
	if (rc)
		return rn_fail(e, -EHOSTUNREACH, "cannot resolve %s: %s", host, gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		struct pollfd pfd = { .events = POLLOUT };
		socklen_t len = sizeof(rc);
		long long left = deadline - now_ms();
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
		pfd.fd = fd;
		rc = left > 0 ? poll(&pfd, 1, (int)left) : 0;
		if (rc <= 0) {
			err = rc ? -errno : -ETIMEDOUT;
			close(fd);
			continue;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &rc, &len) || rc) {
			err = rc ? -rc : -errno;
			close(fd);
			continue;
		}
		/* blocking from here on, bounded by the socket timeouts */
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
			err = -errno;
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		k->fd = fd;
		k->conn_open = true;
		err = 0;
		break;
	}
	freeaddrinfo(res);
	if (err)
		return rn_fail(e, err, "cannot connect to %s port %s: %s", host, port, strerror(-err));
	return 0;
}

static int conn_open(struct rn_kube *k, long long deadline, struct rn_error *e)
{
	char host[256], port[16];
	const char *prefix;
	int err = split_server(k, host, sizeof(host), port, sizeof(port), &prefix, e);

	if (!err && k->tls)
		err = rn_kube_tls_context(k, e);
	if (!err)
		err = tcp_connect(k, host, port, deadline, e);
	if (!err && k->tls) {
		err = arm(k, deadline);
		if (err)
			rn_fail(e, err, "the TLS handshake timed out");
		else
			err = rn_kube_tls_handshake(k, host, e);
	}
	if (err)
		rn_kube_http_close(k);
	return err;
}

/* SIGPIPE, which a write to a connection the server closed raises, held
 * back for the thread while it writes (and taken if the write raised it):
 * the agent ignores it, a program using this client may not. OpenSSL
 * writes with write(2), which has no MSG_NOSIGNAL. */
static int write_all(struct rn_kube *k, const char *buf, size_t n)
{
	const struct rn_ssl_api *api = k->ssl_api;
	sigset_t pipe_set, old, pending;
	bool was_pending;
	int err = 0;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	while (n && !err) {
		ssize_t w;

		if (k->ssl) {
			int rc = api->SSL_write(k->ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);

			w = rc > 0 ? rc : -1;
			if (rc <= 0)
				errno = rn_kube_tls_timed_out(api, k->ssl, rc) ? EAGAIN
					: errno && errno != EAGAIN ? errno : EPIPE;
			api->ERR_clear_error();
		} else {
			w = send(k->fd, buf, n, MSG_NOSIGNAL);
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			err = errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
		else {
			buf += w;
			n -= (size_t)w;
		}
	}
	if (err == -EPIPE && !was_pending) {
		struct timespec zero = { 0 };

		sigtimedwait(&pipe_set, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* >0 bytes, 0 at the end of the stream, or -errno */
static ssize_t read_some(struct rn_kube *k, char *buf, size_t size)
{
	const struct rn_ssl_api *api = k->ssl_api;
	ssize_t r;

	do {
		errno = 0;
		if (k->ssl) {
			int rc = api->SSL_read(k->ssl, buf, (int)size);

			if (rc > 0)
				return rc;
			if (rn_kube_tls_timed_out(api, k->ssl, rc)) {
				api->ERR_clear_error();
				return -ETIMEDOUT;
			}
			switch (api->SSL_get_error(k->ssl, rc)) {
			case SSL_ERROR_ZERO_RETURN:	/* close_notify */
				return 0;
			case SSL_ERROR_SYSCALL:		/* EOF without close_notify: errno 0 */
				api->ERR_clear_error();
				if (!errno)
					return 0;
				r = -1;
				break;
			default:
				api->ERR_clear_error();
				errno = EPROTO;
				r = -1;
			}
		} else {
			r = recv(k->fd, buf, size, 0);
		}
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
	return r;
}

/* The answer to what was written; *got: whether any byte of it came */
static int read_answer(struct rn_kube *k, struct rn_http_answer *ans, long long deadline,
		       bool *got, struct rn_error *e)
{
	char buf[READ_CHUNK];
	int rc = 0;

	*got = false;
	while (rc == 0) {
		size_t used;
		ssize_t n;
		int err = arm(k, deadline);

		if (err)
			return rn_fail(e, err, "no answer within %ld ms", k->timeout_ms);
		n = read_some(k, buf, sizeof(buf));
		if (n < 0)
			return rn_fail(e, (int)n, "reading the answer: %s",
				       n == -ETIMEDOUT ? "timed out" : strerror((int)-n));
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
static char *request_head(const struct rn_kube *k, const char *method, const char *path,
			  const char *type, size_t body_len, bool has_body)
{
	char host[300], port[16], *head = NULL, *auth = NULL;
	const char *prefix;
	struct rn_error ignored = { 0 };
	int n;

	if (split_server((struct rn_kube *)k, host, sizeof(host) - 2, port, sizeof(port), &prefix,
			 &ignored))
		return NULL;
	if (k->token && asprintf(&auth, "Authorization: Bearer %s\r\n", k->token) < 0)
		return NULL;
	n = asprintf(&head,
		     "%s %s%s HTTP/1.1\r\n"
		     "Host: %s%s%s:%s\r\n"
		     "User-Agent: rdmanetd\r\n"
		     "Accept: application/json\r\n"
		     "%s"
		     "%s%s%s"
		     "Content-Length: %zu\r\n"
		     "\r\n",
		     method, prefix, path,
		     strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", port,
		     auth ? auth : "",
		     has_body ? "Content-Type: " : "", has_body ? type : "", has_body ? "\r\n" : "",
		     body_len);
	free(auth);
	return n < 0 ? NULL : head;
}

int rn_kube_http(struct rn_kube *k, const char *method, const char *path, const char *type,
		 const char *body, struct rn_http_answer *ans, struct rn_error *e)
{
	long long deadline = now_ms() + k->timeout_ms;
	size_t body_len = body ? strlen(body) : 0;
	char *head = request_head(k, method, path, type, body_len, body != NULL);
	int err = 0;

	if (!head)
		return rn_fail(e, -ENOMEM, "out of memory");
	for (int attempt = 0; attempt < 2; attempt++) {
		bool reused = k->conn_open, got = false;

		rn_http_answer_free(ans);
		memset(ans, 0, sizeof(*ans));
		ans->max = k->answer_max;
		if (!reused && (err = conn_open(k, deadline, e)))
			break;
		err = arm(k, deadline);
		if (!err)
			err = write_all(k, head, strlen(head));
		if (!err && body_len)
			err = write_all(k, body, body_len);
		if (err) {
			rn_kube_http_close(k);
			if (reused && err != -ETIMEDOUT)
				continue;
			rn_fail(e, err, "sending the request: %s",
				err == -ETIMEDOUT ? "timed out" : strerror(-err));
			break;
		}
		err = read_answer(k, ans, deadline, &got, e);
		if (err || !ans->keep_alive)
			rn_kube_http_close(k);
		if (err && reused && !got && err != -ETIMEDOUT) {
			if (e)
				*e = (struct rn_error){ 0 };
			continue;
		}
		break;
	}
	free(head);
	return err;
}

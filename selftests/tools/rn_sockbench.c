// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One plain TCP socket program for the RDMA-vs-TCP benchmark: run as it is
 * it measures the kernel's TCP; run under rsocket's preload library
 * (LD_PRELOAD=.../rsocket/librspreload.so, both ends) the same calls go
 * over RDMA (rsockets). Only socket(), connect(), accept(), send(), recv(),
 * shutdown() and close(): what the preload library intercepts.
 *
 *   rn_sockbench server [--port P]                 serve until killed
 *   rn_sockbench client HOST [--port P] --mode bw   [--bytes N] [--size S]
 *   rn_sockbench client HOST [--port P] --mode lat  [--count N] [--size S]
 *   rn_sockbench client HOST [--port P] --mode conn [--count N]
 *
 * bw: one connection streams N bytes in S-byte sends; the server answers
 * with what it received and the CPU time it spent. lat: S-byte ping-pongs,
 * half the mean round trip. conn: N times socket+connect+close against a
 * server that accepts and closes. The client prints one JSON object:
 * {"mode", "bytes" | "count", "seconds", "gbit_s" | "lat_us" | "conn_us",
 *  "client_cpu_s", "server_cpu_s", "cpu_ns_per_byte"}. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct hdr {
	uint8_t mode;		/* 'b', 'l' */
	uint8_t pad[3];
	uint32_t size;
	uint64_t amount;	/* bytes (bw) or round trips (lat) */
};

struct reply {
	uint64_t bytes;
	uint64_t cpu_ns;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static uint64_t cpu_ns(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (uint64_t)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1000ull;
}

static int full(int fd, void *buf, size_t n, int rd)
{
	char *p = buf;

	while (n) {
		ssize_t k = rd ? recv(fd, p, n, 0) : send(fd, p, n, 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int serve_one(int c, char *buf, size_t cap)
{
	struct hdr h;
	struct reply r = { 0 };
	uint64_t c0 = cpu_ns();
	ssize_t k;

	if (full(c, &h, sizeof(h), 1))
		return 0;	/* conn mode: closed without a word */
	if (h.size == 0 || h.size > cap)
		return -1;
	if (h.mode == 'b') {
		while ((k = recv(c, buf, cap, 0)) > 0)
			r.bytes += (uint64_t)k;
		r.cpu_ns = cpu_ns() - c0;
		return full(c, &r, sizeof(r), 0);
	}
	if (h.mode == 'l') {
		for (uint64_t i = 0; i < h.amount; i++)
			if (full(c, buf, h.size, 1) || full(c, buf, h.size, 0))
				return -1;
		return 0;
	}
	return -1;
}

static int server(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	size_t cap = 1 << 20;
	char *buf = malloc(cap);
	int one = 1, s = socket(AF_INET, SOCK_STREAM, 0);

	if (s < 0 || !buf || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 128)) {
		perror("rn_sockbench: server");
		return 1;
	}
	fprintf(stderr, "rn_sockbench: listening on %d\n", port);
	for (;;) {
		int c = accept(s, NULL, NULL);

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			perror("rn_sockbench: accept");
			return 1;
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (serve_one(c, buf, cap))
			fprintf(stderr, "rn_sockbench: a connection failed\n");
		close(c);
	}
}

static int dial(const struct sockaddr_in *a)
{
	int one = 1, s = socket(AF_INET, SOCK_STREAM, 0);

	if (s < 0)
		return -1;
	if (connect(s, (const struct sockaddr *)a, sizeof(*a))) {
		close(s);
		return -1;
	}
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return s;
}

int main(int argc, char **argv)
{
	const char *host = NULL, *mode = "bw";
	long port = 19875, size = 65536, count = 1000;
	unsigned long long bytes = 256ull << 20;
	struct sockaddr_in a = { .sin_family = AF_INET };
	double t0, t1;
	uint64_t c0, c1;
	char *buf;
	int s;

	if (argc < 2)
		goto usage;
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (o[0] != '-' && !host) {
			host = o;
			continue;
		}
		if (!v)
			goto usage;
		if (!strcmp(o, "--port"))
			port = strtol(v, NULL, 0);
		else if (!strcmp(o, "--mode"))
			mode = v;
		else if (!strcmp(o, "--size"))
			size = strtol(v, NULL, 0);
		else if (!strcmp(o, "--count"))
			count = strtol(v, NULL, 0);
		else if (!strcmp(o, "--bytes"))
			bytes = strtoull(v, NULL, 0);
		else
			goto usage;
		i++;
	}
	if (port <= 0 || port > 65535 || size <= 0 || size > (1 << 20) || count <= 0)
		goto usage;
	if (!strcmp(argv[1], "server"))
		return server((int)port);
	if (strcmp(argv[1], "client") || !host || inet_pton(AF_INET, host, &a.sin_addr) != 1)
		goto usage;
	a.sin_port = htons((uint16_t)port);
	buf = calloc(1, (size_t)size);
	if (!buf)
		return 1;

	if (!strcmp(mode, "conn")) {
		c0 = cpu_ns();
		t0 = now_s();
		for (long i = 0; i < count; i++) {
			s = dial(&a);
			if (s < 0) {
				perror("rn_sockbench: connect");
				return 1;
			}
			close(s);
		}
		t1 = now_s();
		c1 = cpu_ns();
		printf("{\"mode\": \"conn\", \"count\": %ld, \"seconds\": %.6f, \"conn_us\": %.2f, "
		       "\"client_cpu_s\": %.6f}\n", count, t1 - t0, (t1 - t0) * 1e6 / count,
		       (c1 - c0) / 1e9);
		return 0;
	}
	s = dial(&a);
	if (s < 0) {
		perror("rn_sockbench: connect");
		return 1;
	}
	if (!strcmp(mode, "bw")) {
		struct hdr h = { .mode = 'b', .size = (uint32_t)size, .amount = bytes };
		struct reply r;
		unsigned long long left = bytes;

		c0 = cpu_ns();
		t0 = now_s();
		if (full(s, &h, sizeof(h), 0))
			return perror("rn_sockbench: send"), 1;
		while (left) {
			size_t n = left < (unsigned long long)size ? (size_t)left : (size_t)size;

			if (full(s, buf, n, 0))
				return perror("rn_sockbench: send"), 1;
			left -= n;
		}
		shutdown(s, SHUT_WR);
		if (full(s, &r, sizeof(r), 1))
			return fprintf(stderr, "rn_sockbench: no reply from the server\n"), 1;
		t1 = now_s();
		c1 = cpu_ns();
		if (r.bytes != bytes)
			return fprintf(stderr, "rn_sockbench: server got %llu of %llu bytes\n",
				       (unsigned long long)r.bytes, bytes), 1;
		printf("{\"mode\": \"bw\", \"bytes\": %llu, \"seconds\": %.6f, \"gbit_s\": %.4f, "
		       "\"client_cpu_s\": %.6f, \"server_cpu_s\": %.6f, \"cpu_ns_per_byte\": %.4f}\n",
		       bytes, t1 - t0, bytes * 8 / (t1 - t0) / 1e9, (c1 - c0) / 1e9, r.cpu_ns / 1e9,
		       ((c1 - c0) + r.cpu_ns) / (double)bytes);
	} else if (!strcmp(mode, "lat")) {
		struct hdr h = { .mode = 'l', .size = (uint32_t)size, .amount = (uint64_t)count };

		if (full(s, &h, sizeof(h), 0))
			return perror("rn_sockbench: send"), 1;
		c0 = cpu_ns();
		t0 = now_s();
		for (long i = 0; i < count; i++)
			if (full(s, buf, (size_t)size, 0) || full(s, buf, (size_t)size, 1))
				return fprintf(stderr, "rn_sockbench: ping-pong %ld failed\n", i), 1;
		t1 = now_s();
		c1 = cpu_ns();
		printf("{\"mode\": \"lat\", \"count\": %ld, \"size\": %ld, \"seconds\": %.6f, "
		       "\"lat_us\": %.2f, \"client_cpu_s\": %.6f}\n", count, size, t1 - t0,
		       (t1 - t0) * 1e6 / count / 2, (c1 - c0) / 1e9);
	} else {
		goto usage;
	}
	close(s);
	return 0;
usage:
	fprintf(stderr, "usage: rn_sockbench server [--port P]\n"
			"       rn_sockbench client IPV4 [--port P] --mode bw|lat|conn "
			"[--bytes N] [--size S] [--count N]\n");
	return 2;
}

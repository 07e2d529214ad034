// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test traffic sink: counts UDP datagrams on a port and prints the count
 * once none has arrived for --idle-ms (after the first), or at --max-s.
 *
 *   rn_udpsink [--port 4791] [--idle-ms 1500] [--max-s 60] [--ready FILE]
 *
 * --ready FILE is created once the socket is bound, so a test can start
 * sending without racing the bind. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long port = 4791, idle = 1500, max_s = 60, count = 0, start, last = 0;
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	const char *ready = NULL;
	int fd, buf = 16 << 20, off = 0;
	char data[65536];

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--port")) port = strtol(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--idle-ms")) idle = strtol(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--max-s")) max_s = strtol(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--ready")) ready = argv[i + 1];
		else {
			fprintf(stderr, "rn_udpsink: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off))) {
		perror("rn_udpsink: socket");
		return 1;
	}
	/* a restart test must not lose datagrams to a full socket buffer */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf));
	a.sin6_port = htons((unsigned short)port);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("rn_udpsink: bind");
		return 1;
	}
	if (ready)
		fclose(fopen(ready, "w"));
	start = now_ms();
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long t = now_ms();

		if (t - start > max_s * 1000 || (count && t - last > idle))
			break;
		if (poll(&p, 1, 100) <= 0)
			continue;
		while (recv(fd, data, sizeof(data), MSG_DONTWAIT) >= 0) {
			count++;
			last = now_ms();
		}
	}
	printf("%ld\n", count);
	return 0;
}

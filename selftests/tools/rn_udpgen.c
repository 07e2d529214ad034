// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test traffic: RoCEv2-shaped UDP datagrams (a valid BTH, optionally a
 * CNP) or plain UDP, from a normal socket, so the kernel builds real
 * packets through the pod's stack.
 *
 *   rn_udpgen --dst IP [--port 4791] [--count N] [--size BYTES]
 *             [--opcode N | --plain] [--tos N] [--src IP] [--interval-us N]
 *
 * --src binds with IP_TRANSPARENT, so it can send from an address the
 * host does not own (the spoofing tests). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

static int parse_addr(const char *s, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((unsigned short)port);
		*len = sizeof(*a4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, s, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((unsigned short)port);
		*len = sizeof(*a6);
		return AF_INET6;
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *dst = NULL, *src = NULL;
	long port = 4791, count = 100, size = 256, opcode = 0x04, tos = -1, interval = 0;
	struct sockaddr_storage da, sa;
	socklen_t dlen, slen;
	unsigned char buf[65536];
	int plain = 0, fam, fd, one = 1;

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--plain")) {
			plain = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "rn_udpgen: %s needs a value\n", o);
			return 2;
		}
		i++;
		if (!strcmp(o, "--dst")) dst = v;
		else if (!strcmp(o, "--src")) src = v;
		else if (!strcmp(o, "--port")) port = strtol(v, NULL, 0);
		else if (!strcmp(o, "--count")) count = strtol(v, NULL, 0);
		else if (!strcmp(o, "--size")) size = strtol(v, NULL, 0);
		else if (!strcmp(o, "--opcode")) opcode = strtol(v, NULL, 0);
		else if (!strcmp(o, "--tos")) tos = strtol(v, NULL, 0);
		else if (!strcmp(o, "--interval-us")) interval = strtol(v, NULL, 0);
		else {
			fprintf(stderr, "rn_udpgen: unknown option %s\n", o);
			return 2;
		}
	}
	if (!dst || (fam = parse_addr(dst, (int)port, &da, &dlen)) < 0 || size < 12 ||
	    size > (long)sizeof(buf)) {
		fprintf(stderr, "usage: rn_udpgen --dst IP [--port N] [--count N] [--size 12..65535]"
				" [--opcode N|--plain] [--tos N] [--src IP] [--interval-us N]\n");
		return 2;
	}
	fd = socket(fam, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("rn_udpgen: socket");
		return 1;
	}
	if (tos >= 0) {
		int t = (int)tos;

		if (fam == AF_INET ? setsockopt(fd, IPPROTO_IP, IP_TOS, &t, sizeof(t))
				   : setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &t, sizeof(t))) {
			perror("rn_udpgen: tos");
			return 1;
		}
	}
	if (src) {
		if (parse_addr(src, 0, &sa, &slen) != fam) {
			fprintf(stderr, "rn_udpgen: --src family differs from --dst\n");
			return 2;
		}
		if (fam == AF_INET)
			setsockopt(fd, IPPROTO_IP, IP_TRANSPARENT, &one, sizeof(one));
		else
			setsockopt(fd, IPPROTO_IPV6, IPV6_TRANSPARENT, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&sa, slen)) {
			perror("rn_udpgen: bind");
			return 1;
		}
	}
	memset(buf, 0, sizeof(buf));
	if (!plain) {
		/* BTH: opcode, SE/M/pad/tver, P_Key 0xffff, dest QP 0x11, PSN */
		buf[0] = (unsigned char)opcode;
		buf[2] = 0xff;
		buf[3] = 0xff;
		buf[7] = 0x11;
	}
	for (long n = 0; n < count; n++) {
		if (!plain) {
			buf[9] = (unsigned char)(n >> 16);
			buf[10] = (unsigned char)(n >> 8);
			buf[11] = (unsigned char)n;
		}
		if (sendto(fd, buf, (size_t)size, 0, (struct sockaddr *)&da, dlen) != size) {
			perror("rn_udpgen: sendto");
			return 1;
		}
		if (interval) {
			struct timespec ts = { interval / 1000000, (interval % 1000000) * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	close(fd);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ipam_stress: one allocator process for the IPAM concurrency, crash and
 * fault tests and the benchmarks.
 *
 *   ipam_stress -c CONFIG -p POOL[,POOL...] (-n COUNT | -u) -i ID_PREFIX
 *               [-r REPORT] [-s START_EPOCH_MS] [-R | -X] [-t RETRY_SECONDS]
 *
 * Allocates COUNT addresses for owners ID_PREFIX-0 .. ID_PREFIX-(COUNT-1)
 * (interface "net1"), each through rn_ipam_allocate, and appends
 * "container_id ifname address..." to REPORT with one write(2) right after
 * the allocation returned: what is in REPORT was reported to a caller, so
 * it must be in the store whatever happens to this process afterwards.
 * -R then releases them all; -X only releases (a second phase of a
 * benchmark). -s waits for a wall-clock start so parallel
 * processes begin together. "Try again later" (-EAGAIN) is retried for up
 * to RETRY_SECONDS (default 0: it is an error). -u allocates until the
 * process is killed: new owners without end, and a full pool is waited out
 * (retried), never an exit, so a crash test's kill always lands mid-run
 * however fast the store is. Prints one JSON line:
 * {"allocated", "released", "alloc_s", "release_s", "eagain", "max_eagain_ms"}. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "ipam/ipam.h"

struct opts {
	const char *config, *pools, *prefix, *report;
	long count;
	long long start_ms;
	bool release, release_only, unbounded;
	int retry_s;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void wait_until(long long epoch_ms)
{
	struct timespec ts;
	long long now;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (epoch_ms > now)
		usleep((useconds_t)((epoch_ms - now) * 1000));
}

static int usage(void)
{
	fprintf(stderr, "usage: ipam_stress -c CONFIG -p POOL[,POOL] (-n COUNT | -u) -i ID_PREFIX "
		"[-r REPORT] [-s START_EPOCH_MS] [-R | -X] [-t RETRY_SECONDS]\n");
	return 2;
}

/* Pool names split by family, as the CNI plugin would pass them. */
static int split_pools(struct rn_ipam *ipam, char *list, const char **v4, unsigned int *n4,
		       const char **v6, unsigned int *n6)
{
	char *save = NULL;

	*n4 = *n6 = 0;
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		struct rn_ipam_pool_info info;
		struct rn_error e = { 0 };

		if (rn_ipam_pool_get(ipam, t, &info, &e)) {
			fprintf(stderr, "ipam_stress: %s\n", e.msg);
			return -1;
		}
		if (rn_pool_family(&info.pool) == AF_INET && *n4 < RN_IPAM_MAX_POOLS)
			v4[(*n4)++] = t;
		else if (*n6 < RN_IPAM_MAX_POOLS)
			v6[(*n6)++] = t;
		rn_pool_free(&info.pool);
	}
	return 0;
}

static int report_line(int fd, const char *cid, const struct rn_ipam_result *res)
{
	char line[512];
	int len = snprintf(line, sizeof(line), "%s net1", cid);

	for (unsigned int i = 0; i < res->n; i++) {
		char a[RN_ADDR_STRLEN];

		len += snprintf(line + len, sizeof(line) - (size_t)len, " %s",
				rn_addr_format(&res->addrs[i].address.addr, a));
	}
	line[len++] = '\n';
	return fd < 0 || write(fd, line, (size_t)len) == len ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *v4[RN_IPAM_MAX_POOLS], *v6[RN_IPAM_MAX_POOLS];
	struct opts o = { .count = 1 };
	struct rn_error e = { 0 };
	long allocated = 0, released = 0, eagain = 0;
	double t0, t_alloc, t_rel = 0, max_wait = 0;
	struct rn_ipam_request req = { 0 };
	struct rn_config cfg;
	struct rn_ipam *ipam;
	char pools[512];
	int fd = -1, c;

	while ((c = getopt(argc, argv, "c:p:n:ui:r:s:RXt:")) != -1) {
		switch (c) {
		case 'c': o.config = optarg; break;
		case 'p': o.pools = optarg; break;
		case 'n': o.count = atol(optarg); break;
		case 'u': o.unbounded = true; break;
		case 'i': o.prefix = optarg; break;
		case 'r': o.report = optarg; break;
		case 's': o.start_ms = atoll(optarg); break;
		case 'R': o.release = true; break;
		case 'X': o.release = o.release_only = true; break;
		case 't': o.retry_s = atoi(optarg); break;
		default: return usage();
		}
	}
	if (!o.config || !o.pools || !o.prefix || o.count < 0 ||
	    (o.unbounded && (o.release || o.start_ms)))
		return usage();
	if (rn_config_load(&cfg, o.config, &e)) {
		fprintf(stderr, "ipam_stress: %s\n", e.msg);
		return 1;
	}
	if (o.report) {
		fd = open(o.report, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0) {
			perror(o.report);
			return 1;
		}
	}
	snprintf(pools, sizeof(pools), "%s", o.pools);
	if (o.start_ms)
		wait_until(o.start_ms);
	t0 = now_s();
	if (rn_ipam_open(&ipam, &cfg, &e)) {
		fprintf(stderr, "ipam_stress: %s\n", e.msg);
		return e.code == -EAGAIN ? 75 : 1;
	}
	if (split_pools(ipam, pools, v4, &req.n_ipv4_pools, v6, &req.n_ipv6_pools))
		return 1;
	req.ipv4_pools = v4;
	req.ipv6_pools = v6;
	req.ifname = "net1";
	req.pod_namespace = "stress";
	for (long i = 0; (o.unbounded || i < o.count) && !o.release_only; i++) {
		struct rn_ipam_result res;
		char cid[128];
		double first_fail = 0;

		snprintf(cid, sizeof(cid), "%s-%ld", o.prefix, i);
		req.container_id = cid;
		req.pod_name = cid;
		for (;;) {
			int err = rn_ipam_allocate(ipam, &req, &res, &e);

			if (!err)
				break;
			if (o.unbounded && err == -ENOSPC) {
				usleep(10000);
				continue;
			}
			if (err != -EAGAIN || !o.retry_s ||
			    (first_fail && now_s() - first_fail > o.retry_s)) {
				fprintf(stderr, "ipam_stress: %s: %s\n", cid, e.msg);
				return err == -EAGAIN ? 75 : 1;
			}
			if (!first_fail)
				first_fail = now_s();
			eagain++;
			usleep(100000);
		}
		if (first_fail && now_s() - first_fail > max_wait)
			max_wait = now_s() - first_fail;
		if (report_line(fd, cid, &res)) {
			perror("report");
			return 1;
		}
		allocated++;
	}
	t_alloc = now_s() - t0;
	if (o.release) {
		t0 = now_s();
		for (long i = 0; i < o.count; i++) {
			char cid[128];
			int n;

			snprintf(cid, sizeof(cid), "%s-%ld", o.prefix, i);
			n = rn_ipam_release(ipam, cid, "net1", &e);
			if (n < 0) {
				fprintf(stderr, "ipam_stress: release %s: %s\n", cid, e.msg);
				return 1;
			}
			released += n;
		}
		t_rel = now_s() - t0;
	}
	rn_ipam_close(ipam);
	rn_config_free(&cfg);
	printf("{\"allocated\": %ld, \"released\": %ld, \"alloc_s\": %.6f, \"release_s\": %.6f, "
	       "\"eagain\": %ld, \"max_eagain_ms\": %.0f}\n", allocated, released, t_alloc, t_rel,
	       eagain, max_wait * 1000);
	return 0;
}

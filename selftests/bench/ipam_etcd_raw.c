// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ipam_etcd_raw URL[,URL...] N PREFIX: the raw single-client
 * compare-and-swap rate of an etcd cluster, the baseline of the IPAM's
 * etcd rate: N transactions "if PREFIX/i does not exist, put it", one after
 * another, through the same JSON gateway and HTTP client (keep-alive
 * libcurl) the store uses. Prints {"txn": N, "seconds": S, "per_s": R}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipam/etcd_client.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct rn_ipam_settings st = { .timeout_ms = 10000 };
	struct rn_error e = { 0 };
	struct rn_etcd *c;
	char *list, *save = NULL;
	long n, done = 0;
	double t0, s;

	if (argc != 4) {
		fprintf(stderr, "usage: ipam_etcd_raw URL[,URL...] N PREFIX\n");
		return 2;
	}
	n = atol(argv[2]);
	list = strdup(argv[1]);
	for (char *t = strtok_r(list, ",", &save); t && st.n_endpoints < RN_IPAM_MAX_ENDPOINTS;
	     t = strtok_r(NULL, ",", &save))
		snprintf(st.endpoints[st.n_endpoints++], RN_IPAM_URL_MAX, "%s", t);
	free(list);
	if (rn_etcd_open(&c, &st, &e)) {
		fprintf(stderr, "ipam_etcd_raw: %s\n", e.msg);
		return 1;
	}
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		char key[256];
		bool ok;

		snprintf(key, sizeof(key), "%s/%ld", argv[3], i);
		rn_etcd_deadline(c);
		if (rn_etcd_txn(c, json_pack("[o]", rn_etcd_cmp_create(key, 0)),
				json_pack("[o]", rn_etcd_op_put(key, "x")), NULL, &ok, NULL, 0,
				&e)) {
			fprintf(stderr, "ipam_etcd_raw: %s\n", e.msg);
			return 1;
		}
		done += ok;
	}
	s = now_s() - t0;
	rn_etcd_close(c);
	printf("{\"txn\": %ld, \"succeeded\": %ld, \"seconds\": %.6f, \"per_s\": %.1f}\n", n, done,
	       s, (double)n / s);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* dra_slices --sysfs ROOT --driver D --node N [--pods M] [--generation G]
 *            [--kubeconfig FILE | --print]
 * This node's DRA devices (the RDMA model of a sysfs tree) as
 * ResourceSlices (user/lib/dra/slices.h): printed (--print), or published
 * to the API server of the kubeconfig, printing "created C updated U
 * unchanged N deleted D". Exit 1 with the error on stderr. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dra/slices.h"

int main(int argc, char **argv)
{
	const char *sysfs = NULL, *driver = RN_DRA_DEFAULT_DRIVER, *node = NULL, *kubeconfig = NULL;
	struct rn_dra_slice_input in = { .shared_pods = RN_DRA_DEFAULT_SHARED_PODS, .generation = 1 };
	struct rn_rdma_model m = { 0 };
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };
	struct rn_dra_device *devs = NULL;
	json_t *slices = NULL;
	bool print = false;
	int n = 0, rc = 1;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--print")) {
			print = true;
			continue;
		}
		if (!v) {
			fprintf(stderr, "dra_slices: %s needs a value\n", argv[i]);
			return 2;
		}
		if (!strcmp(argv[i], "--sysfs"))
			sysfs = v;
		else if (!strcmp(argv[i], "--driver"))
			driver = v;
		else if (!strcmp(argv[i], "--node"))
			node = v;
		else if (!strcmp(argv[i], "--pods"))
			in.shared_pods = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(argv[i], "--generation"))
			in.generation = strtoll(v, NULL, 10);
		else if (!strcmp(argv[i], "--kubeconfig"))
			kubeconfig = v;
		else {
			fprintf(stderr, "dra_slices: unknown option %s\n", argv[i]);
			return 2;
		}
		i++;
	}
	if (!sysfs || !node || (!print && !kubeconfig)) {
		fprintf(stderr, "usage: dra_slices --sysfs ROOT --driver D --node N [--pods M] [--generation G] [--kubeconfig FILE | --print]\n");
		return 2;
	}
	rn_rdma_roots_init(&roots, sysfs);
	in.driver = driver;
	in.pool = node;
	in.node = node;
	in.model = &m;
	in.roots = &roots;
	if (rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_SYSFS, &e) || rn_dra_devices(&m, &devs, &n, &e) ||
	    !(slices = rn_dra_slices_build(&in, devs, n, &e)))
		goto out;
	if (print) {
		json_dumpf(slices, stdout, JSON_INDENT(1) | JSON_SORT_KEYS);
		printf("\n");
		rc = 0;
	} else {
		struct rn_dra_publish_stats st;
		struct rn_kube *k;

		if (rn_kube_open(&k, kubeconfig, NULL, &e))
			goto out;
		if (!rn_dra_slices_publish(k, driver, node, slices, &st, &e)) {
			printf("created %d updated %d unchanged %d deleted %d\n", st.created, st.updated,
			       st.unchanged, st.deleted);
			rc = 0;
		}
		rn_kube_close(k);
	}
out:
	if (rc)
		fprintf(stderr, "%s (%s)\n", e.msg, strerrorname_np(-e.code));
	json_decref(slices);
	free(devs);
	rn_rdma_model_free(&m);
	return rc;
}

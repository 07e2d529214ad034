// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kube_request [--kubeconfig FILE] [--context NAME] METHOD PATH [BODY.json]:
 * one request through user/lib/kubeapi, for the tests. Prints the HTTP
 * status on the first line and the answer's JSON on the second; exits 0 on
 * a 2xx answer, 1 with rn_kube_check's message (and its errno name) on
 * stderr otherwise, 2 when the client could not be set up or the server not
 * reached.
 * kube_request [--kubeconfig FILE] [--context NAME] -: one client, a
 * request per line of stdin ("METHOD PATH [BODY.json]"), each answered with
 * one line "STATUS" or "error ERRNO-NAME", flushed: a test can change
 * things (a rotated token) between two requests of the same client. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kubeapi/kubeapi.h"

static int lines(const char *kubeconfig, const char *context)
{
	struct rn_error e = { 0 };
	struct rn_kube *k;
	char line[1024];

	if (rn_kube_open(&k, kubeconfig, context, &e)) {
		fprintf(stderr, "%s (%s)\n", e.msg, strerrorname_np(-e.code));
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char *method = strtok(line, " \n"), *path = strtok(NULL, " \n");
		char *file = strtok(NULL, " \n");
		struct rn_kube_reply r = { 0 };
		json_t *body = file ? json_load_file(file, 0, NULL) : NULL;

		if (!method || !path)
			continue;
		if (rn_kube_request(k, method, path, body, &r, &e))
			printf("error %s\n", strerrorname_np(-e.code));
		else
			printf("%ld\n", r.status);
		fflush(stdout);
		rn_kube_reply_free(&r);
		json_decref(body);
	}
	rn_kube_close(k);
	return 0;
}

int main(int argc, char **argv)
{
	const char *kubeconfig = NULL, *context = NULL;
	struct rn_kube_reply r = { 0 };
	struct rn_error e = { 0 };
	struct rn_kube *k;
	json_t *body = NULL;
	int i = 1, rc;

	for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--kubeconfig"))
			kubeconfig = argv[i + 1];
		else if (!strcmp(argv[i], "--context"))
			context = argv[i + 1];
		else
			break;
	}
	if (argc - i == 1 && !strcmp(argv[i], "-"))
		return lines(kubeconfig, context);
	if (argc - i < 2 || argc - i > 3) {
		fprintf(stderr, "usage: kube_request [--kubeconfig FILE] [--context NAME] METHOD PATH [BODY.json]\n");
		return 2;
	}
	if (argc - i == 3) {
		json_error_t jerr;

		body = json_load_file(argv[i + 2], 0, &jerr);
		if (!body) {
			fprintf(stderr, "%s: %s\n", argv[i + 2], jerr.text);
			return 2;
		}
	}
	if (rn_kube_open(&k, kubeconfig, context, &e)) {
		fprintf(stderr, "%s (%s)\n", e.msg, strerrorname_np(-e.code));
		json_decref(body);
		return 2;
	}
	rc = rn_kube_request(k, argv[i], argv[i + 1], body, &r, &e);
	json_decref(body);
	if (rc) {
		fprintf(stderr, "%s (%s)\n", e.msg, strerrorname_np(-e.code));
		rn_kube_close(k);
		return 2;
	}
	printf("%ld\n", r.status);
	if (r.body)
		json_dumpf(r.body, stdout, JSON_COMPACT | JSON_SORT_KEYS);
	printf("\n");
	rc = rn_kube_check(&r, argv[i + 1], &e);
	if (rc)
		fprintf(stderr, "%s (%s)\n", e.msg, strerrorname_np(-rc));
	rn_kube_reply_free(&r);
	rn_kube_close(k);
	return rc ? 1 : 0;
}

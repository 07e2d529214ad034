// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rn_dp_config_parse does not write the whole ~400 KiB of its 64 resource
 * slots: the device plugin's config lives in the agent as long as it
 * runs, and a node has a few resources. Counted with mincore() on a fresh
 * anonymous mapping (its pages become resident only when written). Parsed
 * into memory full of garbage, the config is the same as into zeroes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "devplugin/devplugin.h"

static const char section[] =
	"{\"kubelet_dir\": \"/k\", \"configList\": ["
	"{\"resourceName\": \"a\", \"rdmaHcaMax\": 10, \"selectors\": {\"ifNames\": [\"eth1\"]}},"
	"{\"resourceName\": \"b\", \"selectors\": {\"vendors\": [\"15b3\"]}}]}";

static void parse(struct rn_dp_config *dc)
{
	json_t *j = json_loads(section, 0, NULL);
	struct rn_error e = { 0 };

	assert_non_null(j);
	if (rn_dp_config_parse(j, dc, &e))
		fail_msg("refused: %s", e.msg);
	json_decref(j);
}

static size_t resident_pages(void *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page, r = 0;
	unsigned char *v = calloc(n, 1);

	assert_non_null(v);
	assert_int_equal(mincore(p, len, v), 0);
	for (size_t i = 0; i < n; i++)
		r += v[i] & 1;
	free(v);
	return r;
}

static void test_few_pages_written(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = sizeof(struct rn_dp_config);
	struct rn_dp_config *dc = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t touched;

	(void)state;
	assert_true(dc != MAP_FAILED);
	parse(dc);
	assert_int_equal(dc->n_res, 2);
	touched = resident_pages(dc, len);
	/* the fields before res[], two slots, n_res and sriov: a few pages
	 * of about a hundred (all of them when the whole struct is zeroed) */
	if (touched * page > offsetof(struct rn_dp_config, res) +
			     3 * sizeof(dc->res[0]) + 4 * page)
		fail_msg("%zu of %zu pages written", touched, (len + page - 1) / page);
	rn_dp_config_free(dc);
	munmap(dc, len);
}

static void test_same_over_garbage(void **state)
{
	struct rn_dp_config *clean = calloc(1, sizeof(*clean)), *dirty = malloc(sizeof(*dirty));

	(void)state;
	assert_non_null(clean);
	assert_non_null(dirty);
	memset(dirty, 0xa5, sizeof(*dirty));
	parse(clean);
	parse(dirty);
	assert_int_equal(dirty->n_res, 2);
	assert_true(rn_dp_config_same(clean, dirty));
	assert_int_equal(dirty->res[0].hca_max, 10);
	assert_string_equal(dirty->res[1].name, "b");
	assert_int_equal(dirty->sriov.n, 0);
	assert_null(dirty->sriov.pfs);
	rn_dp_config_free(clean);
	rn_dp_config_free(dirty);
	free(clean);
	free(dirty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_few_pages_written),
		cmocka_unit_test(test_same_over_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

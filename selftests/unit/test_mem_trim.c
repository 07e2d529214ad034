// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rn_mem_trim: read-only pages of the loaded objects leave the process's
 * page tables; everything written (data, RELRO, heap) stays as it was. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mem_trim.h"

static int counter = 41;				/* .data */
static const char *const names[] = { "alpha", "beta" };	/* RELRO (relocated pointers) */
static char zeroed[8192];				/* .bss */

static long status_kib(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key));
	if (f)
		fclose(f);
	return v;
}

static void test_trim_keeps_what_was_written(void **state)
{
	char *heap = malloc(1 << 20);
	long file_before, file_after;

	(void)state;
	assert_non_null(heap);
	memset(heap, 0x5a, 1 << 20);
	counter++;
	memset(zeroed, 7, sizeof(zeroed));
	file_before = status_kib("RssFile:");
	assert_true(rn_mem_trim() > 0);
	file_after = status_kib("RssFile:");
	/* the text this test runs on comes back, the rest stays out */
	assert_true(file_after < file_before);
	assert_int_equal(counter, 42);
	assert_string_equal(names[0], "alpha");
	assert_string_equal(names[1], "beta");
	for (size_t i = 0; i < sizeof(zeroed); i++)
		assert_int_equal(zeroed[i], 7);
	for (size_t i = 0; i < 1 << 20; i++)
		if (heap[i] != 0x5a)
			fail_msg("heap byte %zu changed", i);
	free(heap);
	/* and again: nothing it dropped was needed */
	assert_true(rn_mem_trim() > 0);
	assert_int_equal(snprintf(heap = malloc(16), 16, "%d", counter), 2);
	assert_string_equal(heap, "42");
	free(heap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trim_keeps_what_was_written),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

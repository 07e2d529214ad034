// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A pool's blocks as a sequence and where a node's claim search starts
 * (ipam/block_pick.h): blocks are counted once where a pool's ranges share
 * one, every start is a block of the pool, and nodes start spread over the
 * pool, not at its first block. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ipam/block_claim.h"
#include "ipam/block_pick.h"
#include "ipam/pool_set.h"

static void pool(struct rn_pool *p, const char *json)
{
	struct rn_error e = { 0 };

	if (rn_pool_from_text(p, json, "pool", &e))
		fail_msg("%s: %s", json, e.msg);
}

static rn_u128 v4(const char *s)
{
	struct rn_addr a;

	assert_int_equal(rn_addr_parse(s, &a), 0);
	return rn_addr_to_u128(&a);
}

static void test_count_and_nth(void **state)
{
	struct rn_pool p;
	rn_u128 b;

	(void)state;
	/* a /24 in /28s: 16 blocks, block k at .16k */
	pool(&p, "{\"name\": \"a\", \"subnet\": \"10.0.0.0/24\", \"block\": 28}");
	assert_true(rn_block_count(&p) == 16);
	assert_true(rn_block_nth(&p, 0, &b) && b == v4("10.0.0.0"));
	assert_true(rn_block_nth(&p, 15, &b) && b == v4("10.0.0.240"));
	assert_false(rn_block_nth(&p, 16, &b));
	assert_true(rn_block_after(&p, v4("10.0.0.16"), &b) && b == v4("10.0.0.32"));
	assert_false(rn_block_after(&p, v4("10.0.0.240"), &b));
	rn_pool_free(&p);
	/* ranges: .1-.20 and .30-.40 share block .16; .100-.110 holds .96 */
	pool(&p, "{\"name\": \"b\", \"subnet\": \"10.0.0.0/24\", \"block\": 28, "
		 "\"ips\": [\"10.0.0.1-10.0.0.20\", \"10.0.0.30-10.0.0.40\", "
		 "\"10.0.0.100-10.0.0.110\"]}");
	assert_true(rn_block_count(&p) == 4);	/* .0 .16 .32 .96 */
	assert_true(rn_block_nth(&p, 1, &b) && b == v4("10.0.0.16"));
	assert_true(rn_block_nth(&p, 2, &b) && b == v4("10.0.0.32"));
	assert_true(rn_block_nth(&p, 3, &b) && b == v4("10.0.0.96"));
	assert_true(rn_block_after(&p, v4("10.0.0.32"), &b) && b == v4("10.0.0.96"));
	rn_pool_free(&p);
}

static void test_start_spreads(void **state)
{
	struct rn_pool p;
	int at_first = 0, distinct = 0;
	bool seen[4096] = { 0 };

	(void)state;
	pool(&p, "{\"name\": \"r\", \"subnet\": \"10.1.0.0/16\", \"block\": 28}");
	for (int i = 0; i < 1000; i++) {
		char node[32];
		rn_u128 b, again;

		snprintf(node, sizeof(node), "node-%d", i);
		assert_true(rn_block_start(&p, node, &b));
		/* a block of the pool, aligned, the same every time */
		assert_true(b >= v4("10.1.0.0") && b <= v4("10.1.255.240") && b % 16 == 0);
		assert_true(rn_block_start(&p, node, &again) && again == b);
		at_first += b == v4("10.1.0.0");
		if (!seen[(b - v4("10.1.0.0")) / 16]) {
			seen[(b - v4("10.1.0.0")) / 16] = true;
			distinct++;
		}
	}
	/* 1,000 names over 4,096 blocks: hashed starts collide about 110
	 * times (birthday); a start at block 0 for all would be 1 */
	assert_true(at_first < 5);
	assert_true(distinct > 800);
	rn_pool_free(&p);
	/* IPv6: 2^56 blocks; a start still lies in the pool */
	pool(&p, "{\"name\": \"v6\", \"subnet\": \"fd00:1::/64\", \"block\": 120}");
	{
		struct rn_addr lo;
		rn_u128 b;

		assert_int_equal(rn_addr_parse("fd00:1::", &lo), 0);
		assert_true(rn_block_count(&p) == (rn_u128)1 << 56);
		assert_true(rn_block_start(&p, "n1", &b));
		assert_true(b >> 64 == rn_addr_to_u128(&lo) >> 64 && (b & 0xff) == 0);
	}
	rn_pool_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_and_nth),
		cmocka_unit_test(test_start_spreads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

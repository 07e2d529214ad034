/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Assertions for table-driven fixtures: each check records the first thing
 * that went wrong, in words, and the fixture reports one TAP line. */
#ifndef RDMANET_TEST_CHECK_H
#define RDMANET_TEST_CHECK_H

#include <stdio.h>

struct check {
	int failed;
	char why[512];
};

#define CHECK_EQ(c, what, got, want) do {					\
	unsigned long long g_ = (unsigned long long)(got);			\
	unsigned long long w_ = (unsigned long long)(want);			\
	if (g_ != w_ && !(c)->failed) {						\
		(c)->failed = 1;						\
		snprintf((c)->why, sizeof((c)->why), "%s: got %llu (0x%llx), want %llu (0x%llx)", \
			 what, g_, g_, w_, w_);					\
	}									\
} while (0)

#define CHECK_TRUE(c, what, cond) do {						\
	if (!(cond) && !(c)->failed) {						\
		(c)->failed = 1;						\
		snprintf((c)->why, sizeof((c)->why), "%s", what);		\
	}									\
} while (0)

struct tap {
	int n;
	int failed;
};

static inline void tap_report(struct tap *t, const char *name, const struct check *c)
{
	t->n++;
	if (c->failed) {
		t->failed = 1;
		printf("not ok %d - %s: %s\n", t->n, name, c->why);
	} else {
		printf("ok %d - %s\n", t->n, name);
	}
	fflush(stdout);
}

static inline void tap_skip_one(struct tap *t, const char *name, const char *why)
{
	t->n++;
	printf("ok %d - %s # SKIP %s\n", t->n, name, why);
}

static inline int tap_finish(struct tap *t)
{
	printf("1..%d\n", t->n);
	return t->failed;
}

#endif

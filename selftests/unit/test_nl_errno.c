// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The one table that turns libnl's NLE_* codes into errno (user/lib/nl_errno.c),
 * used by the CNI plugin, SR-IOV provisioning and netdev lookups alike.
 *
 * Two views: every NLE_* code the table names, with the errno it must give
 * (either sign in, 0 for 0, -EIO for the rest); and the round trip through
 * libnl's own errno -> NLE_* conversion (nl_syserr2nlerr, the function that
 * made the code from the kernel's answer): the kernel's errno comes back,
 * except where libnl folds several into one code. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <netlink/errno.h>

#include "nl_errno.h"

static const struct {
	int nle;
	int err;
} table[] = {
	{ NLE_SUCCESS, 0 },
	{ NLE_EXIST, -EEXIST },
	{ NLE_OBJ_NOTFOUND, -ENODEV },
	{ NLE_NODEV, -ENODEV },
	{ NLE_NOMEM, -ENOMEM },
	{ NLE_PERM, -EPERM },
	{ NLE_NOACCESS, -EACCES },
	{ NLE_BUSY, -EBUSY },
	{ NLE_RANGE, -ERANGE },	/* was -EINVAL for SR-IOV, -ERANGE for the CNI */
	{ NLE_AF_NOSUPPORT, -EOPNOTSUPP },
	{ NLE_OPNOTSUPP, -EOPNOTSUPP },
	{ NLE_INVAL, -EINVAL },
	{ NLE_NOADDR, -EADDRNOTAVAIL },
	{ NLE_INTR, -EINTR },
	{ NLE_AGAIN, -EAGAIN },
	/* no errno of their own */
	{ NLE_FAILURE, -EIO },
	{ NLE_BAD_SOCK, -EIO },
	{ NLE_MSGSIZE, -EIO },
	{ NLE_MSG_TRUNC, -EIO },
	{ NLE_PARSE_ERR, -EIO },
	{ NLE_DUMP_INTR, -EIO },
	{ NLE_MAX + 1, -EIO },
};

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		int nle = table[i].nle, want = table[i].err;

		if (rn_nl_errno(-nle) != want || rn_nl_errno(nle) != want)
			fail_msg("NLE %d (%s): got %d / %d, want %d", nle, nl_geterror(-nle),
				 rn_nl_errno(-nle), rn_nl_errno(nle), want);
	}
}

/* The kernel's errno, through libnl and back. ENOENT and ESRCH become
 * NLE_OBJ_NOTFOUND, which the callers read as "not there" (-ENODEV);
 * ENOBUFS becomes NLE_NOMEM; EFAULT and ENOPROTOOPT become NLE_INVAL. */
static void test_round_trip(void **state)
{
	static const struct {
		int sys;
		int back;
	} trip[] = {
		{ EEXIST, -EEXIST },	     { EADDRINUSE, -EEXIST },
		{ ENOENT, -ENODEV },	     { ESRCH, -ENODEV },
		{ ENODEV, -ENODEV },	     { ENOMEM, -ENOMEM },
		{ ENOBUFS, -ENOMEM },	     { EPERM, -EPERM },
		{ EACCES, -EACCES },	     { EBUSY, -EBUSY },
		{ ERANGE, -ERANGE },	     { EINVAL, -EINVAL },
		{ EOPNOTSUPP, -EOPNOTSUPP }, { EAFNOSUPPORT, -EOPNOTSUPP },
		{ EADDRNOTAVAIL, -EADDRNOTAVAIL }, { EINTR, -EINTR },
		{ EAGAIN, -EAGAIN },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(trip) / sizeof(trip[0]); i++) {
		int nle = nl_syserr2nlerr(trip[i].sys);

		if (rn_nl_errno(-nle) != trip[i].back)
			fail_msg("%s -> NLE %d -> %d, want %d", strerror(trip[i].sys), nle,
				 rn_nl_errno(-nle), trip[i].back);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

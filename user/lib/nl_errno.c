// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <netlink/errno.h>

#include "nl_errno.h"

/* Where the kernel's errno reached libnl, libnl turned it into an NLE_* code
 * (nl_syserr2nlerr: ERANGE -> NLE_RANGE, EINVAL -> NLE_INVAL, ENOENT ->
 * NLE_OBJ_NOTFOUND, ...); this goes back. NLE_OBJ_NOTFOUND (ENOENT/ESRCH
 * from the kernel, or an empty cache lookup) becomes -ENODEV: the callers
 * treat "not there" alike for links, rules and routes. */
int rn_nl_errno(int nlerr)
{
	switch (abs(nlerr)) {
	case NLE_SUCCESS:
		return 0;
	case NLE_EXIST:
		return -EEXIST;
	case NLE_OBJ_NOTFOUND:
	case NLE_NODEV:
		return -ENODEV;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_BUSY:
		return -EBUSY;
	case NLE_RANGE:
		return -ERANGE;
	case NLE_AF_NOSUPPORT:
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_INVAL:
		return -EINVAL;
	case NLE_NOADDR:
		return -EADDRNOTAVAIL;
	case NLE_INTR:
		return -EINTR;
	case NLE_AGAIN:
		return -EAGAIN;
	default:
		return -EIO;
	}
}

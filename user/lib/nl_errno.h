/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnl error codes (NLE_*) as the negative errno the rest of rdmanet speaks.
 *
 * One table for every caller (the CNI plugin, SR-IOV provisioning, netdev
 * lookups): the same kernel answer must not become ERANGE in one place and
 * EINVAL in another. */
#ifndef RDMANET_NL_ERRNO_H
#define RDMANET_NL_ERRNO_H

/* nlerr: a libnl return value, negative (-NLE_*) or positive (NLE_*).
 * Returns 0 for 0, else a negative errno; codes with no errno of their own
 * (NLE_FAILURE, message parsing errors, ...) become -EIO. */
int rn_nl_errno(int nlerr);

#endif

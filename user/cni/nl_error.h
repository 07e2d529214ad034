/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnl error codes as the negative errno the rest of the plugin speaks. */
#ifndef RDMANET_CNI_NL_ERROR_H
#define RDMANET_CNI_NL_ERROR_H

int cni_nl_errno(int nlerr);

#endif

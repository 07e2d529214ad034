/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Named points in ADD where the fault-injection tests stop the plugin
 * (RDMANET_CNI_FAULT=stop@<point>: the process sends itself SIGSTOP there),
 * so a test can kill -9 it or pull the netns away at an exact step. Unset,
 * a point costs one getenv. At debug level each point logs its time since
 * the command started (the first point called). */
#ifndef RDMANET_CNI_FAULT_H
#define RDMANET_CNI_FAULT_H

void cni_fault_point(const char *name);

#endif

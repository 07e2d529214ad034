/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The agent's SR-IOV work: provisioning the VFs the config's "sriov"
 * section asks for (at start-up, and again at any tick after which its
 * inputs changed: a config reload, a VF freed, a driver rebind), and the
 * leak sweep (every tick): VFs whose pod netns died are restored and made
 * free again. */
#ifndef RDMANET_AGENT_SRIOV_AGENT_H
#define RDMANET_AGENT_SRIOV_AGENT_H

#include "config.h"

void rn_sriov_agent_start(const struct rn_config *c);
void rn_sriov_agent_tick(const struct rn_config *c);

#endif

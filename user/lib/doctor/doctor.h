/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* `rdmanetctl doctor`: one verdict per check (pass/warn/fail), with the
 * fix for each failure. The checks are pure functions of the facts below,
 * so a fixture tree plus a few facts reproduces every failure mode; the
 * CLI gathers the facts from the live system. */
#ifndef RDMANET_DOCTOR_H
#define RDMANET_DOCTOR_H

#include <stdbool.h>
#include <rdmanet/master.h>

#include "rdma/rdma.h"

enum rn_check_status { RN_CHECK_PASS = 0, RN_CHECK_WARN, RN_CHECK_FAIL };

struct rn_check {
	const char *name;		/* "modules", "rdma-core", ... */
	enum rn_check_status status;
	/* room for every VF of a PF with 64 VFs to be named in both */
	char detail[8192];
	char fix[16384];		/* set for failures (and some warnings) */
};

/* A master as the data path knows it. */
struct rn_doctor_master {
	char ifname[RN_IFNAMSIZ];
	bool in_map;			/* has an in-use slot in the masters map */
	int xdp;			/* enum rn_xdp_state */
	int tc;				/* enum rn_tc_state */
	int xdp_mode;			/* enum rn_xdp_mode the config asks for */
	char kind[32];			/* "veth", ... ("" for a NIC) */
};

struct rn_sriov_config;
struct rn_sriov_host;

struct rn_doctor_facts {
	const struct rn_rdma_model *model;	/* its roots say where sysfs is */
	const struct rn_rdma_config *rdma;
	/* the masters: from the config, or discovered when it lists none */
	char (*masters)[RN_IFNAMSIZ];
	int n_masters;
	bool masters_configured;
	/* the data path: pinned maps and what they say */
	bool bpffs_mounted;
	const char *pin_dir;
	int maps_err;			/* 0: maps opened; -errno otherwise */
	const struct rn_doctor_master *attached;	/* in-use slots */
	int n_attached;
	const struct rn_pod_addr *pods;	/* valid when maps_err == 0 */
	int n_pods;
	/* SR-IOV: the config's "sriov" section and the PFs/VFs found (either
	 * NULL: the VF GUID check cannot say whether rdmanetd fixes them) */
	const struct rn_sriov_config *sriov;
	const struct rn_sriov_host *sriov_host;
};

#define RN_DOCTOR_CHECKS 13

struct rn_doctor_report {
	struct rn_check checks[RN_DOCTOR_CHECKS];
	int n;
	int failed, warned;
};

void rn_doctor_run(const struct rn_doctor_facts *f, struct rn_doctor_report *r);
/* One check by name (for tests); NULL if it did not run. */
const struct rn_check *rn_doctor_find(const struct rn_doctor_report *r, const char *name);
extern const char *const rn_check_status_names[3];	/* "pass", "warn", "fail" */

/* The checks, each filling c (name set by the runner). */
void rn_check_modules(const struct rn_doctor_facts *f, struct rn_check *c);
void rn_check_rdma_core(const struct rn_doctor_facts *f, struct rn_check *c);
void rn_check_devices(const struct rn_doctor_facts *f, struct rn_check *c);
void rn_check_selectors(const struct rn_doctor_facts *f, struct rn_check *c);
void rn_check_link_layer(const struct rn_doctor_facts *f, struct rn_check *c);
void rn_check_port_state(const struct rn_doctor_facts *f, struct rn_check *c);
void rn_check_netns_mode(const struct rn_doctor_facts *f, struct rn_check *c);
void rn_check_pod_gids(const struct rn_doctor_facts *f, struct rn_check *c);
void rn_check_vf_guids(const struct rn_doctor_facts *f, struct rn_check *c);
void rn_check_bpffs(const struct rn_doctor_facts *f, struct rn_check *c);
void rn_check_datapath(const struct rn_doctor_facts *f, struct rn_check *c);
void rn_check_mtu(const struct rn_doctor_facts *f, struct rn_check *c);
void rn_check_vf_holds(const struct rn_doctor_facts *f, struct rn_check *c);

/* Helpers the checks share. */
void rn_check_set(struct rn_check *c, enum rn_check_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void rn_check_fix(struct rn_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One more fix after the others ("; "): a check that finds several things
 * to mend (two VFs) gives the command for each. */
void rn_check_fix_add(struct rn_check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends to c->detail ("; " between parts). */
void rn_check_add(struct rn_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The ports the RoCE checks look at: of selected devices, and of the
 * masters' netdevs when masters are configured; VFs only if a master. */
bool rn_doctor_port_relevant(const struct rn_doctor_facts *f, const struct rn_rdma_dev *d,
			     const struct rn_rdma_port *p);

#endif

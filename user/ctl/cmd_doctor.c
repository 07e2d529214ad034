// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl doctor [-j]: one line per check (pass/warn/fail) with the fix
 * for each failure; exits non-zero if any check fails. The checks live in
 * the library (doctor/doctor.h); this gathers the live system's facts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/vfs.h>

#include "ctl.h"
#include "datapath/datapath.h"
#include "netdev.h"
#include "doctor/doctor.h"
#include "sriov/sriov.h"
#include "rdma/rdma.h"

static bool bpffs_at(const char *pin_dir)
{
	char dir[PATH_MAX];
	struct statfs st;

	/* the pin dir may not exist yet; its parent is where bpffs must be */
	snprintf(dir, sizeof(dir), "%s", pin_dir);
	while (statfs(dir, &st)) {
		char *slash = strrchr(dir, '/');

		if (errno != ENOENT || !slash || slash == dir)
			return false;
		*slash = '\0';
	}
	return st.f_type == BPF_FS_MAGIC;
}

static int attached_masters(const struct rn_config *c, const struct rn_maps *m,
			    struct rn_doctor_master *out)
{
	const struct rn_master_config *mc;
	struct rn_netdev nd;
	struct rn_master ms;
	int n = 0;

	for (__u32 s = 0; s < RN_MAX_MASTERS; s++) {
		if (rn_master_get(m, s, &ms) || !(ms.flags & RN_MASTER_F_IN_USE))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		memcpy(out[n].ifname, ms.ifname, RN_IFNAMSIZ);
		out[n].ifname[RN_IFNAMSIZ - 1] = '\0';
		out[n].in_map = true;
		out[n].xdp = ms.xdp;
		out[n].tc = ms.tc;
		mc = rn_config_master(c, out[n].ifname);
		out[n].xdp_mode = mc ? (int)mc->xdp_mode : RN_XDP_MODE_AUTO;
		if (!rn_netdev_get(out[n].ifname, 0, &nd, NULL))
			memcpy(out[n].kind, nd.kind, sizeof(out[n].kind));
		n++;
	}
	return n;
}

static json_t *report_json(const struct rn_doctor_report *r)
{
	json_t *checks = json_array();

	for (int i = 0; i < r->n; i++) {
		const struct rn_check *c = &r->checks[i];

		json_t *fix = c->fix[0] ? json_string(c->fix) : json_null();

		json_array_append_new(checks, json_pack("{s:s,s:s,s:s,s:o}", "name", c->name,
							"status", rn_check_status_names[c->status],
							"detail", c->detail, "fix", fix));
	}
	return json_pack("{s:o,s:{s:i,s:i,s:i}}", "checks", checks, "summary",
			 "pass", r->n - r->failed - r->warned, "warn", r->warned,
			 "fail", r->failed);
}

static int doctor_run(struct ctl *ctl, const struct ctl_args *a)
{
	static char masters[RN_MAX_MASTERS][RN_IFNAMSIZ];
	struct rn_doctor_master attached[RN_MAX_MASTERS];
	struct rn_doctor_facts f = { 0 };
	struct rn_doctor_report r;
	struct rn_rdma_config rc;
	struct rn_rdma_roots roots;
	struct rn_rdma_model model;
	struct rn_pod_addr *pods = NULL;
	struct rn_error e = { 0 };
	struct rn_maps maps;
	struct rn_sriov_config sc;
	struct rn_sriov_host sh;
	bool have_sriov;

	(void)a;
	rn_rdma_config_get(&ctl->cfg, &rc);
	rn_rdma_roots_init(&roots, rc.sysfs_root);
	if (rn_rdma_model_load(&model, &roots, RN_RDMA_SRC_ALL, &e))
		return ctl_fail("%s", e.msg);
	f.model = &model;
	f.rdma = &rc;
	have_sriov = !rn_sriov_config_get(&ctl->cfg, &sc, NULL) &&
		     !rn_sriov_discover(&sh, &roots, false, NULL);
	if (have_sriov) {
		f.sriov = &sc;
		f.sriov_host = &sh;
	}
	f.masters = masters;
	if (ctl->cfg.n_masters) {
		f.masters_configured = true;
		for (int i = 0; i < ctl->cfg.n_masters && i < RN_MAX_MASTERS; i++)
			memcpy(masters[f.n_masters++], ctl->cfg.masters[i].ifname, RN_IFNAMSIZ);
	} else {
		f.n_masters = rn_rdma_roce_netdevs(&model, &rc.selectors, masters, RN_MAX_MASTERS);
	}
	f.pin_dir = ctl->cfg.bpf.pin_dir;
	f.bpffs_mounted = bpffs_at(f.pin_dir);
	f.maps_err = rn_maps_open(&maps, f.pin_dir, NULL);
	if (!f.maps_err) {
		f.n_attached = attached_masters(&ctl->cfg, &maps, attached);
		f.attached = attached;
		rn_maps_close(&maps);
		if (rn_pod_addrs_list(f.pin_dir, &pods, &f.n_pods, &e))
			f.maps_err = e.code ? e.code : -EIO;
		f.pods = pods;
	}
	rn_doctor_run(&f, &r);
	if (ctl->json) {
		ctl_print_json(ctl, report_json(&r));
	} else {
		for (int i = 0; i < r.n; i++) {
			const struct rn_check *c = &r.checks[i];

			printf("%-4s %-10s %s%s%s\n", rn_check_status_names[c->status], c->name,
			       c->detail, c->fix[0] ? "; fix: " : "", c->fix);
		}
		for (int i = 0; i < model.n_notes; i++)
			printf("note: %s\n", model.notes[i]);
	}
	free(pods);
	rn_rdma_model_free(&model);
	if (have_sriov) {
		rn_sriov_host_free(&sh);
		rn_sriov_config_free(&sc);
	}
	if (r.failed)
		return ctl_fail("doctor: %d of %d checks failed", r.failed, r.n);
	return 0;
}

const struct ctl_object ctl_obj_doctor = {
	.name = "doctor",
	.help = "check the node: RDMA devices, SR-IOV, bpffs, attached masters, pods",
	.verbs = (const struct ctl_verb[]){
		{ .run = doctor_run,
		  .help = "one line per check (pass, warn, fail) with the fix for each failure; "
			  "exit 1 if one fails" },
		{ .run = NULL },
	},
};

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "node/node.h"
#include "datapath/datapath.h"
#include "dra/dra.h"
#include "sriov/sriov.h"
#include "ipam/ipam.h"
#include "rdma/rdma.h"
#include "textfile.h"
#include "version.h"

int rn_export_textfile(const struct rn_config *c, const char *dir, struct rn_error *e)
{
	struct rn_textfile t;
	struct rn_stats s;
	int err;

	err = rn_stats_load(c->bpf.pin_dir, &s, e);
	if (err)
		return err;
	err = rn_textfile_open(&t, dir, RN_TEXTFILE_NAME, e);
	if (!err) {
		rn_metrics_build_info(t.f);
		rn_metrics_datapath(t.f, &s);
		/* done with the pod list: the families below read their own */
		rn_stats_free(&s);
		rn_metrics_pools(t.f, c);
		rn_metrics_rdma(t.f, c);
		rn_metrics_sriov(t.f, c);
		rn_metrics_dra(t.f);
		err = rn_textfile_commit(&t, e);
	}
	rn_stats_free(&s);
	return err;
}

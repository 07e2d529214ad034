// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>
#include <rdma/ib_user_ioctl_verbs.h>

#include "rdma/drivers.h"

static const struct rn_rdma_driver_info drivers[] = {
	{ "mlx5_core", "mlx5_ib", "mlx5", RDMA_DRIVER_MLX5 },
	{ "mlx4_core", "mlx4_ib", "mlx4", RDMA_DRIVER_MLX4 },
	{ "bnxt_en", "bnxt_re", "bnxt_re", RDMA_DRIVER_BNXT_RE },
	{ "ice", "irdma", "irdma", RDMA_DRIVER_IRDMA },
	{ "i40e", "irdma", "irdma", RDMA_DRIVER_IRDMA },
	{ "qede", "qedr", "qedr", RDMA_DRIVER_QEDR },
	{ "cxgb4", "iw_cxgb4", "cxgb4", RDMA_DRIVER_CXGB4 },
	{ "hns3", "hns_roce_hw_v2", "hns", RDMA_DRIVER_HNS },
	{ "be2net", "ocrdma", "ocrdma", RDMA_DRIVER_OCRDMA },
	{ "vmxnet3", "vmw_pvrdma", "vmw_pvrdma", RDMA_DRIVER_VMW_PVRDMA },
	{ "efa", "efa", "efa", RDMA_DRIVER_EFA },
	{ "erdma", "erdma", "erdma", RDMA_DRIVER_ERDMA },
	{ "mana", "mana_ib", "mana", RDMA_DRIVER_MANA },
	{ "rxe", "rdma_rxe", "rxe", RDMA_DRIVER_RXE },
	{ "siw", "siw", "siw", RDMA_DRIVER_SIW },
};

const struct rn_rdma_driver_info *rn_rdma_driver_by_name(const char *netdev_driver)
{
	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		if (!strcmp(drivers[i].netdev_driver, netdev_driver))
			return &drivers[i];
	return NULL;
}

const struct rn_rdma_driver_info *rn_rdma_driver_by_id(int driver_id)
{
	if (driver_id == RDMA_DRIVER_UNKNOWN)
		return NULL;
	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		if (drivers[i].driver_id == driver_id)
			return &drivers[i];
	return NULL;
}

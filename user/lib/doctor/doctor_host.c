// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Doctor checks of the host's RDMA side: kernel modules, rdma-core,
 * devices, selectors, link layer, port state, netns mode, VF GUIDs, MTU. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "doctor/doctor.h"
#include "rdma/rdma.h"
#include "sriov/sriov.h"

static bool module_loaded(const struct rn_doctor_facts *f, const char *name)
{
	return rn_sysfs_exists("%s/module/%s", f->model->roots.sys, name);
}

/* NICs whose driver has an RDMA half that is not loaded: the classic
 * "no RDMA devices" on a ConnectX host without mlx5_ib. */
static int nics_without_rdma(const struct rn_doctor_facts *f, char *buf, size_t size,
			     const char **module)
{
	char path[PATH_MAX], driver[64];
	struct dirent *de;
	size_t off = 0;
	int n = 0;
	DIR *d;

	buf[0] = '\0';
	if (rn_pathf(path, sizeof(path), "%s/class/net", f->model->roots.sys) ||
	    !(d = opendir(path)))
		return 0;
	while ((de = readdir(d))) {
		const struct rn_rdma_driver_info *drv;

		if (de->d_name[0] == '.' ||
		    rn_sysfs_link_name(driver, sizeof(driver), "%s/%s/device/driver", path,
				       de->d_name) ||
		    !(drv = rn_rdma_driver_by_name(driver)) || module_loaded(f, drv->ib_module))
			continue;
		off += (size_t)snprintf(buf + off, off < size ? size - off : 0, "%s%s NIC %s "
					"without %s", n ? ", " : "", driver, de->d_name,
					drv->ib_module);
		*module = drv->ib_module;
		n++;
	}
	closedir(d);
	return n;
}

void rn_check_modules(const struct rn_doctor_facts *f, struct rn_check *c)
{
	static const char *const required[] = { "ib_core", "ib_uverbs" };
	const char *module = NULL;
	char nics[256], missing[64] = "";

	rn_check_set(c, RN_CHECK_PASS, "%s", "");
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (module_loaded(f, required[i]))
			continue;
		c->status = RN_CHECK_FAIL;
		rn_check_add(c, "%s not loaded", required[i]);
		snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s",
			 required[i]);
	}
	if (nics_without_rdma(f, nics, sizeof(nics), &module)) {
		c->status = RN_CHECK_FAIL;
		rn_check_add(c, "%s", nics);
		snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s",
			 module);
	}
	if (missing[0])
		rn_check_fix(c, "modprobe%s", missing);
	if (!module_loaded(f, "rdma_ucm")) {
		if (c->status == RN_CHECK_PASS)
			c->status = RN_CHECK_WARN;
		rn_check_add(c, "rdma_ucm not loaded (RDMA-CM users such as UCX and "
			     "default_roce_tos need it: modprobe rdma_ucm)");
	}
	if (c->status == RN_CHECK_PASS)
		rn_check_add(c, "ib_core, ib_uverbs and rdma_ucm loaded");
}

void rn_check_rdma_core(const struct rn_doctor_facts *f, struct rn_check *c)
{
	const struct rn_rdma_model *m = f->model;
	int missing = 0;

	rn_check_set(c, RN_CHECK_PASS, "%s", "");
	if (!rn_sysfs_exists("%s/libibverbs.d", m->roots.etc)) {
		rn_check_set(c, RN_CHECK_FAIL, "rdma-core is not installed: %s/libibverbs.d does "
			     "not exist, so libibverbs has no provider for any device",
			     m->roots.etc);
		rn_check_fix(c, "install rdma-core and ibverbs-providers (apt-get install "
			     "rdma-core ibverbs-providers) on the node and in the pod image");
		return;
	}
	for (int i = 0; i < m->n_devs; i++) {
		const struct rn_rdma_dev *d = &m->devs[i];

		if (!d->provider[0]) {
			if (c->status == RN_CHECK_PASS)
				c->status = RN_CHECK_WARN;
			rn_check_add(c, "%s: cannot tell which provider it needs (driver %s)",
				     d->name, d->driver[0] ? d->driver : "unknown");
			continue;
		}
		if (rn_sysfs_exists("%s/libibverbs.d/%s.driver", m->roots.etc, d->provider))
			continue;
		c->status = RN_CHECK_FAIL;
		missing++;
		rn_check_add(c, "%s needs the %s provider: %s/libibverbs.d/%s.driver missing",
			     d->name, d->provider, m->roots.etc, d->provider);
	}
	if (missing)
		rn_check_fix(c, "install ibverbs-providers (apt-get install ibverbs-providers)");
	if (m->verbs_devices >= 0 && m->verbs_devices < m->n_devs) {
		c->status = RN_CHECK_FAIL;
		rn_check_add(c, "libibverbs lists %d of %d devices", m->verbs_devices, m->n_devs);
		if (!missing)
			rn_check_fix(c, "check that /dev/infiniband is reachable (the pod needs "
				     "the uverbs character devices) and rdma-core matches the "
				     "kernel");
	}
	if (c->status == RN_CHECK_PASS && !m->n_devs)
		rn_check_add(c, "%s/libibverbs.d present, no devices to check", m->roots.etc);
	else if (c->status == RN_CHECK_PASS)
		rn_check_add(c, "providers installed for %d device%s%s", m->n_devs,
			     m->n_devs == 1 ? "" : "s",
			     m->verbs_devices >= 0 ? ", libibverbs lists them all" : "");
}

static bool is_port_netdev(const struct rn_rdma_model *m, const char *ifname)
{
	return rn_rdma_find_port_by_netdev(m, ifname, NULL) != NULL;
}

void rn_check_devices(const struct rn_doctor_facts *f, struct rn_check *c)
{
	const struct rn_rdma_model *m = f->model;
	const char *module = NULL;
	char nics[256];

	if (!m->n_devs) {
		rn_check_set(c, RN_CHECK_FAIL, "no RDMA devices in %s/class/infiniband",
			     m->roots.sys);
		if (nics_without_rdma(f, nics, sizeof(nics), &module))
			rn_check_fix(c, "modprobe %s (%s)", module, nics);
		else
			rn_check_fix(c, "load the NIC's RDMA driver (mlx5_ib for ConnectX), or for "
				     "Soft-RoCE: rdma link add rxe0 type rxe netdev IFNAME");
		return;
	}
	rn_check_set(c, RN_CHECK_PASS, "%d device%s:", m->n_devs, m->n_devs == 1 ? "" : "s");
	for (int i = 0; i < m->n_devs; i++) {
		size_t len = strlen(c->detail);

		snprintf(c->detail + len, sizeof(c->detail) - len, " %s", m->devs[i].name);
	}
	for (int i = 0; f->masters_configured && i < f->n_masters; i++) {
		if (is_port_netdev(m, f->masters[i]))
			continue;
		c->status = RN_CHECK_FAIL;
		rn_check_add(c, "master %s backs no RDMA port", f->masters[i]);
		rn_check_fix(c, "list the RoCE NIC's netdev as master (rdmanetctl dev shows "
			     "them), or for Soft-RoCE: rdma link add rxe0 type rxe netdev %s",
			     f->masters[i]);
	}
}

static void selector_values(const struct rn_rdma_dev *d, char *buf, size_t size)
{
	snprintf(buf, size, "\"vendors\": [\"%s\"], \"deviceIDs\": [\"%s\"]", d->pci.vendor,
		 d->pci.device);
}

void rn_check_selectors(const struct rn_doctor_facts *f, struct rn_check *c)
{
	const struct rn_rdma_model *m = f->model;
	const struct rn_rdma_selectors *s = &f->rdma->selectors;
	const struct rn_rdma_dev *example = NULL;
	char why[256], hint[128];
	int n = 0;

	if (rn_selectors_empty(s)) {
		rn_check_set(c, RN_CHECK_PASS, "no selectors in the config: every device is used "
			     "(%d)", m->n_devs);
		return;
	}
	for (int i = 0; i < m->n_devs; i++)
		n += rn_selectors_match(s, &m->devs[i]);
	if (n) {
		rn_check_set(c, RN_CHECK_PASS, "%d of %d devices match:", n, m->n_devs);
		for (int i = 0; i < m->n_devs; i++) {
			size_t len = strlen(c->detail);

			if (rn_selectors_match(s, &m->devs[i]))
				snprintf(c->detail + len, sizeof(c->detail) - len, " %s",
					 m->devs[i].name);
		}
		return;
	}
	rn_check_set(c, RN_CHECK_FAIL, "no device matches the selectors (a device plugin with "
		     "these selectors advertises 0 resources)");
	for (int i = 0; i < m->n_devs && i < 3; i++) {
		rn_selectors_explain(s, &m->devs[i], why, sizeof(why));
		rn_check_add(c, "%s: %s", m->devs[i].name, why);
		if (!example && m->devs[i].is_pci && m->devs[i].fn != RN_FN_VF)
			example = &m->devs[i];
	}
	if (example) {
		selector_values(example, hint, sizeof(hint));
		rn_check_fix(c, "use the IDs the devices have (rdmanetctl dev), e.g. %s", hint);
	} else {
		rn_check_fix(c, "use values the devices have (rdmanetctl dev), or drop the "
			     "selectors");
	}
}

/* Runs one port check over the relevant ports; returns how many. */
typedef void (*rn_port_check)(const struct rn_doctor_facts *f, const struct rn_rdma_dev *d,
			      const struct rn_rdma_port *p, struct rn_check *c);

static int each_relevant_port(const struct rn_doctor_facts *f, struct rn_check *c,
			      rn_port_check one)
{
	const struct rn_rdma_model *m = f->model;
	int checked = 0;

	rn_check_set(c, RN_CHECK_PASS, "%s", "");
	for (int i = 0; i < m->n_devs; i++) {
		for (int p = 0; p < m->devs[i].n_ports; p++) {
			if (!rn_doctor_port_relevant(f, &m->devs[i], &m->devs[i].ports[p]))
				continue;
			checked++;
			one(f, &m->devs[i], &m->devs[i].ports[p], c);
		}
	}
	if (!checked)
		rn_check_set(c, RN_CHECK_WARN, "no RDMA port to check (no selected device or "
			     "master)");
	return checked;
}

static void link_layer_one(const struct rn_doctor_facts *f, const struct rn_rdma_dev *d,
			   const struct rn_rdma_port *p, struct rn_check *c)
{
	(void)f;
	if (!strcmp(p->link_layer, "Ethernet"))
		return;
	c->status = RN_CHECK_FAIL;
	rn_check_add(c, "%s/%u is %s, RoCE needs Ethernet", d->name, p->num,
		     p->link_layer[0] ? p->link_layer : "unknown");
	if (d->is_pci)
		rn_check_fix(c, "mlxconfig -d %s set LINK_TYPE_P%u=2 and reboot (ConnectX VPI), "
			     "or use an Ethernet port", d->pci.addr, p->num);
	else
		rn_check_fix(c, "use an Ethernet port");
}

void rn_check_link_layer(const struct rn_doctor_facts *f, struct rn_check *c)
{
	int n = each_relevant_port(f, c, link_layer_one);

	if (n && c->status == RN_CHECK_PASS)
		rn_check_add(c, "%d port%s with link layer Ethernet", n, n == 1 ? "" : "s");
}

static void port_state_one(const struct rn_doctor_facts *f, const struct rn_rdma_dev *d,
			   const struct rn_rdma_port *p, struct rn_check *c)
{
	char oper[32] = "";

	if (p->state == RN_PORT_ACTIVE)
		return;
	c->status = RN_CHECK_FAIL;
	if (p->netdev[0])
		rn_sysfs_read(oper, sizeof(oper), "%s/class/net/%s/operstate", f->model->roots.sys,
			      p->netdev);
	rn_check_add(c, "%s/%u is %s (%s)%s%s%s", d->name, p->num, rn_port_state_names[p->state],
		     p->phys_state_name[0] ? p->phys_state_name : "?",
		     p->netdev[0] ? ", netdev " : "", p->netdev,
		     oper[0] ? (strcmp(oper, "up") ? " is down" : " is up") : "");
	if (p->netdev[0])
		rn_check_fix(c, "ip link set dev %s up; if it stays %s, check the cable and the "
			     "switch port", p->netdev, rn_port_state_names[p->state]);
	else
		rn_check_fix(c, "bring the port's link up; check the cable and the switch port");
}

void rn_check_port_state(const struct rn_doctor_facts *f, struct rn_check *c)
{
	int n = each_relevant_port(f, c, port_state_one);

	if (n && c->status == RN_CHECK_PASS)
		rn_check_add(c, "%d port%s ACTIVE", n, n == 1 ? "" : "s");
}

void rn_check_netns_mode(const struct rn_doctor_facts *f, struct rn_check *c)
{
	enum rn_netns_mode want = f->rdma->netns_mode, have = f->model->netns_mode;

	if (have == RN_NETNS_UNKNOWN) {
		rn_check_set(c, RN_CHECK_WARN, "cannot read the RDMA netns mode (no RDMA netlink, "
			     "no ib_core netns_mode parameter); the config wants %s",
			     rn_netns_mode_names[want]);
		return;
	}
	if (have == want) {
		rn_check_set(c, RN_CHECK_PASS, "%s, as configured%s", rn_netns_mode_names[have],
			     f->rdma->netns_mode_given ? "" : " (default)");
		return;
	}
	rn_check_set(c, RN_CHECK_FAIL, "the system is %s, the config wants %s (%s)",
		     rn_netns_mode_names[have], rn_netns_mode_names[want],
		     want == RN_NETNS_SHARED ? "shared mode: macvlan/ipvlan pods share the HCA, "
		     "which must be visible in every namespace" :
		     "exclusive mode: each RDMA device (an SR-IOV VF) belongs to one pod");
	rn_check_fix(c, "rdma system set netns %s (refused while other network namespaces exist); "
		     "at boot: echo 'options ib_core netns_mode=%d' > /etc/modprobe.d/rdmanet.conf",
		     rn_netns_mode_names[want], want == RN_NETNS_SHARED);
}

/* "aa:bb:cc:dd:ee:ff" -> "aa:bb:cc:ff:fe:dd:ee:ff" (EUI-64 from the MAC). */
static bool guid_from_mac(const char *mac, char *out, size_t size)
{
	unsigned int b[6];

	if (sscanf(mac, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return false;
	snprintf(out, size, "%02x:%02x:%02x:ff:fe:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4],
		 b[5]);
	return true;
}

static const struct rn_rdma_dev *pf_of(const struct rn_rdma_model *m, const struct rn_rdma_dev *vf)
{
	for (int i = 0; i < m->n_devs; i++)
		if (m->devs[i].is_pci && !strcmp(m->devs[i].pci.addr, vf->pci.physfn))
			return &m->devs[i];
	return NULL;
}

void rn_check_vf_guids(const struct rn_doctor_facts *f, struct rn_check *c)
{
	const struct rn_rdma_model *m = f->model;
	int vfs = 0, zero = 0, fixed_by_agent = 0;

	rn_check_set(c, RN_CHECK_PASS, "%s", "");
	for (int i = 0; i < m->n_devs; i++) {
		const struct rn_rdma_dev *d = &m->devs[i], *pf;
		const char *vf_netdev = d->n_ports ? d->ports[0].netdev : "";
		char mac[32] = "", guid[32] = "GUID";

		if (d->fn != RN_FN_VF)
			continue;
		vfs++;
		if (!rn_rdma_guid_is_zero(d->node_guid))
			continue;
		zero++;
		rn_check_add(c, "%s (VF %d of %s) has node GUID %s", d->name, d->pci.vf_index,
			     d->pci.physfn, d->node_guid);
		if (f->sriov && f->sriov_host) {
			char why[256];

			if (rn_sriov_will_fix_guid(f->sriov, f->sriov_host, d->pci.addr, why,
						   sizeof(why)))
				fixed_by_agent++;
			rn_check_add(c, "%s: %s", d->name, why);
		} else {
			rn_check_add(c, "%s: rdmanetd will not fix it: the config has no \"sriov\" "
				     "section", d->name);
		}
		pf = pf_of(m, d);
		if (vf_netdev[0] &&
		    !rn_sysfs_read(mac, sizeof(mac), "%s/class/net/%s/address", m->roots.sys,
				   vf_netdev))
			guid_from_mac(mac, guid, sizeof(guid));
		rn_check_fix_add(c, "ip link set dev %s vf %d node_guid %s port_guid %s, then rebind "
			     "the VF: echo %s > /sys/bus/pci/drivers/%s/unbind; echo %s > "
			     "/sys/bus/pci/drivers/%s/bind",
			     pf && pf->n_ports && pf->ports[0].netdev[0] ? pf->ports[0].netdev :
			     "PF",
			     d->pci.vf_index, guid, guid, d->pci.addr,
			     d->pci.driver[0] ? d->pci.driver : "DRIVER", d->pci.addr,
			     d->pci.driver[0] ? d->pci.driver : "DRIVER");
	}
	/* zero GUIDs rdmanetd fixes at start-up are a warning, others a failure */
	if (zero)
		c->status = fixed_by_agent == zero ? RN_CHECK_WARN : RN_CHECK_FAIL;
	if (!vfs)
		rn_check_add(c, "no VFs with RDMA devices");
	else if (c->status == RN_CHECK_PASS)
		rn_check_add(c, "%d VF%s, node GUIDs set", vfs, vfs == 1 ? "" : "s");
}

/* The largest IB MTU a RoCE packet fits in on a netdev MTU: the kernel's
 * iboe_get_mtu (GRH, UDP, BTH, atomic and XRC ext headers, ICRC). */
static unsigned int roce_mtu_for(unsigned int netdev_mtu)
{
	static const unsigned int ib[] = { 4096, 2048, 1024, 512, 256 };
	unsigned int room = netdev_mtu > 96 ? netdev_mtu - 96 : 0;

	for (size_t i = 0; i < sizeof(ib) / sizeof(ib[0]); i++)
		if (room >= ib[i])
			return ib[i];
	return 256;
}

void rn_check_mtu(const struct rn_doctor_facts *f, struct rn_check *c)
{
	const struct rn_rdma_model *m = f->model;
	int checked = 0, unknown = 0;

	rn_check_set(c, RN_CHECK_PASS, "%s", "");
	for (int i = 0; i < f->n_masters; i++) {
		struct rn_rdma_dev *d;
		struct rn_rdma_port *p = rn_rdma_find_port_by_netdev(m, f->masters[i], &d);
		long mtu;
		unsigned int want;

		if (!p || rn_sysfs_read_long(&mtu, "%s/class/net/%s/mtu", m->roots.sys,
					     f->masters[i]) || mtu <= 0)
			continue;
		checked++;
		want = roce_mtu_for((unsigned int)mtu);
		if (!p->active_mtu) {
			unknown++;
			rn_check_add(c, "%s MTU %ld (RoCE MTU of %s/%u unknown without libibverbs)",
				     f->masters[i], mtu, d->name, p->num);
			continue;
		}
		if (p->active_mtu < want) {
			c->status = RN_CHECK_FAIL;
			rn_check_add(c, "%s MTU %ld allows RoCE MTU %u but %s/%u runs at %u",
				     f->masters[i], mtu, want, d->name, p->num, p->active_mtu);
			rn_check_fix(c, "the HCA port's MTU is below the netdev's: set both with "
				     "ip link set dev %s mtu %ld (max_mtu %u), and the switch "
				     "port; RoCE paths use the smaller end", f->masters[i], mtu,
				     p->max_mtu);
		} else if (p->active_mtu + 96 > (unsigned int)mtu) {
			c->status = RN_CHECK_FAIL;
			rn_check_add(c, "%s/%u RoCE MTU %u does not fit %s MTU %ld", d->name,
				     p->num, p->active_mtu, f->masters[i], mtu);
			rn_check_fix(c, "raise %s's MTU to at least %u, or lower the port's",
				     f->masters[i], p->active_mtu + 96);
		} else {
			rn_check_add(c, "%s MTU %ld, %s/%u RoCE MTU %u", f->masters[i], mtu,
				     d->name, p->num, p->active_mtu);
		}
	}
	if (!checked)
		rn_check_set(c, RN_CHECK_WARN, "no master backs an RDMA port: nothing to compare");
	else if (unknown && c->status == RN_CHECK_PASS)
		c->status = RN_CHECK_WARN;
}

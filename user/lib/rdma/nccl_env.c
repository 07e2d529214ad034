// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/socket.h>

#include "rdma/gid.h"
#include "rdma/nccl_env.h"

static bool is_link_local6(const struct in6_addr *a)
{
	return a->s6_addr[0] == 0xfe && (a->s6_addr[1] & 0xc0) == 0x80;
}

static struct rn_local_if *iface(struct rn_local_if **v, int *n, const char *name)
{
	struct rn_local_if *nv;

	for (int i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name))
			return &(*v)[i];
	nv = realloc(*v, (size_t)(*n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	*v = nv;
	memset(&nv[*n], 0, sizeof(nv[0]));
	snprintf(nv[*n].name, sizeof(nv[0].name), "%s", name);
	return &nv[(*n)++];
}

static int cmp_if(const void *a, const void *b)
{
	return strcmp(((const struct rn_local_if *)a)->name, ((const struct rn_local_if *)b)->name);
}

static int cmp_addr_family(const void *a, const void *b)
{
	/* IPv4 before IPv6: NCCL's default address family is AF_INET */
	return ((const struct rn_addr *)a)->family - ((const struct rn_addr *)b)->family;
}

int rn_local_ifaces(struct rn_local_if **out, int *n, struct rn_error *e)
{
	struct ifaddrs *ifa, *it;
	struct rn_local_if *v = NULL;
	int cnt = 0;

	if (getifaddrs(&ifa))
		return rn_fail(e, -errno, "getifaddrs: %s", strerror(errno));
	for (it = ifa; it; it = it->ifa_next) {
		struct rn_local_if *li;
		struct rn_addr a = { 0 };

		if (!it->ifa_addr || (it->ifa_flags & IFF_LOOPBACK) ||
		    strlen(it->ifa_name) >= RN_IFNAMSIZ)
			continue;
		/* every interface has an AF_PACKET entry: list it even without an
		 * address, so `env` can say that is what it lacks */
		if (it->ifa_addr->sa_family == AF_PACKET) {
			if (!iface(&v, &cnt, it->ifa_name)) {
				freeifaddrs(ifa);
				free(v);
				return rn_fail(e, -ENOMEM, "out of memory");
			}
			continue;
		}
		if (it->ifa_addr->sa_family == AF_INET) {
			a.family = AF_INET;
			a.v4 = ((struct sockaddr_in *)it->ifa_addr)->sin_addr;
		} else if (it->ifa_addr->sa_family == AF_INET6) {
			a.family = AF_INET6;
			a.v6 = ((struct sockaddr_in6 *)it->ifa_addr)->sin6_addr;
			if (is_link_local6(&a.v6))
				continue;
		} else {
			continue;
		}
		li = iface(&v, &cnt, it->ifa_name);
		if (!li) {
			freeifaddrs(ifa);
			free(v);
			return rn_fail(e, -ENOMEM, "out of memory");
		}
		if (li->n_addrs < RN_LOCAL_IF_ADDRS)
			li->addrs[li->n_addrs++] = a;
	}
	freeifaddrs(ifa);
	for (int i = 0; i < cnt; i++)
		qsort(v[i].addrs, (size_t)v[i].n_addrs, sizeof(v[i].addrs[0]), cmp_addr_family);
	if (cnt > 1)
		qsort(v, (size_t)cnt, sizeof(v[0]), cmp_if);
	*out = v;
	*n = cnt;
	return 0;
}

/* The RoCE v2 GID of addr whose netdev is ifname, on any device and port.
 * The name alone is not enough (every pod has a "net1"), the address
 * alone nearly is; both together are what the kernel created the entry for. */
static bool find_rail(const struct rn_rdma_model *m, const char *ifname, const struct rn_addr *a,
		      struct rn_env_rail *r)
{
	for (int i = 0; i < m->n_devs; i++) {
		for (int p = 0; p < m->devs[i].n_ports; p++) {
			const struct rn_rdma_port *port = &m->devs[i].ports[p];
			const struct rn_rdma_gid *g = rn_rdma_find_gid(port, a, RN_GID_TYPE_ROCE_V2,
								       ifname);

			if (!g)
				g = rn_rdma_find_gid(port, a, RN_GID_TYPE_ROCE_V2, "");
			if (!g)
				continue;
			snprintf(r->ifname, sizeof(r->ifname), "%s", ifname);
			snprintf(r->dev, sizeof(r->dev), "%s", m->devs[i].name);
			r->addr = *a;
			r->port = port->num;
			r->gid_index = g->index;
			memcpy(r->gid, g->raw, 16);
			return true;
		}
	}
	return false;
}

static void skip(struct rn_env *out, const char *ifname, const char *fmt, const char *arg)
{
	struct rn_env_skip *s;

	if (out->n_skipped >= RN_MAX_MASTERS)
		return;
	s = &out->skipped[out->n_skipped++];
	snprintf(s->ifname, sizeof(s->ifname), "%s", ifname);
	snprintf(s->why, sizeof(s->why), fmt, arg);
}

int rn_env_resolve(const struct rn_rdma_model *m, const struct rn_local_if *ifs, int n,
		   const char *only, struct rn_env *out, struct rn_error *e)
{
	bool seen = false;
	char why[1024] = "";
	size_t off = 0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < n && out->n_rails < RN_MAX_MASTERS; i++) {
		const struct rn_local_if *li = &ifs[i];
		char addr[RN_ADDR_STRLEN];
		bool found = false;

		if (only && strcmp(only, li->name))
			continue;
		seen = true;
		if (!li->n_addrs) {
			skip(out, li->name, "%s", "no IP address");
			continue;
		}
		for (int k = 0; k < li->n_addrs && !found; k++)
			found = find_rail(m, li->name, &li->addrs[k], &out->rails[out->n_rails]);
		if (found) {
			out->n_rails++;
			continue;
		}
		rn_addr_format(&li->addrs[0], addr);
		skip(out, li->name, "no RoCE v2 GID for %s on any RDMA device", addr);
	}
	if (only && !seen)
		return rn_fail(e, -ENODEV, "env: no interface \"%s\" with an address in this "
			       "network namespace", only);
	if (!out->n_rails) {
		for (int i = 0; i < out->n_skipped; i++)
			off += (size_t)snprintf(why + off,
						off < sizeof(why) ? sizeof(why) - off : 0,
						"%s%s: %s", i ? "; " : "", out->skipped[i].ifname,
						out->skipped[i].why);
		if (!m->n_devs)
			return rn_fail(e, -ENODEV, "env: no RDMA device is visible in this network "
				       "namespace (RDMA netns mode exclusive, or no device "
				       "plugin resource?)");
		return rn_fail(e, -ENODEV, "env: no interface in this network namespace has a "
			       "RoCE v2 GID%s%s", off ? ": " : "", why);
	}
	out->same_gid_index = true;
	out->family = out->rails[0].addr.family;
	for (int i = 1; i < out->n_rails; i++)
		out->same_gid_index &= out->rails[i].gid_index == out->rails[0].gid_index;
	return 0;
}

static void append(char *buf, size_t size, const char *sep, const char *fmt, const char *a,
		   unsigned int b)
{
	size_t len = strlen(buf);

	if (len)
		snprintf(buf + len, size - len, "%s", sep);
	len = strlen(buf);
	snprintf(buf + len, size - len, fmt, a, b);
}

int rn_env_vars(const struct rn_env *env, struct rn_env_var vars[8])
{
	char hca[512] = "", ifn[512] = "", ucx[512] = "";
	int n = 0;

	for (int i = 0; i < env->n_rails; i++) {
		const struct rn_env_rail *r = &env->rails[i];
		char one[RN_RDMA_NAME_LEN + 12];

		snprintf(one, sizeof(one), "%s:%u", r->dev, r->port);
		if (!strstr(ucx, one)) {
			append(hca, sizeof(hca), ",", "%s:%u", r->dev, r->port);
			append(ucx, sizeof(ucx), ",", "%s:%u", r->dev, r->port);
		}
		append(ifn, sizeof(ifn), ",", "%s", r->ifname, 0);
	}
	/* "=" makes NCCL match names exactly: mlx5_1 must not also pick mlx5_10 */
	vars[n].name = "NCCL_IB_HCA";
	snprintf(vars[n++].value, sizeof(vars[0].value), "=%s", hca);
	if (env->same_gid_index) {
		vars[n].name = "NCCL_IB_GID_INDEX";
		snprintf(vars[n++].value, sizeof(vars[0].value), "%u", env->rails[0].gid_index);
	} else {
		/* one index cannot fit rails that differ: let NCCL (>= 2.21) pick
		 * the RoCE v2 GID of the address family on each HCA */
		vars[n].name = "NCCL_IB_ADDR_FAMILY";
		snprintf(vars[n++].value, sizeof(vars[0].value), "%s",
			 env->family == AF_INET6 ? "AF_INET6" : "AF_INET");
		vars[n].name = "NCCL_IB_ROCE_VERSION_NUM";
		snprintf(vars[n++].value, sizeof(vars[0].value), "2");
	}
	vars[n].name = "NCCL_SOCKET_IFNAME";
	snprintf(vars[n++].value, sizeof(vars[0].value), "=%s", ifn);
	vars[n].name = "UCX_NET_DEVICES";
	snprintf(vars[n++].value, sizeof(vars[0].value), "%s", ucx);
	vars[n].name = NULL;
	return n;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <netlink/socket.h>

#include "addr.h"
#include "fault.h"
#include "link.h"
#include "link_delete.h"
#include "log.h"
#include "netns.h"
#include "pod_datapath.h"
#include "record.h"
#include "routing.h"
#include "teardown.h"

void cni_teardown_add_addr(struct cni_teardown *t, const struct rn_addr *a)
{
	for (unsigned int i = 0; i < t->n_addrs; i++)
		if (rn_addr_equal(&t->addrs[i], a))
			return;
	if (t->n_addrs < CNI_TEARDOWN_MAX_ADDRS)
		t->addrs[t->n_addrs++] = *a;
}

/* The addresses on our link itself: the rules that name them must go too,
 * even when neither a record nor a prevResult says what they were (a DEL
 * that cannot read the node config does not know the state dir). */
static void addrs_of_link(struct nl_sock *pod, struct cni_teardown *t, const char *alias)
{
	struct rn_addr on_link[CNI_TEARDOWN_MAX_ADDRS];
	struct cni_link_info li;
	struct rn_error e = { 0 };
	int n;

	if (cni_link_get(pod, t->ifname, &li, &e) || strcmp(li.alias, alias))
		return;
	n = cni_addr_list(pod, li.ifindex, on_link, CNI_TEARDOWN_MAX_ADDRS, &e);
	for (int i = 0; i < n; i++)
		cni_teardown_add_addr(t, &on_link[i]);
}

/* The pod side up to our link's deletion, which it leaves under way in d
 * (ns NULL: done before it returns). */
static int pod_side_start(struct nl_sock *pod, const struct cni_netns *ns,
			  struct cni_teardown *t, struct cni_link_deletion *d, struct rn_error *e)
{
	char alias[CNI_ALIAS_MAX];
	int rc = 0;

	cni_link_alias(t->container_id, alias);
	addrs_of_link(pod, t, alias);
	for (unsigned int i = 0; i < t->n_addrs; i++)
		if (cni_rules_del_from(pod, &t->addrs[i], e) < 0)
			rc = e->code;
	if (cni_link_deletion_start(pod, ns, t->ifname, alias, d, e))
		rc = e->code;
	return rc;
}

/* The rest: the link's deletion returned, and a link left under the
 * temporary name by an interrupted ADD. */
static int pod_side_finish(struct nl_sock *pod, struct cni_teardown *t,
			   struct cni_link_deletion *d, struct rn_error *e)
{
	char tmp[RN_IFNAMSIZ];
	bool deleted;
	int rc = 0;

	if (cni_link_deletion_finish(d, &deleted, e))
		rc = e->code;
	else if (deleted)
		rn_debug("deleted %s", t->ifname);
	cni_link_tmp_name(t->container_id, t->ifname, tmp);
	if (cni_link_delete_ours(pod, tmp, "", &deleted, e))
		rc = e->code;
	else if (deleted)
		rn_info("deleted %s, left under its temporary name by an interrupted ADD", tmp);
	return rc;
}

int cni_teardown_pod(struct nl_sock *pod, struct cni_teardown *t, struct rn_error *e)
{
	struct cni_link_deletion d;
	int rc = pod_side_start(pod, NULL, t, &d, e);

	if (pod_side_finish(pod, t, &d, e))
		rc = e->code;
	return rc;
}

int cni_teardown_unregister(const struct cni_teardown *t, struct cni_err *err)
{
	struct rn_error e = { 0 };

	if (cni_datapath_unregister(t->pin_dir, t->container_id, t->ifname, &e))
		return cni_fail_rn(err, RN_CNI_ERR_DATAPATH, &e, "unregister %s/%s",
				   t->container_id, t->ifname);
	return 0;
}

/* Registration and allocation (the host side but the record). */
static int release_host(const struct cni_teardown *t, struct cni_err *err)
{
	struct rn_error e = { 0 };
	int rc = cni_teardown_unregister(t, err);

	cni_fault_point("unregistered");
	if (t->ipam && rn_ipam_release(t->ipam, t->container_id, t->ifname, &e) < 0)
		rc = cni_fail_rn(err, cni_code_of(e.code, RN_CNI_ERR_INTERNAL), &e,
				 "release the addresses of %s/%s", t->container_id, t->ifname);
	if (!t->ipam)
		rc = cni_fail(err, RN_CNI_ERR_INTERNAL, "no IPAM store to release %s/%s from",
			      t->container_id, t->ifname);
	cni_fault_point("released");
	return rc;
}

static int remove_record(const struct cni_teardown *t, struct cni_err *err)
{
	struct rn_error e = { 0 };

	if (cni_record_remove(t->state_dir, t->network, t->container_id, t->ifname, &e))
		return cni_fail_rn(err, RN_CNI_ERR_STATE, &e, "state");
	return 0;
}

int cni_teardown_host(const struct cni_teardown *t, struct cni_err *err)
{
	return release_host(t, err) || remove_record(t, err) ? -1 : 0;
}

/* The pod's netns and a socket in it: 1 if both are open, 0 if there is
 * nothing to clean inside (no netns named, or it is gone), -1 on an error
 * (err set). */
static int pod_open(const struct cni_teardown *t, struct cni_netns *ns, struct nl_sock **pod,
		    struct cni_err *err)
{
	struct rn_error e = { 0 };
	int o;

	*pod = NULL;
	if (!t->netns || !t->netns[0])
		return 0;
	o = cni_netns_open(ns, t->netns, &e);
	if (o == -ENOENT || o == -EINVAL) {
		rn_debug("%s is gone: nothing to clean inside it", t->netns);
		return 0;
	}
	if (o)
		return cni_fail_rn(err, RN_CNI_ERR_INTERNAL, &e, "netns");
	*pod = cni_nl_open(ns, &e);
	if (*pod)
		return 1;
	cni_netns_close(ns);
	return cni_fail_rn(err, RN_CNI_ERR_NETLINK, &e, "in %s", t->netns);
}

static void pod_close(struct cni_netns *ns, struct nl_sock *pod)
{
	nl_socket_free(pod);
	cni_netns_close(ns);
}

int cni_teardown_netns(struct cni_teardown *t, struct cni_err *err)
{
	struct rn_error e = { 0 };
	struct cni_netns ns;
	struct nl_sock *pod;
	int rc, open = pod_open(t, &ns, &pod, err);

	if (open <= 0)
		return open;
	rc = cni_teardown_pod(pod, t, &e) ?
		cni_fail_rn(err, RN_CNI_ERR_NETLINK, &e, "in %s", t->netns) : 0;
	pod_close(&ns, pod);
	return rc;
}

/* The host side goes on even if the pod side failed: the allocation and
 * registration must not outlive a pod that is being torn down. It starts
 * once the link has left the netns (with its addresses): while the kernel
 * finishes deleting it (link_delete.h). */
int cni_teardown_all(struct cni_teardown *t, struct cni_err *err)
{
	struct cni_link_deletion d = { .result_fd = -1 };
	struct rn_error e = { 0 };
	struct cni_netns ns;
	struct nl_sock *pod;
	int open = pod_open(t, &ns, &pod, err), rc = open < 0 ? -1 : 0, host;

	if (open > 0 && pod_side_start(pod, &ns, t, &d, &e))
		rc = cni_fail_rn(err, RN_CNI_ERR_NETLINK, &e, "in %s", t->netns);
	cni_link_deletion_gone(&d);
	cni_fault_point("pod-side-gone");
	host = release_host(t, err);
	if (open > 0) {
		if (pod_side_finish(pod, t, &d, &e) && !rc)
			rc = cni_fail_rn(err, RN_CNI_ERR_NETLINK, &e, "in %s", t->netns);
		pod_close(&ns, pod);
	}
	cni_fault_point("pod-side-clean");
	/* the record goes last, and only when everything before it went */
	if (rc || host)
		return -1;
	return remove_record(t, err);
}

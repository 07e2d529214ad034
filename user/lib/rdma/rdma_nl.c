// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <rdma/rdma_netlink.h>

#include "rdma/rdma_nl.h"

struct rn_rdma_nl {
	struct nl_sock *sk;
};

/* What one request collects: the caller's callback and the kernel's error. */
struct request {
	int (*parse)(struct nlattr **tb, struct request *r);
	void *cb;
	void *arg;
	int kernel_err;		/* -errno from NLMSG_ERROR */
	int stopped;		/* the caller's callback asked to stop */
	int parse_err;
};

int rn_rdma_nl_open(struct rn_rdma_nl **out, struct rn_error *e)
{
	struct rn_rdma_nl *nl = calloc(1, sizeof(*nl));
	int err;

	if (!nl)
		return rn_fail(e, -ENOMEM, "RDMA netlink: out of memory");
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		free(nl);
		return rn_fail(e, -ENOMEM, "RDMA netlink: out of memory");
	}
	/* requests ask for an ACK only where there is no reply to wait for */
	nl_socket_disable_auto_ack(nl->sk);
	err = nl_connect(nl->sk, NETLINK_RDMA);
	if (err < 0) {
		nl_socket_free(nl->sk);
		free(nl);
		return rn_fail(e, -EPROTONOSUPPORT, "RDMA netlink: %s (ib_core not loaded?)",
			       nl_geterror(err));
	}
	*out = nl;
	return 0;
}

void rn_rdma_nl_close(struct rn_rdma_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl);
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct request *r = arg;
	int err;

	if (r->stopped)
		return NL_SKIP;
	err = nlmsg_parse(nlmsg_hdr(msg), 0, tb, RDMA_NLDEV_ATTR_MAX - 1, NULL);
	if (err < 0) {
		r->parse_err = -EBADMSG;
		return NL_STOP;
	}
	if (r->parse && r->parse(tb, r))
		r->stopped = 1;
	return NL_OK;
}

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *err, void *arg)
{
	struct request *r = arg;

	(void)who;
	r->kernel_err = err->error ? err->error : -EIO;
	return NL_STOP;
}

static int run(struct rn_rdma_nl *nl, int cmd, int flags, struct request *r,
	       int (*put)(struct nl_msg *msg, const void *ctx), const void *ctx,
	       const char *what, struct rn_error *e)
{
	struct nl_msg *msg = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd),
						NLM_F_REQUEST | flags);
	struct nl_cb *cb;
	int err;

	if (!msg)
		return rn_fail(e, -ENOMEM, "%s: out of memory", what);
	if (put && put(msg, ctx)) {
		nlmsg_free(msg);
		return rn_fail(e, -EMSGSIZE, "%s: message too long", what);
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return rn_fail(e, -ENOMEM, "%s: out of memory", what);
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, r);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, r);
	err = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (err >= 0)
		err = nl_recvmsgs(nl->sk, cb);
	nl_cb_put(cb);
	if (r->kernel_err)
		return rn_fail(e, r->kernel_err, "%s: %s", what, strerror(-r->kernel_err));
	if (r->parse_err)
		return rn_fail(e, r->parse_err, "%s: malformed reply", what);
	if (err < 0)
		return rn_fail(e, -EIO, "%s: %s", what, nl_geterror(err));
	return 0;
}

static int get_u32(struct nlattr *a, unsigned int *out)
{
	if (!a || nla_len(a) < 4)
		return -1;
	*out = nla_get_u32(a);
	return 0;
}

static int get_u64(struct nlattr *a, uint64_t *out)
{
	if (!a || nla_len(a) < 8)
		return -1;
	*out = nla_get_u64(a);
	return 0;
}

static int get_u8(struct nlattr *a, int *out)
{
	if (!a || nla_len(a) < 1)
		return -1;
	*out = nla_get_u8(a);
	return 0;
}

static void get_str(struct nlattr *a, char *buf, size_t size)
{
	if (a && nla_len(a) > 0)
		nla_strlcpy(buf, a, size);
}

static int put_dev_port(struct nl_msg *msg, const void *ctx)
{
	const unsigned int *dp = ctx;	/* { dev_index, port } */

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, dp[0]))
		return -1;
	return dp[1] ? nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, dp[1]) : 0;
}

static int parse_dev(struct nlattr **tb, struct request *r)
{
	struct rn_rdma_nl_dev d = { .node_type = -1 };

	if (get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX], &d.index) || !tb[RDMA_NLDEV_ATTR_DEV_NAME]) {
		r->parse_err = -EBADMSG;
		return 1;
	}
	get_str(tb[RDMA_NLDEV_ATTR_DEV_NAME], d.name, sizeof(d.name));
	get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX], &d.n_ports);
	get_str(tb[RDMA_NLDEV_ATTR_FW_VERSION], d.fw_ver, sizeof(d.fw_ver));
	get_u64(tb[RDMA_NLDEV_ATTR_NODE_GUID], &d.node_guid);
	get_u64(tb[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID], &d.sys_image_guid);
	get_u8(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE], &d.node_type);
	get_str(tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL], d.protocol, sizeof(d.protocol));
	return ((rn_rdma_nl_dev_cb)r->cb)(&d, r->arg);
}

int rn_rdma_nl_dev_dump(struct rn_rdma_nl *nl, rn_rdma_nl_dev_cb cb, void *arg,
			struct rn_error *e)
{
	struct request r = { .parse = parse_dev, .cb = (void *)cb, .arg = arg };

	return run(nl, RDMA_NLDEV_CMD_GET, NLM_F_DUMP, &r, NULL, NULL, "RDMA netlink: device dump",
		   e);
}

static int parse_port(struct nlattr **tb, struct request *r)
{
	struct rn_rdma_nl_port p = { .state = -1, .phys_state = -1 };

	if (get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX], &p.dev_index) ||
	    get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX], &p.port)) {
		r->parse_err = -EBADMSG;
		return 1;
	}
	get_str(tb[RDMA_NLDEV_ATTR_DEV_NAME], p.dev_name, sizeof(p.dev_name));
	get_u8(tb[RDMA_NLDEV_ATTR_PORT_STATE], &p.state);
	get_u8(tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE], &p.phys_state);
	get_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX], &p.ndev_index);
	get_str(tb[RDMA_NLDEV_ATTR_NDEV_NAME], p.ndev_name, sizeof(p.ndev_name));
	return ((rn_rdma_nl_port_cb)r->cb)(&p, r->arg);
}

int rn_rdma_nl_port_dump(struct rn_rdma_nl *nl, unsigned int dev_index, rn_rdma_nl_port_cb cb,
			 void *arg, struct rn_error *e)
{
	struct request r = { .parse = parse_port, .cb = (void *)cb, .arg = arg };
	unsigned int dp[2] = { dev_index, 0 };

	return run(nl, RDMA_NLDEV_CMD_PORT_GET, NLM_F_DUMP, &r, put_dev_port, dp,
		   "RDMA netlink: port dump", e);
}

static int parse_sys(struct nlattr **tb, struct request *r)
{
	int *mode = r->arg;

	if (get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE], mode))
		r->parse_err = -ENODATA;
	return 1;
}

int rn_rdma_nl_netns_mode_get(struct rn_rdma_nl *nl, int *mode, struct rn_error *e)
{
	struct request r = { .parse = parse_sys, .arg = mode };

	*mode = -1;
	return run(nl, RDMA_NLDEV_CMD_SYS_GET, 0, &r, NULL, NULL, "RDMA netlink: system get", e);
}

static int put_netns_mode(struct nl_msg *msg, const void *ctx)
{
	return nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, *(const uint8_t *)ctx);
}

int rn_rdma_nl_netns_mode_set(struct rn_rdma_nl *nl, int mode, struct rn_error *e)
{
	struct request r = { 0 };
	uint8_t v = mode ? 1 : 0;

	return run(nl, RDMA_NLDEV_CMD_SYS_SET, NLM_F_ACK, &r, put_netns_mode, &v,
		   "RDMA netlink: system set netns", e);
}

static int parse_stat(struct nlattr **tb, struct request *r)
{
	struct nlattr *entry, *line[RDMA_NLDEV_ATTR_MAX];
	int rem;

	if (!tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS])
		return 1;	/* a port without hardware counters */
	nla_for_each_nested(entry, tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS], rem) {
		char name[64] = "";
		uint64_t v;

		if (nla_parse_nested(line, RDMA_NLDEV_ATTR_MAX - 1, entry, NULL) < 0 ||
		    !line[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] ||
		    get_u64(line[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE], &v)) {
			r->parse_err = -EBADMSG;
			return 1;
		}
		get_str(line[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME], name, sizeof(name));
		if (((rn_rdma_nl_counter_cb)r->cb)(name, v, r->arg))
			return 1;
	}
	return 1;
}

int rn_rdma_nl_stat_get(struct rn_rdma_nl *nl, unsigned int dev_index, unsigned int port,
			rn_rdma_nl_counter_cb cb, void *arg, struct rn_error *e)
{
	struct request r = { .parse = parse_stat, .cb = (void *)cb, .arg = arg };
	unsigned int dp[2] = { dev_index, port };

	return run(nl, RDMA_NLDEV_CMD_STAT_GET, 0, &r, put_dev_port, dp,
		   "RDMA netlink: statistic get", e);
}

static int parse_chardev(struct nlattr **tb, struct request *r)
{
	struct nlattr *a = tb[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID];
	int *id = r->arg;

	/* the kernel puts a u32 where the uapi comment says u64 */
	if (a && nla_len(a) >= 8)
		*id = (int)nla_get_u64(a);
	else if (a && nla_len(a) >= 4)
		*id = (int)nla_get_u32(a);
	return 1;
}

static int put_chardev(struct nl_msg *msg, const void *ctx)
{
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, *(const unsigned int *)ctx))
		return -1;
	return nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs");
}

int rn_rdma_nl_uverbs_driver_id(struct rn_rdma_nl *nl, unsigned int dev_index, int *id,
				struct rn_error *e)
{
	struct request r = { .parse = parse_chardev, .arg = id };
	int err;

	*id = -1;
	err = run(nl, RDMA_NLDEV_CMD_GET_CHARDEV, 0, &r, put_chardev, &dev_index,
		  "RDMA netlink: chardev get", e);
	if (!err && *id < 0)
		return rn_fail(e, -ENOENT, "RDMA netlink: no uverbs driver id");
	return err;
}

static int put_dev_netns(struct nl_msg *msg, const void *ctx)
{
	const uint32_t *v = ctx;

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, v[0]))
		return -1;
	return nla_put_u32(msg, RDMA_NLDEV_NET_NS_FD, v[1]);
}

int rn_rdma_nl_dev_set_netns(struct rn_rdma_nl *nl, unsigned int dev_index, int netns_fd,
			     struct rn_error *e)
{
	struct request r = { 0 };
	uint32_t v[2] = { dev_index, (uint32_t)netns_fd };

	return run(nl, RDMA_NLDEV_CMD_SET, NLM_F_ACK, &r, put_dev_netns, v,
		   "RDMA netlink: dev set netns", e);
}

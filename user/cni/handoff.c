// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "handoff.h"
#include "ipam/ipam.h"
#include "log.h"
#include "write_all.h"

/* The kernel loaded an interpreter (the dynamic loader) for this program. */
static bool dynamically_linked(void)
{
	return getauxval(AT_BASE) != 0;
}

static bool store_is_etcd(const struct rn_config *cfg)
{
	struct rn_ipam_settings s;

	/* a config that does not parse is reported by whoever opens the store */
	return !rn_ipam_settings_parse(&s, cfg, NULL) && s.store == RN_IPAM_STORE_ETCD;
}

/* rdmanet-etcd in the directory this executable was started from. */
static int sibling_path(char *out, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -errno;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	return snprintf(out, size, "%s/%s", self, CNI_ETCD_PLUGIN) < (int)size ? 0 : -ENAMETOOLONG;
}

/* The network config, already read, as the next program's stdin. */
static int stdin_from(const char *text, size_t len)
{
	int fd = memfd_create("rdmanet-netconf", 0), err;

	if (fd < 0)
		return -errno;
	err = rn_write_all(fd, text, len);
	if (!err && lseek(fd, 0, SEEK_SET))
		err = -errno;
	if (!err && dup2(fd, STDIN_FILENO) < 0)
		err = -errno;
	close(fd);
	return err;
}

int cni_store_handoff(struct cni_req *r, const struct rn_config *cfg)
{
	char next[PATH_MAX];
	int err;

	if (dynamically_linked() || !store_is_etcd(cfg))
		return 0;
	err = sibling_path(next, sizeof(next));
	if (!err && access(next, X_OK))
		err = -errno;
	if (!err)
		err = stdin_from(r->stdin_text, r->stdin_len);
	if (!err) {
		rn_debug("etcd store: handing over to %s", next);
		fflush(NULL);
		execv(next, (char *[]){ next, NULL });
		err = -errno;
	}
	return cni_fail(&r->err, CNI_ERR_IO, "the node's IPAM store is etcd, which this plugin "
			"serves through %s installed beside it: %s", CNI_ETCD_PLUGIN,
			strerror(-err));
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <rdmanet/master.h>

#include "prog_tag.h"

int rn_prog_tag_of_fd(int fd, struct rn_prog_tag *tag)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_prog_get_info_by_fd(fd, &info, &len))
		return -errno;
	memcpy(tag->b, info.tag, sizeof(tag->b));
	return 0;
}

int rn_prog_tag_of_id(__u32 id, struct rn_prog_tag *tag)
{
	int fd = bpf_prog_get_fd_by_id(id), err;

	if (fd < 0)
		return -errno;
	err = rn_prog_tag_of_fd(fd, tag);
	close(fd);
	return err;
}

bool rn_prog_tag_eq(const struct rn_prog_tag *a, const struct rn_prog_tag *b)
{
	return !memcmp(a->b, b->b, sizeof(a->b));
}

const char *rn_prog_tag_str(const struct rn_prog_tag *tag, char *buf)
{
	for (size_t i = 0; i < sizeof(tag->b); i++)
		sprintf(buf + 2 * i, "%02x", tag->b[i]);
	return buf;
}

/* the slot is a load-time constant: keyed by it too, in case the kernel
 * ever folds constants into the tag */
static struct {
	bool known;
	struct rn_prog_tag tag;
} cache[RN_PROG_KINDS][RN_MAX_MASTERS];

bool rn_build_tag_get(enum rn_prog_kind kind, __u32 slot, struct rn_prog_tag *tag)
{
	if (kind >= RN_PROG_KINDS || slot >= RN_MAX_MASTERS || !cache[kind][slot].known)
		return false;
	*tag = cache[kind][slot].tag;
	return true;
}

void rn_build_tag_put(enum rn_prog_kind kind, __u32 slot, const struct rn_prog_tag *tag)
{
	if (kind >= RN_PROG_KINDS || slot >= RN_MAX_MASTERS)
		return;
	cache[kind][slot].tag = *tag;
	cache[kind][slot].known = true;
}

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The CNI_* environment of one invocation, validated per command as the
 * spec requires (error code 4 names the variable that is wrong). */
#ifndef RDMANET_CNI_ENV_H
#define RDMANET_CNI_ENV_H

#include <stdbool.h>
#include <rdmanet/master.h>
#include <rdmanet/pod.h>

#include "cni_error.h"

enum cni_cmd { CNI_CMD_ADD, CNI_CMD_DEL, CNI_CMD_CHECK, CNI_CMD_VERSION, CNI_CMD_STATUS,
	       CNI_CMD_GC };

struct cni_env {
	enum cni_cmd cmd;
	const char *command;		/* as given */
	char container_id[RN_CONTAINER_ID_LEN];
	char netns[4096];		/* "" when not given (DEL may omit it) */
	char ifname[RN_IFNAMSIZ];
	const char *path;		/* CNI_PATH, may be NULL */
	/* from CNI_ARGS (K8S_POD_NAMESPACE, K8S_POD_NAME, K8S_POD_UID); "" if
	 * absent */
	char pod_namespace[RN_NS_LEN];
	char pod_name[RN_POD_NAME_LEN];
	char pod_uid[64];		/* what a DRA claim's reservedFor names */
	/* RDMANET_CONFIG: the node config as the runtime's environment names
	 * it ("" : the default); the only way to move it (node.h) */
	char node_config[4096];
};

/* Reads the environment through getenv_fn (getenv in the plugin; tests
 * pass their own). */
int cni_env_read(struct cni_env *env, const char *(*getenv_fn)(const char *),
		 struct cni_err *err);
/* Spec rules, shared with GC's list of valid attachments. */
int cni_check_container_id(const char *id, const char *what, struct cni_err *err);
int cni_check_ifname(const char *name, const char *what, struct cni_err *err);
/* CNI_ARGS: "K=V;K=V". Fills the pod identity; other keys are ignored. */
int cni_args_parse(const char *args, struct cni_env *env, struct cni_err *err);

#endif

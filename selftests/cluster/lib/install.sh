# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdmanet on the test cluster as deploy/README.md installs it: the image
# (`make image`) into each node's containerd, the node label, the Multus
# CRD (as installing Multus would create it), `kubectl apply -k` of an
# overlay, and the NetworkAttachmentDefinitions with kubectl.
#
#   cl_rdmanet_image IMAGE       make image unless podman has IMAGE of this
#                                commit; import it into every node
#   cl_ds_ready N                the DaemonSet has N pods, all Ready
#   cl_agent NODE                the name of NODE's rdmanetd pod
#   cl_ctl NODE ARGS...          rdmanetctl in NODE's agent (kubectl exec)
#   cl_pod_wait NAME [SECONDS]   until the pod is Running (1 when not)

cl_rdmanet_image() {
	local img=$1 rev log=$CL_DIR/logs/image.log
	rev=$(podman image inspect --format '{{index .Labels "org.opencontainers.image.revision"}}' "$img" 2>/dev/null)
	if [ "$rev" != "$(git -C "$RN_SRC" describe --always --dirty --abbrev=12 --match=NeVeR 2>/dev/null)" ]; then
		make -s -C "$RN_SRC" image IMAGE="$img" >"$log" 2>&1 || {
			tail -n 20 "$log" >&2
			return 1
		}
	fi
	# as the guide says: podman save docker.io/NAME | ctr -n k8s.io images import -
	podman save "docker.io/$img" >"$CL_DIR/images/rdmanet.tar" 2>>"$log" &&
		cl_import_image all "$CL_DIR/images/rdmanet.tar"
}

cl_ds_ready() {	# cl_ds_ready N [NAMESPACE/NAME]
	local ds=${2:-rdmanet-system/rdmanetd} st
	st=$(k -n "${ds%/*}" get ds "${ds#*/}" -o jsonpath='{.status.desiredNumberScheduled} {.status.numberReady} {.status.updatedNumberScheduled}' 2>/dev/null)
	[ "$st" = "$1 $1 $1" ]
}

cl_agent() {
	k -n rdmanet-system get pods -l app=rdmanetd --field-selector "spec.nodeName=$1" \
		-o jsonpath='{.items[0].metadata.name}' 2>/dev/null
}

cl_ctl() {
	local n=$1 pod
	shift
	pod=$(cl_agent "$n") && [ -n "$pod" ] || return 1
	k -n rdmanet-system exec "$pod" -c rdmanetd -- rdmanetctl "$@"
}

cl_pod_running() { [ "$(k get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null)" = Running ]; }

cl_pod_wait() { cl_wait "${2:-90}" cl_pod_running "$1"; }

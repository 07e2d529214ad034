#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdmanet on a real Kubernetes (selftests/cluster: upstream kube-apiserver,
# controller-manager, scheduler, two kubelets with containerd 2, all built
# from their Go modules), installed as deploy/README.md says, in shared mode:
#  1. the DaemonSet rolls out only on labelled nodes, its probes go Ready,
#     `kubectl exec` runs rdmanetctl doctor, resources and stats in it;
#  2. a NetworkAttachmentDefinition and a spidernet.io/hca_shared_devices
#     request: kubelet's device manager admits the pods through rdmanet's
#     device plugin, the Multus stand-in calls rdmanet, each pod has net1
#     with its node's pool address, policy routes, the uverbs nodes; traffic
#     between the two nodes' pods is counted and RoCEv2-marked; the node's
#     capacity stays right across a kubelet restart and an agent restart;
#  7. the node whose hostname (gpu-host-17) is not its Kubernetes name
#     (worker-b) allocates from worker-b's pool and publishes that name.
. "$RN_SRC/selftests/lib/tap.sh"
CL_NAME=${CL_NAME:-rt}
# shellcheck source=selftests/cluster/lib/cluster.sh
. "$RN_SRC/selftests/cluster/lib/cluster.sh"
# shellcheck source=selftests/cluster/lib/install.sh
. "$RN_SRC/selftests/cluster/lib/install.sh"
V=$(make -s -C "$RN_SRC" print-version)
IMG=rdmanet/rdmanet:$V
M=$RN_SRC/selftests/cluster/manifests
RES=spidernet.io/hca_shared_devices

trap cl_down EXIT
if ! out=$("$RN_SRC/selftests/cluster/build.sh" 2>&1); then
	echo "$out" | tail -n 20 | sed 's/^/# /'
	tap_fail "the upstream components build (selftests/cluster/build.sh)"
	tap_done
fi
if ! out=$(cl_up 2>&1); then
	echo "$out" | tail -n 30 | sed 's/^/# /'
	tap_fail "the cluster comes up"
	tap_done
fi
tap_ok "$out"

# --- install, as deploy/README.md says ----------------------------------------
check "make image; the image imported into each node's containerd" cl_rdmanet_image "$IMG"
check "the Multus NetworkAttachmentDefinition CRD" k apply -f "$M/nad-crd.yaml"
k wait --for condition=established --timeout=60s crd/network-attachment-definitions.k8s.cni.cncf.io >/dev/null
check "label one node" k label node worker-a rdmanet.io/rdma=true
check "kubectl apply -k (the test overlay over deploy/base)" \
	k apply -k "$RN_SRC/selftests/cluster/overlay"
check "story 1: the DaemonSet runs on the labelled node only, Ready" cl_wait 180 cl_ds_ready 1
check_eq "  ... on worker-a" "$(k -n rdmanet-system get pods -l app=rdmanetd -o jsonpath='{.items[*].spec.nodeName}')" worker-a
check "label the other node: rolled out there too, Ready" \
	eval 'k label node worker-b rdmanet.io/rdma=true >/dev/null && cl_wait 180 cl_ds_ready 2'
if ! cl_ds_ready 2; then
	k -n rdmanet-system get pods -o wide | sed 's/^/# /'
	k -n rdmanet-system describe pods | tail -n 40 | sed 's/^/# /'
	tap_done
fi
for n in $CL_NODES; do
	check "kubectl exec: rdmanetctl doctor on $n" eval "cl_ctl $n doctor >$CL_DIR/doctor-$n.txt 2>&1"
	sed 's/^/#   /' "$CL_DIR/doctor-$n.txt"
	check "kubectl exec: rdmanetctl resources on $n lists $RES" \
		eval "cl_ctl $n resources -j | jq -e '.. | strings | select(. == \"$RES\")' >/dev/null"
	check "kubectl exec: rdmanetctl stats -j on $n" eval "cl_ctl $n stats -j | jq -e '.masters | length == 2' >/dev/null"
done

# --- story 7: the node is its Kubernetes name, whatever its hostname ----------
check_eq "worker-b's hostname is not its node name" "$(cl_node_exec worker-b hostname)" gpu-host-17
check_eq "the config published on worker-b names worker-b" \
	"$(cl_node_exec worker-b jq -r .node /etc/rdmanet/config.json)" worker-b

tap_done

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
	# doctor exits 1 on the fixture: two of its VFs have zero GUIDs on purpose
	cl_ctl "$n" doctor >"$CL_DIR/doctor-$n.txt" 2>&1
	check "kubectl exec: rdmanetctl doctor on $n runs every check" \
		grep -q "^pass datapath .*ens1f0np0: .*tc tcx" "$CL_DIR/doctor-$n.txt" ||
		sed 's/^/#   /' "$CL_DIR/doctor-$n.txt"
	check "kubectl exec: rdmanetctl resources on $n lists $RES" \
		eval "cl_ctl $n resources -j | jq -e '.. | strings | select(. == \"$RES\")' >/dev/null"
	check "kubectl exec: rdmanetctl stats -j on $n" eval "cl_ctl $n stats -j | jq -e '.masters | length == 2' >/dev/null"
done

# --- story 7: the node is its Kubernetes name, whatever its hostname ----------
check_eq "worker-b's hostname is not its node name" "$(cl_node_exec worker-b hostname)" gpu-host-17
check_eq "the config published on worker-b names worker-b" \
	"$(cl_node_exec worker-b jq -r .node /etc/rdmanet/config.json)" worker-b

# --- story 2: shared mode as the seeds do it ------------------------------------
# pod_ip POD: its net1 IPv4 address
pod_ip() { k exec "$1" -- ip -4 -o addr show net1 2>/dev/null | awk '{ print $4 }' | cut -d/ -f1; }
in_pool() {	# in_pool IP FIRST LAST (the last octet)
	local o=${1##*.}
	[ "${1%.*}" = 172.16.11 ] && [ "$o" -ge "$2" ] && [ "$o" -le "$3" ]
}
alloc() { k get node "$1" -o jsonpath="{.status.allocatable.spidernet\.io/hca_shared_devices}"; }
pod_on() { sed "s/NAME/$1/; s/NODE/$2/" "$M/pod-shared.yaml" | k apply -f - >/dev/null; }

check_eq "kubelet: worker-a allocatable $RES" "$(alloc worker-a)" 100
check_eq "kubelet: worker-b allocatable $RES" "$(alloc worker-b)" 100
check "the NetworkAttachmentDefinition" eval 'k apply -f "$M/nad-rail1.yaml" >/dev/null'
pod_on pa worker-a
pod_on pb worker-b
check "pods with rail1 and $RES run on both nodes" \
	eval k wait --for=condition=Ready pod/pa pod/pb --timeout=120s
if ! cl_pod_running pa || ! cl_pod_running pb; then
	k describe pod pa pb | tail -n 30 | sed 's/^/# /'
	tap_done
fi
ipa=$(pod_ip pa)
ipb=$(pod_ip pb)
check "pa's net1 has an address of worker-a's pool ($ipa)" in_pool "$ipa" 1 100
check "story 7: pb's net1 has an address of worker-b's pool ($ipb), on gpu-host-17" in_pool "$ipb" 101 200
check "Multus wrote both networks in network-status" eval \
	"k get pod pa -o jsonpath='{.metadata.annotations.k8s\.v1\.cni\.cncf\.io/network-status}' |
	 jq -e '[.[].interface] == [\"eth0\", \"net1\"] and .[1].ips == [\"$ipa\"]' >/dev/null"
check "pa's policy route: a rule for its net1 address" eval "k exec pa -- ip rule | grep -q 'from $ipa lookup'"
check "pa's device nodes: the HCAs' uverbs and rdma_cm" eval \
	"k exec pa -- ls /dev/infiniband | tr '\n' ' ' | grep -q 'rdma_cm .*uverbs0 uverbs1'"
check "pa's HCA environment from the device plugin" eval \
	"k exec pa -- env | grep -q '^RDMANET_HCAS_SPIDERNET_IO_HCA_SHARED_DEVICES=mlx5_0:1:ens1f0np0,mlx5_1:1:ens1f1np1$'"
check "pa reaches pb across the nodes (ICMP over the rail)" eval "k exec pa -- ping -c 2 -W 2 $ipb >/dev/null"

# 200 RoCEv2 datagrams pa -> pb, captured on the rail between the nodes
ip netns exec "$CL_FABRIC" tcpdump -i rail0 -nn -v -c 200 'udp dst port 4791' \
	>"$CL_DIR/rail0.txt" 2>/dev/null &
cap=$!
k exec pb -- rn_udpsink --port 4791 --idle-ms 1500 --max-s 30 >"$CL_DIR/sink.txt" 2>&1 &
sink=$!
sleep 2
# paced (1 ms): the sink's socket, not the path, would drop a burst
check "pa sends 200 RoCEv2 datagrams to pb" \
	k exec pa -- rn_udpgen --dst "$ipb" --count 200 --size 200 --interval-us 1000
wait "$sink"
check_eq "pb received them all" "$(tr -d '\r' <"$CL_DIR/sink.txt")" 200
timeout 10 tail --pid="$cap" -f /dev/null
kill "$cap" 2>/dev/null
check_eq "on the rail, every one carries DSCP 26 and ECT(0) (tos 0x6a)" \
	"$(grep -c 'tos 0x6a' "$CL_DIR/rail0.txt")" 200
st() { cl_ctl "$1" stats -j | jq -c "[.pods[] | select(.pod == \"$2\")][0] | $3"; }
check_eq "worker-a's agent: pa sent 200 RoCEv2, 200 marked" \
	"$(st worker-a pa '[.tx.roce.packets, .tx.marked_packets]')" "[200,200]"
check_eq "worker-b's agent: pb received 200 RoCEv2" "$(st worker-b pb '.rx.roce.packets')" 200

# the node's capacity across a kubelet restart and an agent restart
check "kubelet of worker-a restarted" eval 'cl_daemon_stop kubelet-worker-a && cl_node_kubelet_up worker-a'
check "  ... the node Ready again" cl_wait 60 cl_nodes_ready
check "  ... its allocatable $RES back to 100 (the plugin registered again)" \
	cl_wait 60 eval '[ "$(alloc worker-a)" = 100 ]'
check "  ... pa still runs with its address" cl_wait 30 eval '[ "$(pod_ip pa)" = "$ipa" ]'
old=$(cl_agent worker-a)
check "worker-a's agent pod deleted; the DaemonSet makes another" \
	k -n rdmanet-system delete pod "$old" --wait=true
check "  ... Ready" eval 'cl_wait 120 cl_ds_ready 2 && [ "$(cl_agent worker-a)" != "$old" ]'
check_eq "  ... allocatable $RES still 100" "$(alloc worker-a)" 100
check_eq "  ... pa's counts carried on" "$(st worker-a pa '.tx.roce.packets')" 200
pod_on pc worker-a
check "a new pod on worker-a after both restarts" k wait --for=condition=Ready pod/pc --timeout=90s
check "  ... its own address of worker-a's pool" in_pool "$(pod_ip pc)" 1 100
check_eq "  ... kubelet counts 2 of $RES in use on worker-a" \
	"$(k get pods --field-selector spec.nodeName=worker-a,status.phase=Running -o json |
		jq "[.items[].spec.containers[].resources.limits[\"$RES\"] // \"0\" | tonumber] | add")" 2

# --- story 5: upgrade under traffic, then uninstall as the guide says ---------
# The next version: the image with the agent of build/variant (other BPF
# code, version V+variant), as test_kube_play.sh makes it
V_NEXT=$("$RN_BUILD/variant/bin/rdmanetd" --version | awk '{ print $2 }')
NEXT=rdmanet/rdmanet:$V-next
mkdir -p "$CL_DIR/next"
cp "$RN_BUILD/variant/bin/rdmanetd" "$CL_DIR/next/"
printf 'FROM %s\nCOPY rdmanetd /usr/local/sbin/rdmanetd\n' "$IMG" >"$CL_DIR/next/Containerfile"
check "the next version's image ($V_NEXT), in each node's containerd" eval \
	'podman build --quiet --pull=never -t "docker.io/$NEXT" -f "$CL_DIR/next/Containerfile" \
		"$CL_DIR/next" >/dev/null && podman save "docker.io/$NEXT" >"$CL_DIR/images/next.tar" 2>/dev/null &&
	 cl_import_image all "$CL_DIR/images/next.tar"'
tx0=$(st worker-a pa '.tx.roce.packets')
rx0=$(st worker-b pb '.rx.roce.packets')
# 20,000 datagrams over about 60 s while the DaemonSet rolls node by node
k exec pb -- rn_udpsink --port 4791 --idle-ms 5000 --max-s 180 >"$CL_DIR/sink2.txt" 2>&1 &
sink=$!
sleep 2
k exec pa -- rn_udpgen --dst "$ipb" --count 20000 --size 200 --interval-us 3000 >/dev/null 2>&1 &
gen=$!
sleep 5
# the guide: set the new tag in the overlay (kustomize images), apply, wait
mkdir -p "$CL_DIR/upgrade"
cp -r "$RN_SRC/selftests/cluster/overlay/." "$CL_DIR/upgrade/"
# (kustomize takes a base by a relative path only)
sed -i "s|- ../../../deploy/base|- $(realpath --relative-to="$CL_DIR/upgrade" "$RN_SRC/deploy/base")|" \
	"$CL_DIR/upgrade/kustomization.yaml"
printf 'images:\n  - { name: rdmanet/rdmanet, newTag: "%s" }\n' "$V-next" >>"$CL_DIR/upgrade/kustomization.yaml"
check "kubectl apply -k with the new tag" eval 'k apply -k "$CL_DIR/upgrade" >/dev/null'
check "  ... kubectl rollout status: both nodes run it" \
	eval 'k -n rdmanet-system rollout status ds/rdmanetd --timeout=300s >/dev/null'
for n in $CL_NODES; do
	check_eq "  ... $n's agent says $V_NEXT" \
		"$(k -n rdmanet-system exec "$(cl_agent "$n")" -c rdmanetd -- rdmanetd --version | awk '{ print $2 }')" "$V_NEXT"
done
wait "$gen"
wait "$sink"
check_eq "the stream went on: pb received all 20,000" "$(tr -d '\r' <"$CL_DIR/sink2.txt")" 20000
check_eq "worker-a counted every one sent, across the upgrade" "$(st worker-a pa '.tx.roce.packets')" $((tx0 + 20000))
check_eq "worker-b counted every one received, across the upgrade" "$(st worker-b pb '.rx.roce.packets')" $((rx0 + 20000))

# uninstall (deploy/README.md "Uninstalling")
k delete pod pa pb pc --wait=true >/dev/null
check "1-2. the pods, then the agent: kubectl delete -k" \
	eval 'k delete -k "$CL_DIR/upgrade" --wait=true >/dev/null'
check "3. kubectl apply -k deploy/uninstall; every pod Ready" eval \
	'k apply -k "$RN_SRC/deploy/uninstall" >/dev/null &&
	 k -n rdmanet-uninstall rollout status ds/rdmanet-uninstall --timeout=180s >/dev/null'
check "   ... kubectl delete -k deploy/uninstall" \
	eval 'k delete -k "$RN_SRC/deploy/uninstall" --wait=true >/dev/null'
for n in $CL_NODES; do
	left=$(cl_node_exec "$n" sh -c 'ls -d /sys/fs/bpf/rdmanet /opt/cni/bin/rdmanet* /etc/rdmanet/* \
		/var/lib/rdmanet /var/lib/kubelet/device-plugins/rdmanet-* \
		/var/lib/kubelet/plugins_registry/rdmanet-* /var/run/cdi/rdmanet* \
		/var/lib/node_exporter/textfile_collector/rdmanet.prom 2>/dev/null
		for m in ens1f0np0 ens1f1np1; do bpftool net show dev $m | grep prog_id; done' 2>&1)
	check_eq "nothing of rdmanet left on $n" "$left" ""
done

tap_done

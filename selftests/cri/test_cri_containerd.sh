#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The CNI plugin called by a real container runtime: containerd 1.6, whose
# CRI plugin creates pod sandboxes and calls CNI as it does for kubelet,
# driven over the CRI gRPC API (cri_client.py) in a node netns with its
# masters and rdmanetd (selftests/cri/lib.sh). One containerd serves the
# whole test:
#  - the first config in its conf dir is the one called (a later one is not);
#  - a hostNetwork sandbox calls no CNI;
#  - RunPodSandbox: ADD with containerd's CNI_ARGS, eth0 in the pod netns
#    with the address, rdmanetctl pod show/stats name the pod, IPAM holds
#    the address, PodSandboxStatus reports it;
#  - containerd restarted with the pod live: no second ADD, the pod and its
#    address kept; StopPodSandbox: DEL, all released; a second
#    StopPodSandbox calls DEL again (no netns): it succeeds, changes nothing;
#    RemovePodSandbox;
#  - the sandbox's netns gone before StopPodSandbox (pause killed, netns
#    unmounted: the kernel tears it down asynchronously): DEL without a
#    netns releases everything;
#  - an ADD that fails (pool exhausted): RunPodSandbox fails, containerd's
#    DEL leaves nothing behind; kubelet's retry succeeds once the pod that
#    held the address has died (DEL without a netns) and freed it;
#  - a dual-stack pod: PodSandboxStatus has both families; a 0.4.0 conflist;
#  - a chained conflist (rdmanet, then the reference tuning plugin).
# Not here, because containerd cannot produce them: rdmanet as a Multus
# secondary network (needs Multus as the primary plugin) and Multus's
# deviceID (selftests/cni/test_cni_multus.sh sends what Multus sends).
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
. "$RN_SRC/selftests/cri/lib.sh"
trap 'cri_cleanup; cni_topo_down' EXIT

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
for c in containerd ctr runc; do
	command -v $c >/dev/null || tap_skip_all "$c not installed (make deps)"
done
[ -x /usr/bin/catatonit ] || tap_skip_all "catatonit not installed (make deps)"
/usr/bin/python3 -c 'import grpc, grpc_tools' 2>/dev/null ||
	tap_skip_all "python3-grpcio, python3-grpc-tools not installed (make deps)"
cni_topo_up || tap_skip_all "cannot create network namespaces"
# a pool with one address, for an ADD that fails
cni_node_config "$CNI_CONFIG" monitor \
	'{ "name": "tiny", "subnet": "10.81.1.0/24", "ips": ["10.81.1.5"], "masters": ["ra0"] }'
check "rdmanetd attaches to both rails" cni_agent_start "$CNI_CONFIG"
cri_setup || tap_skip_all "cannot set up containerd's directories"

# conflist FILE NAME PLUGINS_JSON: a network config list as a node has it
conflist() {
	jq -n --arg n "$2" --argjson p "$3" '{cniVersion: "1.0.0", name: $n, plugins: $p}' >"$1.tmp" &&
		mv "$1.tmp" "$1"
}
# rdmanet's entry: eth0 from POOL on ra0 (the probes wait for nothing here)
rdmanet() {
	echo "{\"type\": \"rdmanet\", \"master\": \"ra0\", \"ippools\": {\"ipv4\": [\"$1\"]},
	       \"gatewayCheck\": false, \"ipConflictCheck\": false}"
}
CONF=$CRI_CNI_CONF/10-rdmanet.conflist
conflist "$CONF" rdmanet-cri "[$(rdmanet railA-v4)]"
conflist "$CRI_CNI_CONF/20-decoy.conflist" decoy \
	'[{"type": "bridge", "bridge": "decoy0", "ipam": {"type": "host-local", "subnet": "10.99.0.0/24"}}]'

cri_containerd_start ||
	tap_skip_all "containerd cannot run here: $(grep -m1 'level=fatal' "$CRI_DIR/containerd.log")"
v=$(cri version)
tap_diag "containerd: $(jq -r '.runtime_version' <<<"$v")"
check_eq "CRI Version: containerd answers runtime.v1" \
	"$(jq -r '[.runtime_name, .runtime_api_version] | join(" ")' <<<"$v")" "containerd v1"
check "the pause image (catatonit, made here) imports" cri_pause_import
check "containerd loads the first config of its conf dir (rdmanet-cri)" \
	cni_wait "$CRI_PID" cri_conf_loaded rdmanet-cri
check "  and only that one" test "$(cri status | jq -c '[.info.cniconfig.Networks[].Config.Name]')" = \
	'["cni-loopback","rdmanet-cri"]'
check_eq "  NetworkReady" "$(cri status | jq -r '.conditions.NetworkReady')" true

# held CONTAINER: what IPAM holds for a sandbox's eth0; regs: the data path's pods
held() { cni_held "$1" eth0; }
regs() { cni_ctl -j pod show | jq length; }
pod_ip() { cri pod-status "$1" | jq -r .network.ip; }
pod_state() { cri pod-status "$1" | jq -r .state; }
# addr_in NETNS: eth0's global IPv4 addresses, as ADDR/LEN
addr_in() {
	nsenter --net="$1" ip -j -4 addr show eth0 2>/dev/null |
		jq -r '[.[0].addr_info[] | "\(.local)/\(.prefixlen)"] | join(",")'
}

# --- a hostNetwork sandbox: no CNI -----------------------------------------------
if ! hn=$(cri run-pod host-0 uid-host-0 kube-system --network node 2>"$CNI_TMP/err"); then
	tap_skip_all "containerd cannot run a sandbox here: $(cat "$CNI_TMP/err")"
fi
check_eq "hostNetwork sandbox: READY, no IP from CNI" "$(cri pod-status "$hn" | jq -r '[.state, .network.ip] | join(" ")')" \
	"SANDBOX_READY "
check_eq "  rdmanet not called" "$(grep -c "|$hn|" "$CRI_CALLS")" 0
cri stop-pod "$hn" && cri remove-pod "$hn"

# --- RunPodSandbox -> ADD ------------------------------------------------------------
if id=$(cri run-pod web-0 uid-web-0 team-a --attempt 1 --annotation note=cri-test 2>"$CNI_TMP/err"); then
	tap_ok "RunPodSandbox of team-a/web-0 succeeds"
else
	tap_fail "RunPodSandbox of team-a/web-0: $(cat "$CNI_TMP/err")"
fi
ns=$(cri_pod_netns "$id")
ip=$(pod_ip "$id")
check_eq "PodSandboxStatus: READY, its metadata and annotation" \
	"$(cri pod-status "$id" | jq -c '[.state, .metadata, .annotations.note]')" \
	'["SANDBOX_READY",{"name":"web-0","uid":"uid-web-0","namespace":"team-a","attempt":1},"cri-test"]'
check "PodSandboxStatus: the IP is rdmanet's, from railA-v4 ($ip)" \
	grep -qE '^10\.81\.0\.(1[0-9]|2[0-9]|3[0-9])$' <<<"$ip"
check_eq "containerd called ADD once, for eth0 in the sandbox's netns" \
	"$(grep "^ADD|$id|" "$CRI_CALLS" | cut -d'|' -f3,4)" "eth0|$ns"
args=$(grep -m1 "^ADD|$id|" "$CRI_CALLS" | cut -d'|' -f5)
tap_diag "CNI_ARGS from containerd: $args"
for kv in K8S_POD_NAMESPACE=team-a K8S_POD_NAME=web-0 K8S_POD_INFRA_CONTAINER_ID="$id" \
	K8S_POD_UID=uid-web-0; do
	check "  CNI_ARGS carries ${kv%%=*}" grep -q "\(^\|;\)$kv\(;\|$\)" <<<"$args"
done
check_eq "the pod netns: eth0 has the address" "$(addr_in "$ns")" "$ip/24"
check_eq "rdmanetctl pod show: the pod, by namespace/name and sandbox id" \
	"$(cni_ctl -j pod show | jq -c '[.[] | [.namespace, .pod, .container_id, .ifname, .master, .ips]]')" \
	"[[\"team-a\",\"web-0\",\"$id\",\"eth0\",\"ra0\",[\"$ip\"]]]"
check_eq "rdmanetctl stats --pod team-a/web-0 counts it" \
	"$(cni_ctl stats -j --pod team-a/web-0 | jq -c '[.pods[] | .ips]')" "[[\"$ip\"]]"
check_eq "IPAM holds the address for the sandbox's eth0" "$(held "$id")" "$ip"

# --- containerd restarted with the pod live ----------------------------------------------
pid=$(cri_pod_pid "$id")
cri_containerd_stop
check "containerd stopped: the sandbox's pause process lives on" kill -0 "$pid"
check "containerd starts again" cri_containerd_start
check_eq "  the sandbox is READY with the same IP" "$(pod_state "$id") $(pod_ip "$id")" "SANDBOX_READY $ip"
check_eq "  no second ADD" "$(cri_calls ADD "$id")" 1
check_eq "  the data path and IPAM still have it" "$(regs) $(held "$id")" "1 $ip"

# --- StopPodSandbox -> DEL; again; RemovePodSandbox ---------------------------------------
check "StopPodSandbox succeeds" cri stop-pod "$id"
check_eq "  containerd called DEL for eth0 with the netns" \
	"$(grep "^DEL|$id|" "$CRI_CALLS" | cut -d'|' -f3,4)" "eth0|$ns"
check_eq "  the address is released" "$(held "$id")" ""
check_eq "  the data path has no pod" "$(regs)" 0
check "  no attachment record" test -z "$(find "$CNI_STATE" -name "$id:*")"
check "  containerd removed the netns" test ! -e "$ns"
check_eq "  the sandbox is NOTREADY" "$(pod_state "$id")" SANDBOX_NOTREADY
check "a second StopPodSandbox succeeds" cri stop-pod "$id"
check_eq "  containerd called DEL again, without the netns it removed" \
	"$(grep "^DEL|$id|" "$CRI_CALLS" | cut -d'|' -f3,4 | paste -sd,)" "eth0|$ns,eth0|"
check_eq "  and it changed nothing" "$(held "$id") $(regs)" " 0"
check "RemovePodSandbox succeeds" cri remove-pod "$id"
check_eq "  ListPodSandbox no longer has it" "$(cri list | jq --arg i "$id" 'map(select(.id == $i)) | length')" 0

# --- the netns gone before StopPodSandbox --------------------------------------------------
id=$(cri run-pod gone-0 uid-gone-0 team-a)
ns=$(cri_pod_netns "$id")
ip=$(pod_ip "$id")
check "a second pod gets an address ($ip)" test -n "$ip" -a "$(held "$id")" = "$ip"
# sandbox_dies ID: its pause process is killed and its netns's mount goes:
# the last reference is gone, the kernel tears the netns down in its own
# time (its interfaces with it); containerd sees the sandbox exit
sandbox_dies() {
	local ns
	ns=$(cri_pod_netns "$1")
	kill -KILL "$(cri_pod_pid "$1")" && umount "$ns" && rm -f "$ns" || return 1
	# shellcheck disable=SC2317
	not_ready() { [ "$(pod_state "$1")" = SANDBOX_NOTREADY ]; }
	cni_wait "$CRI_PID" not_ready "$1"
}
check "the sandbox dies, its netns unmounted; containerd sees it" sandbox_dies "$id"
check "StopPodSandbox succeeds" cri stop-pod "$id"
check_eq "  containerd called DEL without a netns" "$(grep "^DEL|$id|" "$CRI_CALLS" | cut -d'|' -f3,4)" "eth0|"
check_eq "  the address is released" "$(held "$id")" ""
check_eq "  the data path has no pod" "$(regs)" 0
check "  no attachment record" test -z "$(find "$CNI_STATE" -name "$id:*")"
cri remove-pod "$id"

# --- an ADD that fails: the pool is exhausted ----------------------------------------
conflist "$CONF" rdmanet-tiny "[$(rdmanet tiny)]"
check "containerd reloads the changed config (rdmanet-tiny)" cni_wait "$CRI_PID" cri_conf_loaded rdmanet-tiny
a=$(cri run-pod tiny-a uid-tiny-a team-b)
check_eq "tiny-a takes the pool's one address" "$(pod_ip "$a")" 10.81.1.5
if b=$(cri run-pod tiny-b uid-tiny-b team-b 2>"$CNI_TMP/err"); then
	tap_fail "RunPodSandbox of tiny-b fails: it succeeded ($b)"
else
	check "RunPodSandbox of tiny-b fails, saying why" grep -qi "exhausted\|no free" "$CNI_TMP/err"
fi
tap_diag "$(cat "$CNI_TMP/err")"
# (CNI_ARGS is the last field; containerd orders its keys as a Go map
# gives them, so the name may be the last key, with no ';' after it)
b=$(grep "^ADD|" "$CRI_CALLS" | grep -E "[|;]K8S_POD_NAME=tiny-b(;|$)" | cut -d'|' -f2)
check_eq "  containerd called ADD, then DEL, for its sandbox" \
	"$(grep "|$b|" "$CRI_CALLS" | cut -d'|' -f1 | paste -sd,)" "ADD,DEL"
check "  containerd removed its netns" test ! -e "$(grep "^ADD|$b|" "$CRI_CALLS" | cut -d'|' -f4)"
check_eq "  no sandbox left for it" "$(cri list | jq '[.[] | select(.metadata.name == "tiny-b")] | length')" 0
check_eq "  nothing held, no record for it" "$(held "$b")$(find "$CNI_STATE" -name "$b:*")" ""
check_eq "  the data path has tiny-a only" "$(cni_ctl -j pod show | jq -c '[.[].pod]')" '["tiny-a"]'
check_eq "  tiny-a keeps its address" "$(held "$a") $(addr_in "$(cri_pod_netns "$a")")" "10.81.1.5 10.81.1.5/24"
# tiny-a dies the same way; its DEL frees the address while the kernel may
# still be tearing down the dead netns that had it
sandbox_dies "$a" && cri stop-pod "$a" && cri remove-pod "$a"
b=$(cri run-pod tiny-b uid-tiny-b team-b --attempt 1)
check_eq "kubelet's retry of tiny-b gets the address tiny-a's DEL (no netns) freed" \
	"$(pod_ip "$b") $(addr_in "$(cri_pod_netns "$b")")" "10.81.1.5 10.81.1.5/24"
check_eq "  the data path has tiny-b only, with it" \
	"$(cni_ctl -j pod show | jq -c '[.[] | [.pod, .ips]]')" '[["tiny-b",["10.81.1.5"]]]'
cri stop-pod "$b" && cri remove-pod "$b"
check_eq "  stopped, nothing held" "$(held "$b") $(regs)" " 0"

# --- dual stack: containerd reports both families ------------------------------------
conflist "$CONF" rdmanet-dual '[{"type": "rdmanet", "master": "ra0",
	"ippools": {"ipv4": ["railA-v4"], "ipv6": ["railA-v6"]}, "gatewayCheck": false, "ipConflictCheck": false}]'
check "containerd loads the dual-stack config" cni_wait "$CRI_PID" cri_conf_loaded rdmanet-dual
id=$(cri run-pod dual-0 uid-dual-0 team-c)
st=$(cri pod-status "$id")
check_eq "dual stack: PodSandboxStatus has the IPv4 address first, the IPv6 one after" \
	"$(jq -c '[.network.ip, .network.additional_ips]' <<<"$st")" \
	"$(cni_ctl -j pod show | jq -c '.[0].ips | [.[0], .[1:]]')"
check "  from railA-v4 and railA-v6" \
	grep -qE '^\["10\.81\.0\.[0-9]+",\["fd81::[0-9a-f]+"\]\]$' <<<"$(jq -c '[.network.ip, .network.additional_ips]' <<<"$st")"
check "  StopPodSandbox succeeds" cri stop-pod "$id"
check_eq "  DEL released both" "$(held "$id") $(regs)" " 0"
cri remove-pod "$id"

# --- a 0.4.0 conflist: containerd reads the older result ------------------------------
conflist "$CONF" rdmanet-v040 "[$(rdmanet railA-v4)]"
jq '.cniVersion = "0.4.0"' "$CONF" >"$CONF.tmp" && mv "$CONF.tmp" "$CONF"
check "containerd loads the 0.4.0 config" cni_wait "$CRI_PID" cri_conf_loaded rdmanet-v040
id=$(cri run-pod old-0 uid-old-0 team-c)
ip=$(pod_ip "$id")
check "0.4.0: PodSandboxStatus has the address the pod's eth0 has ($ip)" \
	test -n "$ip" -a "$(addr_in "$(cri_pod_netns "$id")")" = "$ip/24"
check "  StopPodSandbox succeeds" cri stop-pod "$id"
check_eq "  DEL released it" "$(held "$id") $(regs)" " 0"
cri remove-pod "$id"

# --- a chained conflist: rdmanet, then tuning ------------------------------------------
conflist "$CONF" rdmanet-chain "[$(rdmanet railA-v4), {\"type\": \"tuning\", \"mtu\": 1400}]"
check "containerd loads the chained config" cni_wait "$CRI_PID" cri_conf_loaded rdmanet-chain
id=$(cri run-pod chain-0 uid-chain-0 team-c)
ns=$(cri_pod_netns "$id")
ip=$(pod_ip "$id")
check "chained: the sandbox gets rdmanet's address ($ip)" test -n "$ip" -a "$(addr_in "$ns")" = "$ip/24"
check_eq "  tuning ran after it on the same eth0 (mtu 1400)" \
	"$(nsenter --net="$ns" ip -j link show eth0 | jq '.[0].mtu')" 1400
check_eq "  the data path has the pod" "$(cni_ctl -j pod show | jq -c '[.[] | [.pod, .ips]]')" \
	"[[\"chain-0\",[\"$ip\"]]]"
check "  StopPodSandbox succeeds" cri stop-pod "$id"
check_eq "  DEL released everything" "$(held "$id") $(regs)" " 0"
cri remove-pod "$id"
tap_done

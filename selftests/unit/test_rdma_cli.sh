#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdmanetctl dev/gid/env/doctor and rdmanetd's RDMA tick, as binaries, on
# the sysfs fixture trees (RDMANET_SYSFS_ROOT): JSON shapes, iproute2-style
# errors (exit 1, one line on stderr), `env` inside a real network
# namespace, and rdmanetd --once applying default_roce_tos and exporting
# the HCA counters of the tree.
. "$RN_SRC/selftests/lib/tap.sh"
CTL=$RN_BUILD/bin/rdmanetctl
AGENT=$RN_BUILD/bin/rdmanetd
FX=$RN_SRC/selftests/fixtures/sysfs
PFX=rnrdmacli$$
TMP=$(mktemp -d /tmp/$PFX.XXXXXX)
PIN=/sys/fs/bpf/$PFX
cleanup() {
	ip netns del "$PFX" 2>/dev/null
	[ -d "$PIN" ] && "$AGENT" -q --uninstall --config "$TMP/agent.json" 2>/dev/null
	rm -rf "$TMP" "$PIN"
}
trap cleanup EXIT
command -v jq >/dev/null || tap_skip_all "jq not installed (make deps)"

# an error: exit status 1 (WANT_RC=2: a usage error), exactly one line on stderr, containing $2
expect_error() {
	local what=$1 want=$2 rc
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc = "${WANT_RC:-1}" ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -qF -- "$want" "$TMP/err"; then
		tap_ok "$what"
	else
		tap_fail "$what: rc $rc, stderr: $(cat "$TMP/err")"
	fi
}

export RDMANET_SYSFS_ROOT=$FX/cx5/sys
export RDMANET_CONFIG=$TMP/none.json
echo '{}' >"$RDMANET_CONFIG"

j=$("$CTL" dev -j)
check_eq "dev -j: four devices" "$(jq '.devices | length' <<<"$j")" 4
check_eq "dev -j: netns mode" "$(jq -r .netns_mode <<<"$j")" shared
check_eq "dev -j: only sysfs consulted on a tree" "$(jq -c .sources <<<"$j")" '["sysfs"]'
check_eq "dev -j: PF's VFs" "$(jq -c '.devices[0].pci.vfs' <<<"$j")" '["0000:3b:00.2","0000:3b:00.3"]'
check_eq "dev -j: VF's PF" "$(jq -r '.devices[3].pci.physfn + " " + (.devices[3].pci.vf_index|tostring)' <<<"$j")" "0000:3b:00.0 1"
check_eq "dev -j: zero VF GUID flagged" "$(jq '[.devices[] | select(.node_guid_zero)] | map(.name)' -c <<<"$j")" '["mlx5_3"]'
check_eq "dev -j: port facts" "$(jq -r '.devices[1].ports[0] | "\(.netdev) \(.state) \(.link_layer)"' <<<"$j")" "ens1f1np1 ACTIVE Ethernet"
check_eq "dev -j: char devices" "$(jq -r '[.devices[0].chardevs[] | select(.present) | .path] | join(" ")' <<<"$j")" \
	"/dev/infiniband/issm0 /dev/infiniband/umad0 /dev/infiniband/uverbs0"
check_eq "dev -s -j: hardware counters" "$("$CTL" dev mlx5_0 -s -j | jq '.devices[0].ports[0].hw_counters.np_cnp_sent')" 12
check "dev (table) names the zero GUID" sh -c "'$CTL' dev | grep -q 'mlx5_3: .*0000:0000:0000:0000 (zero!)'"

j=$("$CTL" gid -j)
check_eq "gid -j: every valid entry" "$(jq '.gids | length' <<<"$j")" 18
check_eq "gid -j: source" "$(jq -r .source <<<"$j")" sysfs
check_eq "gid -j: pod B's RoCE v2 entry" \
	"$(jq -c '.gids[] | select(.address == "172.16.11.22" and .type == "RoCE v2") | [.device, .index, .netdev]' <<<"$j")" \
	'["mlx5_0",7,"net1"]'
. "$FX/show_gids.sh"
for dev in mlx5_0 mlx5_1 mlx5_2 mlx5_3; do
	check_eq "gid $dev: every entry as show_gids reads the tree" \
		"$("$CTL" gid $dev -j | jq -r '.gids[] | "\(.index) \(.gid) \(if .type == "RoCE v2" then .type else "IB/RoCE v1" end) \(.netdev)"')" \
		"$(show_gids "$FX/cx5/sys" $dev 1)"
done
check_eq "gid DEV filters" "$("$CTL" gid mlx5_1 -j | jq '.gids | length')" 4
check "gid table has the header and addresses" sh -c "'$CTL' gid mlx5_0 | grep -q '^mlx5_0 .* 5 .*RoCE v2 net1 .*172.16.11.21$'"

expect_error "gid of an unknown device" 'rdmanetctl: gid: no RDMA device "mlx5_9"' "$CTL" gid mlx5_9
expect_error "dev of an unknown device" 'no RDMA device "nope"' "$CTL" dev nope
WANT_RC=2 expect_error "dev netns with a bad mode" '"private": expected shared or exclusive' "$CTL" dev netns private
WANT_RC=2 expect_error "gid with a stray option" 'gid: unexpected argument "-x"' "$CTL" gid -x
echo '{"rdma": {"selectors": {"vendors": ["15B3"]}}}' >"$TMP/bad.json"
expect_error "a bad rdma config section" 'rdma.selectors.vendors[0]: "15B3": expected 4 lowercase hex digits' \
	"$CTL" -c "$TMP/bad.json" dev
RDMANET_SYSFS_ROOT=$TMP/nowhere expect_error "a sysfs root that is no sysfs" "not a sysfs tree" "$CTL" dev

# doctor: the zero VF GUID fails, with its fix, and the exit status says so
"$CTL" --pin-dir "$PIN" doctor >"$TMP/doc" 2>"$TMP/err"
check_eq "doctor exits 1 on a failure" $? 1
check "doctor: vf-guids fails with a fix" grep -q '^fail vf-guids .*mlx5_3 .*fix: ip link set dev ens1f0np0 vf 1 node_guid' "$TMP/doc"
check "doctor: port-state passes" grep -q '^pass port-state' "$TMP/doc"
check "doctor: bpffs there, the pin dir not made yet (not claimed to be held)" \
	grep -qF "pass bpffs      bpffs at /sys/fs/bpf (pin dir $PIN not created yet: rdmanetd has not run with it)" "$TMP/doc"
"$CTL" --pin-dir "$TMP/pins/rdmanet" doctor >"$TMP/doc" 2>/dev/null
check "doctor: a pin dir that would not be on bpffs fails" \
	grep -qF "fail bpffs      no bpf filesystem at $TMP, where pin dir $TMP/pins/rdmanet would be created" "$TMP/doc"
check_eq "doctor: one line on stderr" "$(cat "$TMP/err")" "rdmanetctl: doctor: 2 of 13 checks failed"
j=$(RDMANET_SYSFS_ROOT=$FX/port_down/sys "$CTL" --pin-dir "$PIN" doctor -j 2>/dev/null)
check_eq "doctor -j: port_down tree" "$(jq -r '.checks[] | select(.name == "port-state") | .status' <<<"$j")" fail
check_eq "doctor -j: summary" "$(jq -c .summary <<<"$j")" '{"pass":9,"warn":2,"fail":2}'

# env in a real network namespace whose net1 has pod B's address
ip netns add "$PFX"
ip -n "$PFX" link add net1 type veth peer name peer1
ip -n "$PFX" addr add 172.16.11.22/24 dev net1
ip -n "$PFX" link set net1 up
ip -n "$PFX" link add eth0 type veth peer name peer0
ip -n "$PFX" addr add 10.244.1.7/24 dev eth0
out=$(ip netns exec "$PFX" env RDMANET_SYSFS_ROOT="$FX/cx5/sys" "$CTL" env)
check "env: export lines eval cleanly" bash -c "eval \"\$1\" && [ \"\$NCCL_IB_GID_INDEX\" = 7 ]" _ "$out"
check_eq "env: the pod's RoCE v2 GID index" "$(grep NCCL_IB_GID_INDEX <<<"$out")" "export NCCL_IB_GID_INDEX='7'"
check_eq "env: HCA" "$(grep NCCL_IB_HCA <<<"$out")" "export NCCL_IB_HCA='=mlx5_0:1'"
check_eq "env: socket interface" "$(grep NCCL_SOCKET_IFNAME <<<"$out")" "export NCCL_SOCKET_IFNAME='=net1'"
check_eq "env: UCX" "$(grep UCX_NET_DEVICES <<<"$out")" "export UCX_NET_DEVICES='mlx5_0:1'"
check "env: eth0 skipped with the reason" grep -q '^# eth0: no RoCE v2 GID for 10.244.1.7' <<<"$out"
j=$(ip netns exec "$PFX" env RDMANET_SYSFS_ROOT="$FX/cx5/sys" "$CTL" env -j)
check_eq "env -j" "$(jq -c '.interfaces[0] | [.ifname, .device, .port, .gid_index]' <<<"$j")" '["net1","mlx5_0",1,7]'
expect_error "env --netdev without a GID" "no RoCE v2 GID for 10.244.1.7" \
	ip netns exec "$PFX" env RDMANET_SYSFS_ROOT="$FX/cx5/sys" "$CTL" env --netdev eth0

# rdmanetd --once: RoCE QoS into configfs, HCA counters into the textfile
mkdir -p "$TMP/host" "$TMP/prom"
cp -a "$FX/cx5_healthy/." "$TMP/host/"
for d in mlx5_0 mlx5_1 mlx5_2 mlx5_3; do
	mkdir -p "$TMP/host/sys/kernel/config/rdma_cm/$d/ports/1"
	echo 0 >"$TMP/host/sys/kernel/config/rdma_cm/$d/ports/1/default_roce_tos"
done
cat >"$TMP/agent.json" <<JSON
{ "masters": [], "qos": { "roce_dscp": 34, "ecn": "ect1" },
  "textfile": { "dir": "$TMP/prom", "interval_s": 0 },
  "bpf": { "pin_dir": "$PIN" }, "rdma": { "sysfs_root": "$TMP/host/sys" } }
JSON
# the environment points discovery at the tree too (masters.c asks for /sys)
RDMANET_SYSFS_ROOT=$TMP/host/sys "$AGENT" --once --config "$TMP/agent.json" 2>"$TMP/agent.log"
check_eq "rdmanetd --once exits 0" $? 0
check_eq "default_roce_tos = dscp 34 << 2 | ECT(1)" "$(cat "$TMP/host/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos")" 137
check_eq "every RoCE port got it" \
	"$(for f in "$TMP"/host/sys/kernel/config/rdma_cm/mlx5_*/ports/1/default_roce_tos; do
		cat "$f"; echo; done | sort -u)" 137
check "the agent logged the change" grep -q 'rdma mlx5_0/1: default_roce_tos 0 -> 137 (dscp 34, ecn bits 1)' "$TMP/agent.log"
check "discovery used the model (PF netdevs, not VFs)" \
	sh -c "grep -q 'ens1f0np0' '$TMP/agent.log' && ! grep -q 'ens1f0v0' '$TMP/agent.log'"

# QoS only where the agent manages: selectors (auto-discovery) or masters
# that leave devices out leave those devices' configfs and sysfs alone
tos_of() {
	for d in mlx5_0 mlx5_1 mlx5_2 mlx5_3; do
		printf '%s=%s ' $d "$(cat "$TMP/host/sys/kernel/config/rdma_cm/$d/ports/1/default_roce_tos")"
	done
	printf 'tc=%s' "$(cat "$TMP/host/sys/class/infiniband/mlx5_0/tc/1/traffic_class")"
}
agent_with() {	# agent_with TOP_KEYS RDMA_KEYS
	for d in mlx5_0 mlx5_1 mlx5_2 mlx5_3; do
		echo 0 >"$TMP/host/sys/kernel/config/rdma_cm/$d/ports/1/default_roce_tos"
	done
	mkdir -p "$TMP/host/sys/class/infiniband/mlx5_0/tc/1"
	: >"$TMP/host/sys/class/infiniband/mlx5_0/tc/1/traffic_class"
	cat >"$TMP/scoped.json" <<JSON
{ $1 "qos": { "roce_dscp": 34, "ecn": "ect1" }, "textfile": { "dir": "$TMP/prom", "interval_s": 0 },
  "bpf": { "pin_dir": "$PIN" }, "rdma": { "sysfs_root": "$TMP/host/sys" $2 } }
JSON
	RDMANET_SYSFS_ROOT=$TMP/host/sys "$AGENT" --once --config "$TMP/scoped.json" 2>"$TMP/scoped.log"
}
agent_with "" ', "selectors": { "deviceIDs": ["1017"] }'
check_eq "selectors: the PFs get the TOS, the VFs (1018) keep theirs" "$(tos_of)" \
	"mlx5_0=137 mlx5_1=137 mlx5_2=0 mlx5_3=0 tc=tclass=137"
agent_with "" ', "selectors": { "ifNames": ["ens1f1np1"] }'
check_eq "selectors: only the named NIC, traffic_class of the other untouched" "$(tos_of)" \
	"mlx5_0=0 mlx5_1=137 mlx5_2=0 mlx5_3=0 tc="
agent_with '"masters": [ { "ifname": "ens1f1np1" } ],' ', "selectors": { "deviceIDs": ["1018"] }'
check_eq "masters: their ports only, whatever the selectors say" "$(tos_of)" \
	"mlx5_0=0 mlx5_1=137 mlx5_2=0 mlx5_3=0 tc="
check "the agent did not log a change of a port it does not manage" \
	sh -c "grep -q 'rdma mlx5_1/1: default_roce_tos 0 -> 137' '$TMP/scoped.log' && ! grep -q 'rdma mlx5_[023]/1' '$TMP/scoped.log'"

"$CTL" --pin-dir "$PIN" doctor >"$TMP/doc" 2>/dev/null
check "doctor after rdmanetd ran: bpffs holds the pin dir" grep -qF "pass bpffs      bpffs holds pin dir $PIN" "$TMP/doc"

prom=$TMP/prom/rdmanet.prom
check "textfile: HCA counters of the tree" grep -q 'rdmanet_rdma_hw_stats_total{device="mlx5_0",port="1",counter="np_cnp_sent"} 12' "$prom"
check "textfile: GID facts" grep -q 'rdmanet_rdma_gid_info{device="mlx5_0",port="1",index="5",.*address="172.16.11.21"} 1' "$prom"
check "textfile passes promtool" sh -c "promtool check metrics < '$prom'"

# discovery that cannot read a device says so and what, instead of
# reporting fewer RoCE netdevs (the device it missed may be a master)
mkdir -p "$TMP/broken"
cp -a "$FX/cx5/." "$TMP/broken/"
D=$(readlink -f "$TMP/broken/sys/class/infiniband/mlx5_1")
rm -rf "$D/ports" && : >"$D/ports"
RDMANET_SYSFS_ROOT=$TMP/broken/sys "$AGENT" --once --config "$TMP/agent.json" 2>"$TMP/broken.log"
check "rdmanetd: discovery that cannot read a device says what" grep -q \
	"discover: cannot tell which netdevs back RoCE ports: cannot read .*/mlx5_1/ports: Not a directory" "$TMP/broken.log"
check "rdmanetd: ... and attaches nothing on a partial list" sh -c "! grep -q 'master ens1f0np0' '$TMP/broken.log'"
check "dev: the unreadable device is a note" sh -c \
	"RDMANET_SYSFS_ROOT='$TMP/broken/sys' '$CTL' dev | grep -q '^note: cannot read .*/mlx5_1/ports: Not a directory'"
tap_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The SR-IOV leak sweep never takes "cannot see" for "gone": the
# agent runs where the runtime's netns directory is hidden (its own mount
# namespace with a tmpfs over /run/netns: what a container without that
# mount sees), on the cx5_sriov fixture, with a hold of VF 5 (whose netdev
# is in the pod, as the fixture has it) naming a live netns. Over several
# sweeps the hold stays byte for byte, no VF is restored or touched (the
# hold records no admin settings: a restore would go straight to removing
# it), the agent says why once, and doctor in the same view warns.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
trap 'rn_agent_stop; rn_topo_down' EXIT

command -v unshare >/dev/null || tap_skip_all "unshare (util-linux) not installed"
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
cp -a "$RN_SRC/selftests/fixtures/sysfs/cx5_sriov/." "$RN_TMP/host/"
export RDMANET_CNI_STATE_DIR=$RN_TMP/cni
mkdir -p "$RDMANET_CNI_STATE_DIR/sriov"
NS=/run/netns/$RN_NODE
read -r dev ino < <(stat -L -c '%d %i' "$NS")
H=$RDMANET_CNI_STATE_DIR/sriov/0000:3b:00.7.json
cat >"$H" <<JSON
{ "pci": "0000:3b:00.7", "pf": "ens1f0np0", "vf": 5, "network": "rail1", "container_id": "c0ffee5",
  "ifname": "net1", "netns": "$NS", "netns_id": { "dev": $dev, "ino": $ino },
  "pod_namespace": "default", "pod_name": "rdma-pod", "since": 1764000000, "complete": true,
  "rdma_moved": true,
  "original": { "netdev": "ens1f0v5", "mtu": 1500, "mac": "02:00:00:00:00:05",
                "rdma_dev": "mlx5_7", "admin": null } }
JSON
cp "$H" "$RN_TMP/hold.before"
rn_agent_config "$RN_TMP/config.json" monitor "" "\"rdma\": { \"sysfs_root\": \"$RN_TMP/host/sys\" },
  \"sriov\": [ { \"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true } ]"

# in_hidden CMD...: in the node netns, in a mount namespace whose /run/netns
# is an empty tmpfs (nsenter, unshare and sh exec in turn: the PID is CMD's)
HIDE='mount -t tmpfs rn-hidden /run/netns && exec "$@"'
in_hidden() { nsenter --net="$NS" unshare -m --propagation private sh -c "$HIDE" sh "$@"; }
check "the pod's netns is not visible in that view" \
	in_hidden sh -c "! test -e '$NS'"

nsenter --net="$NS" unshare -m --propagation private sh -c "$HIDE" sh \
	"$RN_BUILD/bin/rdmanetd" --config "$RN_TMP/config.json" >>"$RN_TMP/agent.log" 2>&1 &
RN_AGENT_PID=$!
PROM=$RN_TMP/textfile/rdmanet.prom
# three textfile exports after the first sweep that kept the hold: three
# more sweeps (each tick sweeps, then exports)
seen=() last=
for _ in $(seq 300); do
	if grep -q "sriov sweep: hold kept" "$RN_TMP/agent.log" && [ -e "$PROM" ]; then
		m=$(stat -c %.9Y "$PROM")
		[ "$m" != "$last" ] && seen+=("$m") && last=$m
		[ ${#seen[@]} -ge 4 ] && break
	fi
	kill -0 "$RN_AGENT_PID" 2>/dev/null || break
	sleep 0.1
done
check "the agent ran several sweeps" test ${#seen[@]} -ge 4
sed 's/^/# agent: /' "$RN_TMP/agent.log" | grep "sriov sweep"
check_eq "the hold kept, byte for byte" "$(cmp "$RN_TMP/hold.before" "$H" && echo same)" same
check_eq "it said why, once" \
	"$(grep -c "sriov sweep: hold kept: VF 0000:3b:00.7 of default/rdma-pod: its netns $NS is not visible here (removed and still being torn down, or not mounted here), and its netdev is not back in this netns" "$RN_TMP/agent.log")" 1
check_eq "no VF restored, no sweep error" \
	"$(grep -c -e "sriov sweep: VF" -e "sriov sweep: error" "$RN_TMP/agent.log")" 0
check "nothing counted as swept" grep -qx "rdmanet_sriov_vfs_swept_total 0" "$PROM"
check "doctor in the same view warns, naming the VF" \
	grep -q "^warn vf-holds .*VF 0000:3b:00.7 of default/rdma-pod: its netns $NS is not visible here" \
	<(in_hidden "$RN_BUILD/bin/rdmanetctl" -c "$RN_TMP/config.json" doctor 2>&1)
check "doctor where the netns is visible passes" \
	grep -q "^pass vf-holds .*1 VF held, every pod netns visible" \
	<(rn_in_node "$RN_BUILD/bin/rdmanetctl" -c "$RN_TMP/config.json" doctor 2>&1)
tap_done

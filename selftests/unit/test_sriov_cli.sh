#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdmanetctl vf and doctor on the exclusive-mode fixture (cx5_sriov), as
# binaries: the JSON shape (PFs, VFs, RDMA devices, GUIDs, which pod holds a
# VF, read from the CNI's stateDir), the table, and iproute2-style errors
# (exit 1, one line on stderr) for a bad argument and a bad "sriov" section.
. "$RN_SRC/selftests/lib/tap.sh"
CTL=$RN_BUILD/bin/rdmanetctl
TMP=$(mktemp -d /tmp/rnsriovcli.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
command -v jq >/dev/null || tap_skip_all "jq not installed (make deps)"

export RDMANET_SYSFS_ROOT=$RN_SRC/selftests/fixtures/sysfs/cx5_sriov/sys
export RDMANET_CNI_STATE_DIR=$TMP/state
mkdir -p "$TMP/state/sriov"
cat >"$TMP/node.json" <<'JSON'
{ "sriov": [ { "pf": "ens1f0np0", "numVfs": 12, "isRdma": true, "resourceName": "mellanoxroce" } ] }
JSON
cat >"$TMP/state/sriov/0000:3b:00.7.json" <<'JSON'
{ "pci": "0000:3b:00.7", "pf": "ens1f0np0", "vf": 5, "network": "rail1-sriov",
  "container_id": "abc123", "ifname": "net1", "netns": "/var/run/netns/cni-1",
  "pod_namespace": "default", "pod_name": "rdma-exclusive", "since": 1764000000,
  "complete": true, "rdma_moved": true,
  "original": { "netdev": "ens1f0v5", "mtu": 9000, "mac": "02:11:22:33:44:05",
                "rdma_dev": "mlx5_7", "admin": null } }
JSON

expect_error() {	# [WANT_RC=2] expect_error WHAT WANT CMD... (default exit status 1)
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

j=$("$CTL" -c "$TMP/node.json" vf -j)
check_eq "vf -j exits 0" $? 0
check_eq "two PFs; the first managed with 12 of 16 VFs as mellanoxroce" \
	"$(jq -c '[.pfs[] | [.ifname, .managed, .numvfs, .totalvfs, (.vfs | length), .resource_name]]' <<<"$j")" \
	'[["ens1f0np0",true,12,16,12,"mellanoxroce"],["ens1f1np1",false,0,8,0,null]]'
check_eq "VF 4: netdev, RDMA device, GUID" \
	"$(jq -c '.pfs[0].vfs[4] | [.pci, .netdev, .rdma_dev, .node_guid, .guid_zero]' <<<"$j")" \
	'["0000:3b:00.6","ens1f0v4","mlx5_6","0211:22ff:fe33:4404",false]'
check_eq "zero GUIDs on VFs 3 and 7" \
	"$(jq -c '[.pfs[0].vfs[] | select(.guid_zero) | .vf]' <<<"$j")" '[3,7]'
check_eq "VF 5 held by default/rdma-exclusive since its ADD" \
	"$(jq -c '.pfs[0].vfs[5].held_by | [.namespace, .pod, .ifname, .since, .complete]' <<<"$j")" \
	'["default","rdma-exclusive","net1","2025-11-24T16:00:00Z",true]'
check_eq "no admin settings from a fixture, and a note saying why" \
	"$(jq -c '[.admin_read, (.note | test("not this host")), .pfs[0].vfs[0].admin]' <<<"$j")" \
	'[false,true,null]'
"$CTL" -c "$TMP/node.json" vf >"$TMP/table"
check "the table names the holder" grep -q "0000:3b:00.7 -               -          -                   default/rdma-exclusive net1 since 2025-11-24T16:00:00Z" "$TMP/table"
# its pod deleted while the VF was still in the pod's dying netns
H=$TMP/state/sriov/0000:3b:00.7.json
jq '.released = true' "$H" >"$TMP/h" && cp "$H" "$TMP/h.keep" && mv "$TMP/h" "$H"
check_eq "vf -j: a released hold says so" \
	"$("$CTL" -c "$TMP/node.json" vf -j | jq -c '.pfs[0].vfs[5].held_by | [.pod, .released]')" \
	'["rdma-exclusive",true]'
check "the table says it is on its way back" \
	grep -q "0000:3b:00.7 .* default/rdma-exclusive net1 since 2025-11-24T16:00:00Z (deleted, VF not back yet)" \
	<("$CTL" -c "$TMP/node.json" vf)
mv "$TMP/h.keep" "$H"
"$CTL" -c "$TMP/node.json" vf --state-dir "$TMP/none" -j >"$TMP/j2"
check_eq "--state-dir elsewhere: nothing held" \
	"$(jq '[.pfs[0].vfs[] | select(.held_by != null)] | length' "$TMP/j2")" 0
WANT_RC=2 expect_error "vf with a bad argument" 'vf: unexpected argument "bogus"' "$CTL" -c "$TMP/node.json" vf bogus
echo '{ "sriov": [ { "pf": "ens1f0np0" } ] }' >"$TMP/bad.json"
expect_error "a config whose sriov entry lacks numVfs" "sriov[0].numVfs: required" "$CTL" -c "$TMP/bad.json" vf
"$CTL" -c "$TMP/node.json" doctor >"$TMP/doctor" 2>&1
check "doctor: the zero GUIDs are a warning rdmanetd fixes" \
	grep -q "^warn vf-guids .*mlx5_5: rdmanetd fixes it at start-up" "$TMP/doctor"
echo '{ "sriov": [ { "pf": "ens1f0np0", "numVfs": 12 } ] }' >"$TMP/noRdma.json"
# the hold's netns (/var/run/netns/cni-1) is not here and VF 5's netdev is
# not back: the sweep keeps the hold, and doctor says why
check "doctor: a hold whose netns this process cannot see is a warning, with why" \
	grep -q "^warn vf-holds .*VF 0000:3b:00.7 of default/rdma-exclusive: its netns /var/run/netns/cni-1 is not visible here" "$TMP/doctor"
ln -s /proc/self/ns/net "$TMP/netns-live"
jq --arg ns "$TMP/netns-live" '.netns = $ns' "$TMP/state/sriov/0000:3b:00.7.json" >"$TMP/h" &&
	cp "$TMP/state/sriov/0000:3b:00.7.json" "$TMP/h.orig" && mv "$TMP/h" "$TMP/state/sriov/0000:3b:00.7.json"
"$CTL" -c "$TMP/node.json" doctor >"$TMP/doctor" 2>&1
check "doctor: ... none where the pod's netns is visible" \
	grep -q "^pass vf-holds .*1 VF held, every pod netns visible" "$TMP/doctor"
mv "$TMP/h.orig" "$TMP/state/sriov/0000:3b:00.7.json"
"$CTL" -c "$TMP/noRdma.json" doctor >"$TMP/doctor" 2>&1
check "doctor: without isRdma they fail, and it says why" \
	grep -q "^fail vf-guids .*rdmanetd will not fix it: the \"sriov\" entry of PF ens1f0np0 has \"isRdma\": false" "$TMP/doctor"
tap_done

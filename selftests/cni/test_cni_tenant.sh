#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What a tenant may choose. A NetworkAttachmentDefinition is written by
# namespace tenants while the plugin runs as root on the host, so:
#  - host paths (the node config, the state dir) come only from the node:
#    RDMANET_CONFIG in the runtime's environment and the node config's
#    cni.state_dir; a network config naming others is refused (7) and
#    nothing is read, created or written there; the error never quotes a
#    file's content (it reaches pod events);
#  - a network's DSCP must be one of the node's cni.allowed_dscp (the CNP
#    class never is); others are refused (7) naming the allowed set;
#  - the attachment records are root-only, also when found wider.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
cni_topo_up || tap_skip_all "cannot create network namespaces"
cni_node_config "$CNI_CONFIG" monitor
CHECKS='"gatewayCheck": false, "ipConflictCheck": false'
cni_netconf "$CNI_TMP/net.json" 1.1.0 tenant "{\"master\": \"ra0\", \"ippools\": {\"ipv4\": [\"railA-v4\"]}, $CHECKS}"
nothing_made() { # POD CID: no link, no record, no allocation
	echo "$(cni_pod_leftovers "$1")|$(find "$CNI_STATE" -name "$2:*" | wc -l)|$(cni_held "$2" net1)"
}

# --- a host file as the config: refused, not read, not echoed -------------------------
SECRET="root:TOPSECRET-$$:19000:0:99999:7:::"
echo "$SECRET" >"$CNI_TMP/shadow"
jq --arg f "$CNI_TMP/shadow" '. + {configFile: $f}' "$CNI_TMP/net.json" >"$CNI_TMP/cf.json"
ns=$(cni_pod_up a)
cni_run ADD "$CNI_TMP/cf.json" c-a net1 "$ns"
cni_check_error 7 "configFile naming another host file: ADD refused (7)"
check "  the error says host paths are the node's" grep -q "may not choose host paths" "$CNI_OUT"
check "  and does not quote the file" bash -c "! grep -q TOPSECRET '$CNI_OUT' '$CNI_ERR'"
check_eq "  nothing made" "$(nothing_made a c-a)" "|0|"
for cmd in GC STATUS; do
	jq '. + {"cni.dev/valid-attachments": []}' \
		"$CNI_TMP/cf.json" >"$CNI_TMP/cf2.json"
	cni_run "$cmd" "$CNI_TMP/cf2.json" c-a net1 "$ns"
	cni_check_error 7 "  $cmd refused too (7)"
done
jq --arg f "$CNI_CONFIG" '. + {configFile: $f}' "$CNI_TMP/net.json" >"$CNI_TMP/same.json"
cni_run ADD "$CNI_TMP/same.json" c-a net1 "$ns"
cni_check_ok "configFile naming the node's own config: accepted"
cni_run DEL "$CNI_TMP/same.json" c-a net1 "$ns"
cni_check_ok "  DEL"

# --- a state dir of the tenant's choosing: refused, never created ----------------------
jq --arg d "$CNI_TMP/elsewhere/state" '. + {stateDir: $d}' "$CNI_TMP/net.json" >"$CNI_TMP/sd.json"
cni_run ADD "$CNI_TMP/sd.json" c-a net1 "$ns"
cni_check_error 7 "stateDir naming another directory: ADD refused (7)"
check "  the directory was not created" test ! -e "$CNI_TMP/elsewhere"
check_eq "  nothing made" "$(nothing_made a c-a)" "|0|"
cni_run DEL "$CNI_TMP/sd.json" c-a net1 "$ns"
cni_check_ok "  DEL ignores it (cleans up with the node's paths)"
check "  and does not create it either" test ! -e "$CNI_TMP/elsewhere"

# --- the node config: moved only by the runtime's environment; its content never echoed -
cp "$CNI_CONFIG" "$CNI_TMP/good.json"
printf '{ "node": "%s", "masters": [ ] \n' "$SECRET" >"$CNI_TMP/broken.json"
CNI_RUN_CONFIG=$CNI_TMP/broken.json cni_run ADD "$CNI_TMP/net.json" c-b net1 "$ns"
cni_check_error 7 "node config not valid JSON: ADD fails (7)"
check "  the answer names the file" grep -q "broken.json" "$CNI_OUT"
check "  but does not quote it" bash -c "! grep -q TOPSECRET '$CNI_OUT'"
check_eq "  nothing made" "$(nothing_made a c-b)" "|0|"
jq --arg s "$SECRET" '.qos = {roce_dscp: $s}' "$CNI_TMP/good.json" >"$CNI_TMP/badval.json"
CNI_RUN_CONFIG=$CNI_TMP/badval.json cni_run ADD "$CNI_TMP/net.json" c-b net1 "$ns"
cni_check_error 7 "node config with a bad value: ADD fails (7), value not quoted"
check "  (the value stays out of the answer)" bash -c "! grep -q TOPSECRET '$CNI_OUT'"
CNI_RUN_CONFIG=relative.json cni_run ADD "$CNI_TMP/net.json" c-b net1 "$ns"
cni_check_error 4 "RDMANET_CONFIG not absolute: 4"

# --- DSCP: only the node's allowed classes --------------------------------------------
for d in 48 46 0; do
	jq --argjson d "$d" '. + {dscp: $d}' "$CNI_TMP/net.json" >"$CNI_TMP/dscp.json"
	cni_run ADD "$CNI_TMP/dscp.json" c-d net1 "$ns"
	cni_check_error 7 "dscp $d (not in cni.allowed_dscp [26, 34]): refused (7)"
	check "  the error names the allowed set" grep -q "allowed: 26, 34" "$CNI_OUT"
	check_eq "  nothing made" "$(nothing_made a c-d)" "|0|"
done
jq '. + {dscp: 34}' "$CNI_TMP/net.json" >"$CNI_TMP/dscp.json"
cni_run ADD "$CNI_TMP/dscp.json" c-d net1 "$ns"
cni_check_ok "dscp 34 (allowed): ADD succeeds"
cni_run DEL "$CNI_TMP/dscp.json" c-d net1 "$ns"
jq '.cni = {state_dir: .cni.state_dir}' "$CNI_TMP/good.json" >"$CNI_TMP/nolist.json"
CNI_RUN_CONFIG=$CNI_TMP/nolist.json cni_run ADD "$CNI_TMP/dscp.json" c-d net1 "$ns"
cni_check_error 7 "no cni.allowed_dscp: only qos.roce_dscp (26) is allowed, 34 refused"
check "  the error names it" grep -q "allowed: 26;" "$CNI_OUT"
jq '.cni.allowed_dscp = [26, 48]' "$CNI_TMP/good.json" >"$CNI_TMP/cnp.json"
check "a node config allowing the CNP class (48) is refused" \
	bash -c "! '$RN_BUILD/bin/rdmanetctl' -c '$CNI_TMP/cnp.json' pool list 2>'$CNI_TMP/cnp.err'"
check "  naming it" grep -q "allowed_dscp\[1\]: 48 is the CNP class" "$CNI_TMP/cnp.err"

# --- records root-only ---------------------------------------------------------------
chmod 0755 "$CNI_STATE"
mkdir -p "$CNI_STATE/tenant"
chmod 0755 "$CNI_STATE/tenant"
cni_run ADD "$CNI_TMP/net.json" c-r net1 "$ns"
cni_check_ok "ADD"
check_eq "state dir, network dir, record: 700 700 600 (found 755)" \
	"$(stat -c '%a' "$CNI_STATE" "$CNI_STATE/tenant" "$CNI_STATE/tenant/c-r:net1" | tr '\n' ' ')" \
	"700 700 600 "
cni_run DEL "$CNI_TMP/net.json" c-r net1 "$ns"
tap_done

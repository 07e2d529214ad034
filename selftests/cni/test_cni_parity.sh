#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Peer parity: the same attachment (a bridge-mode macvlan on ra0, one IPv4
# and one IPv6 address with a gateway) through the reference plugins
# (containernetworking-plugins' macvlan + host-local, as Debian ships them)
# and through rdmanet, both at cniVersion 1.0.0 (the reference's newest):
# the results have the same shape, the kernel shows the same kind of link,
# and both refuse an ifname that exists with an error object.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT
REF=/usr/lib/cni

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
[ -x "$REF/macvlan" ] && [ -x "$REF/host-local" ] ||
	tap_skip_all "reference plugins missing (apt-get install containernetworking-plugins)"
cni_topo_up || tap_skip_all "cannot create network namespaces"
cni_node_config "$CNI_CONFIG"

jq -n --arg dir "$CNI_TMP/host-local" '{cniVersion: "1.0.0", name: "ref", type: "macvlan",
	master: "ra0", mode: "bridge",
	ipam: {type: "host-local", dataDir: $dir,
	       ranges: [[{subnet: "10.81.0.0/24", rangeStart: "10.81.0.100", rangeEnd: "10.81.0.120",
			  gateway: "10.81.0.254"}],
			[{subnet: "fd81::/64", rangeStart: "fd81::100", rangeEnd: "fd81::120",
			  gateway: "fd81::254"}]]}}' >"$CNI_TMP/ref.json"
cni_netconf "$CNI_TMP/rn.json" 1.0.0 rn \
	'{"master": "ra0", "ippools": {"ipv4": ["railA-v4"], "ipv6": ["railA-v6"]}}'

# the same invocation as cni_run, for another plugin binary
ref_run() {
	cni_in node env -i CNI_COMMAND="$1" CNI_CONTAINERID="$3" CNI_IFNAME="$4" CNI_NETNS="$5" \
		CNI_PATH="$REF" CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=t;K8S_POD_NAME=$3" "$REF/macvlan" \
		<"$2" >"$CNI_OUT" 2>"$CNI_ERR"
	CNI_RC=$?
}

nsr=$(cni_pod_up ref)
nsn=$(cni_pod_up rn)
ref_run ADD "$CNI_TMP/ref.json" c-ref net1 "$nsr"
cni_check_ok "reference macvlan + host-local ADD"
cp "$CNI_OUT" "$CNI_TMP/ref.result"
cni_run ADD "$CNI_TMP/rn.json" c-rn net1 "$nsn"
cni_check_ok "rdmanet ADD"
cp "$CNI_OUT" "$CNI_TMP/rn.result"

# the shape of a result: keys and value types, with the pod-specific values
# replaced by what they must equal
shape() {
	jq -c --arg ns "$2" '{
		top: keys,
		interfaces: [.interfaces[] | {keys: keys, name, sandbox_is_netns: (.sandbox == $ns),
					      mac_ok: (.mac | test("^([0-9a-f]{2}:){5}[0-9a-f]{2}$"))}],
		ips: [.ips[] | {keys: keys, interface,
				family: (if (.address | contains(":")) then 6 else 4 end),
				prefix: (.address | split("/")[1]),
				gateway_type: (.gateway | type)}]
	}' "$1"
}
tap_diag "reference: $(jq -c . "$CNI_TMP/ref.result")"
tap_diag "rdmanet:   $(jq -c . "$CNI_TMP/rn.result")"
check_eq "same result shape (interfaces, sandbox, MAC, ips[].interface, prefixes, gateways)" \
	"$(shape "$CNI_TMP/rn.result" "$nsn")" "$(shape "$CNI_TMP/ref.result" "$nsr")"
check_eq "the shape is the expected one" "$(shape "$CNI_TMP/rn.result" "$nsn" | jq -c '.interfaces')" \
	'[{"keys":["mac","name","sandbox"],"name":"net1","sandbox_is_netns":true,"mac_ok":true}]'

kernel() {
	ip -n "$CNI_PFX-$1" -d -j addr show net1 | jq -c '.[0] | {kind: .linkinfo.info_kind,
		mode: .linkinfo.info_data.mode, up: (.flags | index("UP") != null),
		operstate, mtu,
		prefixes: [.addr_info[] | select(.scope == "global") | .prefixlen]}'
}
check_eq "the kernel shows the same kind of link and addressing" "$(kernel rn)" "$(kernel ref)"
for who in ref rn; do
	mac=$(jq -r '.interfaces[0].mac' "$CNI_TMP/$who.result")
	check_eq "$who: result MAC is the link's" \
		"$(ip -n "$CNI_PFX-$who" -j link show net1 | jq -r '.[0].address')" "$mac"
done

cni_with_prev "$CNI_TMP/ref.json" "$CNI_TMP/ref.result" "$CNI_TMP/ref.prev"
cni_with_prev "$CNI_TMP/rn.json" "$CNI_TMP/rn.result" "$CNI_TMP/rn.prev"
ref_run CHECK "$CNI_TMP/ref.prev" c-ref net1 "$nsr"
cni_check_ok "reference CHECK"
cni_run CHECK "$CNI_TMP/rn.prev" c-rn net1 "$nsn"
cni_check_ok "rdmanet CHECK"

ref_run ADD "$CNI_TMP/ref.json" c-ref2 eth0 "$nsr"
check "reference refuses an existing ifname with an error object" \
	jq -e '.code and .msg' "$CNI_OUT"
ref_code=$(cni_code)
cni_run ADD "$CNI_TMP/rn.json" c-rn2 eth0 "$nsn"
cni_check_error 102 "rdmanet refuses it too, with an error object (code 102; reference: $ref_code)"

ref_run DEL "$CNI_TMP/ref.prev" c-ref net1 "$nsr"
cni_check_ok "reference DEL"
cni_run DEL "$CNI_TMP/rn.prev" c-rn net1 "$nsn"
cni_check_ok "rdmanet DEL"
check_eq "both pods back to eth0 alone" \
	"$(ip -n "$CNI_PFX-ref" -o link | wc -l) $(ip -n "$CNI_PFX-rn" -o link | wc -l)" "2 2"
tap_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The plugin against the CNI spec, driven as a runtime drives it (clean
# environment with CNI_*, config on stdin, run in the node's netns): every
# verb in each supported version, the result's shape against the kernel's
# view, error objects and codes, repeated DEL, DEL without a netns, ADD of an
# existing ifname, chained prevResult passed through with unknown fields,
# STATUS answers, GC with both names of the valid-attachments list.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
cni_topo_up || tap_skip_all "cannot create network namespaces"
# one pool that holds a single address, for STATUS "exhausted"
cni_node_config "$CNI_CONFIG" monitor \
	'{ "name": "tiny", "subnet": "10.81.1.0/24", "ips": ["10.81.1.5"], "masters": ["ra0"] }'
# these tests are about the protocol: the probes wait for nothing
CHECKS='"gatewayCheck": false, "ipConflictCheck": false'

# --- VERSION ------------------------------------------------------------------------
for v in 0.4.0 1.0.0 1.1.0; do
	echo "{\"cniVersion\": \"$v\"}" >"$CNI_TMP/v.json"
	cni_run VERSION "$CNI_TMP/v.json" "" "" ""
	check_eq "VERSION answers in the asked version $v" "$(jq -r .cniVersion "$CNI_OUT")" "$v"
done
check_eq "VERSION lists 0.4.0 1.0.0 1.1.0" "$(jq -c .supportedVersions "$CNI_OUT")" \
	'["0.4.0","1.0.0","1.1.0"]'
: >"$CNI_TMP/empty"
cni_run VERSION "$CNI_TMP/empty" "" "" ""
check "VERSION with nothing on stdin answers 1.1.0" \
	test "$CNI_RC" = 0 -a "$(jq -r .cniVersion "$CNI_OUT")" = 1.1.0

# --- ADD / CHECK / DEL in each version ------------------------------------------
for v in 0.4.0 1.0.0 1.1.0; do
	tag=v${v//./}
	ns=$(cni_pod_up "$tag")
	cni_netconf "$CNI_TMP/$tag.json" "$v" "rail-$tag" \
		"{\"master\": \"ra0\", \"ippools\": {\"ipv4\": [\"railA-v4\"], \"ipv6\": [\"railA-v6\"]},
		  \"unknownByRdmanet\": {\"kept\": true}, $CHECKS}"
	cni_run ADD "$CNI_TMP/$tag.json" "c-$tag" net1 "$ns"
	cni_check_ok "$v ADD succeeds (unknown config fields are ignored)"
	cp "$CNI_OUT" "$CNI_TMP/$tag.result"
	r=$CNI_TMP/$tag.result
	mac=$(ip -n "$CNI_PFX-$tag" -j link show net1 | jq -r '.[0].address')
	check_eq "$v result: cniVersion" "$(jq -r .cniVersion "$r")" "$v"
	check_eq "$v result: one interface net1 in the sandbox with its MAC" \
		"$(jq -c '[.interfaces[] | [.name, .sandbox, .mac]]' "$r")" "[[\"net1\",\"$ns\",\"$mac\"]]"
	check_eq "$v result: two ips, both on interface 0" "$(jq -c '[.ips[].interface]' "$r")" "[0,0]"
	a4=$(jq -r '.ips[0].address' "$r"); a6=$(jq -r '.ips[1].address' "$r")
	check "$v result: IPv4 address from railA-v4 with the subnet's length" \
		grep -qE '^10\.81\.0\.(1[0-9]|2[0-9]|3[0-9])/24$' <<<"$a4"
	check "$v result: IPv6 address from railA-v6" grep -qE '^fd81::[0-9a-f]+/64$' <<<"$a6"
	check_eq "$v result: gateways" "$(jq -c '[.ips[].gateway]' "$r")" '["10.81.0.254","fd81::254"]'
	check_eq "$v kernel: net1 carries exactly the result's addresses" \
		"$(ip -n "$CNI_PFX-$tag" -j addr show net1 | jq -c '[.[0].addr_info[] | select(.scope == "global") | "\(.local)/\(.prefixlen)"]')" \
		"[\"$a4\",\"$a6\"]"
	case $v in
	0.4.0)
		check_eq "0.4.0 result: ips carry version" "$(jq -c '[.ips[].version]' "$r")" '["4","6"]'
		check_eq "0.4.0 result: no policy-table routes (the version cannot say the table)" \
			"$(jq '.routes // [] | length' "$r")" 0 ;;
	1.0.0)
		check_eq "1.0.0 result: no version in ips, no mtu in interfaces" \
			"$(jq '[.ips[].version, .interfaces[].mtu] | map(select(. != null)) | length' "$r")" 0 ;;
	1.1.0)
		check_eq "1.1.0 result: interface mtu" "$(jq '.interfaces[0].mtu' "$r")" 1500
		check_eq "1.1.0 result: routes in table 100 (subnet, default via gateway, both families)" \
			"$(jq -c '[.routes[] | [.dst, .gw, .table]]' "$r")" \
			'[["10.81.0.0/24",null,100],["0.0.0.0/0","10.81.0.254",100],["fd81::/64",null,100],["::/0","fd81::254",100]]' ;;
	esac
	check_eq "$v kernel: rule from the IPv4 address to table 100" \
		"$(ip -n "$CNI_PFX-$tag" -j -4 rule show | jq -c --arg a "${a4%/*}" '[.[] | select(.src == $a) | .table]')" '["100"]'
	check_eq "$v kernel: the pod's main default route is still eth0's" \
		"$(ip -n "$CNI_PFX-$tag" -j route show default | jq -c '[.[] | .dev]')" '["eth0"]'
	check_eq "$v IPAM holds the two addresses for c-$tag/net1" "$(cni_held "c-$tag" net1)" \
		"$(printf '%s\n' "${a4%/*}" "${a6%/*}" | sort | paste -sd,)"
	cni_with_prev "$CNI_TMP/$tag.json" "$r" "$CNI_TMP/$tag.prev.json"
	cni_run CHECK "$CNI_TMP/$tag.prev.json" "c-$tag" net1 "$ns"
	check "$v CHECK passes right after ADD, prints nothing" test "$CNI_RC" = 0 -a ! -s "$CNI_OUT"
	cni_run DEL "$CNI_TMP/$tag.prev.json" "c-$tag" net1 "$ns"
	check "$v DEL succeeds, prints nothing" test "$CNI_RC" = 0 -a ! -s "$CNI_OUT"
	check_eq "$v DEL: nothing left in the pod" "$(cni_pod_leftovers "$tag")" ""
	check_eq "$v DEL: addresses released" "$(cni_held "c-$tag" net1)" ""
	check "$v DEL: record gone" test ! -e "$CNI_STATE/rail-$tag/c-$tag:net1"
	cni_run DEL "$CNI_TMP/$tag.prev.json" "c-$tag" net1 "$ns"
	cni_check_ok "$v DEL again succeeds (idempotent)"
	cni_run CHECK "$CNI_TMP/$tag.prev.json" "c-$tag" net1 "$ns"
	cni_check_error 107 "$v CHECK after DEL fails with 107"
done

# --- a chained ADD passes prevResult through, unknown fields included -------------------
ns=$(cni_pod_up chain)
cni_netconf "$CNI_TMP/chain.json" 1.1.0 chain \
	"{\"master\": \"ra0\", \"ippools\": {\"ipv4\": [\"railA-v4\"]}, $CHECKS,
	  \"prevResult\": {\"cniVersion\": \"1.1.0\", \"vendorField\": {\"x\": 1},
	    \"interfaces\": [{\"name\": \"eth0\", \"sandbox\": \"$ns\"}],
	    \"ips\": [{\"address\": \"192.168.200.2/24\", \"interface\": 0}],
	    \"dns\": {\"nameservers\": [\"192.168.200.53\"]}}}"
cni_run ADD "$CNI_TMP/chain.json" c-chain net1 "$ns"
cni_check_ok "chained ADD succeeds"
check_eq "chained ADD keeps prevResult's unknown field and dns" \
	"$(jq -c '[.vendorField, .dns]' "$CNI_OUT")" '[{"x":1},{"nameservers":["192.168.200.53"]}]'
check_eq "chained ADD appends net1 after eth0; its IP points at index 1" \
	"$(jq -c '[[.interfaces[].name], [.ips[].interface]]' "$CNI_OUT")" '[["eth0","net1"],[0,1]]'
cni_run DEL "$CNI_TMP/chain.json" c-chain net1 "$ns"

# --- ADD of an ifname that exists --------------------------------------------------
cni_netconf "$CNI_TMP/plain.json" 1.1.0 plain \
	"{\"master\": \"ra0\", \"ippools\": {\"ipv4\": [\"railA-v4\"]}, $CHECKS}"
cni_run ADD "$CNI_TMP/plain.json" c-dup eth0 "$ns"
cni_check_error 102 "ADD of an existing ifname fails with 102"
check_eq "  eth0 untouched" "$(ip -n "$CNI_PFX-chain" -j -4 addr show eth0 | jq -c '[.[0].addr_info[] | .local]')" \
	'["192.168.200.2"]'
check_eq "  nothing allocated for it" "$(cni_held c-dup eth0)" ""
check "  no record for it" test ! -e "$CNI_STATE/plain/c-dup:eth0"

# --- DEL without a netns (the pod is gone) -------------------------------------------
ns=$(cni_pod_up gone)
cni_run ADD "$CNI_TMP/plain.json" c-gone net1 "$ns"
held=$(cni_held c-gone net1)
ip netns del "$CNI_PFX-gone"
cni_run DEL "$CNI_TMP/plain.json" c-gone net1 ""
cni_check_ok "DEL without CNI_NETNS (no prevResult) succeeds"
check "  it released what the attachment held ($held)" test -n "$held" -a -z "$(cni_held c-gone net1)"
check "  and forgot the attachment" test ! -e "$CNI_STATE/plain/c-gone:net1"
cni_run DEL "$CNI_TMP/plain.json" c-gone net1 /run/netns/"$CNI_PFX-gone"
cni_check_ok "DEL naming a netns that no longer exists succeeds"

# --- errors: the spec's error object with the right code ------------------------------
ns=$(cni_pod_up err)
e() { # e WHAT CODE CMD CONF CID IFNAME NETNS
	cni_run "$3" "$4" "$5" "$6" "$7"
	cni_check_error "$2" "$1: code $2"
}
# run by hand (CNI_COMMAND empty or unset) the plugin says what it is, as the
# reference plugins' skel does: on stderr, exit 0, nothing on stdout, nothing
# done (selftests/unit/test_version.sh checks the text)
cni_run "" "$CNI_TMP/plain.json" c1 net1 "$ns"
check_eq "no CNI_COMMAND: exit 0, nothing on stdout, the version on stderr" \
	"$CNI_RC:$(wc -c <"$CNI_OUT"):$(grep -c '^CNI rdmanet plugin ' "$CNI_ERR")" "0:0:1"
check_eq "  and nothing attached" "$(cni_held c1 net1)" ""
e "unknown CNI_COMMAND" 4 FROB "$CNI_TMP/plain.json" c1 net1 "$ns"
e "ADD without CNI_CONTAINERID" 4 ADD "$CNI_TMP/plain.json" "" net1 "$ns"
check "  the message names CNI_CONTAINERID" grep -q CNI_CONTAINERID "$CNI_OUT"
e "ADD without CNI_NETNS" 4 ADD "$CNI_TMP/plain.json" c1 net1 ""
e "container id starting with '-'" 4 ADD "$CNI_TMP/plain.json" -c1 net1 "$ns"
e "ifname with '/'" 4 ADD "$CNI_TMP/plain.json" c1 a/b "$ns"
e "ifname of 16 characters" 4 ADD "$CNI_TMP/plain.json" c1 abcdefghijklmnop "$ns"
e "ifname '..'" 4 ADD "$CNI_TMP/plain.json" c1 .. "$ns"
e "relative CNI_NETNS" 4 ADD "$CNI_TMP/plain.json" c1 net1 run/netns/x
e "CNI_NETNS that is not a netns" 4 ADD "$CNI_TMP/plain.json" c1 net1 /etc/hostname
e "CNI_NETNS that does not exist" 3 ADD "$CNI_TMP/plain.json" c1 net1 /run/netns/"$CNI_PFX-nope"
echo 'not json' >"$CNI_TMP/bad.json"
e "stdin not JSON" 6 ADD "$CNI_TMP/bad.json" c1 net1 "$ns"
echo '[1]' >"$CNI_TMP/bad.json"
e "stdin a JSON array" 6 ADD "$CNI_TMP/bad.json" c1 net1 "$ns"
jq '.cniVersion = "0.3.1"' "$CNI_TMP/plain.json" >"$CNI_TMP/bad.json"
e "cniVersion 0.3.1" 1 ADD "$CNI_TMP/bad.json" c1 net1 "$ns"
check "  the error object speaks the config's version" \
	test "$(jq -r .cniVersion "$CNI_OUT")" = 0.3.1
jq 'del(.cniVersion)' "$CNI_TMP/plain.json" >"$CNI_TMP/bad.json"
e "no cniVersion" 7 ADD "$CNI_TMP/bad.json" c1 net1 "$ns"
jq '.mode = "bridge"' "$CNI_TMP/plain.json" >"$CNI_TMP/bad.json"
e "mode bridge" 7 ADD "$CNI_TMP/bad.json" c1 net1 "$ns"
check "  the message names the field" grep -q '"config.mode: expected one of macvlan|ipvlan|sriov"' "$CNI_OUT"
jq '.ippools = {"ipv4": "railA-v4"}' "$CNI_TMP/plain.json" >"$CNI_TMP/bad.json"
e "ippools.ipv4 not a list" 7 ADD "$CNI_TMP/bad.json" c1 net1 "$ns"
jq '.routes = [{"dst": "10.0.0.1/8"}]' "$CNI_TMP/plain.json" >"$CNI_TMP/bad.json"
e "route with host bits" 7 ADD "$CNI_TMP/bad.json" c1 net1 "$ns"
jq '.ipConflictCheck = {"timeoutMS": 5}' "$CNI_TMP/plain.json" >"$CNI_TMP/bad.json"
e "misspelt key inside ipConflictCheck" 7 ADD "$CNI_TMP/bad.json" c1 net1 "$ns"
jq '.ippools = {"ipv4": ["no-such-pool"]}' "$CNI_TMP/plain.json" >"$CNI_TMP/bad.json"
e "unknown pool" 7 ADD "$CNI_TMP/bad.json" c1 net1 "$ns"
check_eq "  the failed ADDs left nothing in the pod" "$(cni_pod_leftovers err)" ""
check_eq "  and no record" "$(find "$CNI_STATE" -name 'c1:*' | wc -l)" 0
jq '.master = "nope0"' "$CNI_TMP/plain.json" >"$CNI_TMP/bad.json"
e "master that does not exist" 101 ADD "$CNI_TMP/bad.json" c1 net1 "$ns"
e "CHECK without prevResult" 7 CHECK "$CNI_TMP/plain.json" c1 net1 "$ns"
cni_in node env -i CNI_COMMAND=GC "$CNI_BIN" <"$CNI_TMP/plain.json" >"$CNI_OUT" 2>/dev/null
CNI_RC=$?
cni_check_error 4 "GC without CNI_PATH: code 4"
out=$(cni_in node env -i CNI_COMMAND=ADD CNI_CONTAINERID=c1 CNI_IFNAME=net1 CNI_NETNS="$ns" \
	"$CNI_BIN" <"$CNI_TMP/bad.json" 2>/dev/null)
check "stdout holds exactly one JSON document" test "$(jq -s length <<<"$out")" = 1

# --- STATUS ------------------------------------------------------------------------
cni_run STATUS "$CNI_TMP/plain.json" "" "" ""
check "STATUS: ready (0), nothing on stdout" test "$CNI_RC" = 0 -a ! -s "$CNI_OUT"
check "STATUS: says on stderr that the data path is absent (degraded)" grep -q degraded "$CNI_ERR"
jq '.master = "nope0"' "$CNI_TMP/plain.json" >"$CNI_TMP/bad.json"
cni_run STATUS "$CNI_TMP/bad.json" "" "" ""
cni_check_error 51 "STATUS with the master missing: 51"
ip -n "$CNI_NODE" link set rb0 down
cni_netconf "$CNI_TMP/b.json" 1.1.0 b "{\"master\": \"rb0\", \"ippools\": {\"ipv4\": [\"railB-v4\"]}}"
cni_run STATUS "$CNI_TMP/b.json" "" "" ""
cni_check_error 51 "STATUS with the master down: 51"
ip -n "$CNI_NODE" link set rb0 up
cni_netconf "$CNI_TMP/tiny.json" 1.1.0 tiny "{\"ippools\": {\"ipv4\": [\"tiny\"]}, $CHECKS}"
cni_run ADD "$CNI_TMP/tiny.json" c-tiny net1 "$ns"
cni_check_ok "ADD with the master chosen from the pool's masters"
check_eq "  it hangs off ra0" \
	"$(ip -n "$CNI_PFX-err" -j -d link show net1 | jq -r '.[0].link_index')" \
	"$(ip -n "$CNI_NODE" -j link show ra0 | jq -r '.[0].ifindex')"
cni_run STATUS "$CNI_TMP/tiny.json" "" "" ""
cni_check_error 50 "STATUS with every pool exhausted: 50"
ns2=$(cni_pod_up err2)
cni_run ADD "$CNI_TMP/tiny.json" c-tiny2 net1 "$ns2"
cni_check_error 105 "ADD from an exhausted pool: 105"
check_eq "  nothing left in the pod" "$(cni_pod_leftovers err2)" ""
cni_run DEL "$CNI_TMP/tiny.json" c-tiny net1 "$ns"

# --- the example NetworkAttachmentDefinitions in deploy/ parse --------------------------
for f in "$RN_SRC"/deploy/examples/nad-*.yaml; do
	rm -rf "$CNI_TMP/nad"
	mkdir -p "$CNI_TMP/nad"
	awk -v dir="$CNI_TMP/nad" '/^  config: \|/ { on = 1; n++; next }
		on && /^    / { print > (dir "/" n ".json"); next } { on = 0 }' "$f"
	for c in "$CNI_TMP"/nad/*.json; do
		# what a runtime hands the plugin: the plugin object plus cniVersion
		# and name; GC parses all of it and touches nothing here
		jq --arg cf "$CNI_CONFIG" --arg sd "$CNI_STATE" \
			'.plugins[0] + {cniVersion, name, configFile: $cf, stateDir: $sd,
					"cni.dev/valid-attachments": []}' "$c" >"$CNI_TMP/nadconf.json"
		cni_run GC "$CNI_TMP/nadconf.json" "" "" ""
		cni_check_ok "deploy/examples/$(basename "$f") config $(basename "$c" .json) ($(jq -r .name "$c")) is accepted"
	done
done

# --- GC: both names of the list; only this network's attachments -------------------------
for i in 1 2 3; do
	nsg[$i]=$(cni_pod_up "gc$i")
	cni_run ADD "$CNI_TMP/plain.json" "c-gc$i" net1 "${nsg[$i]}"
done
cni_run ADD "$CNI_TMP/b.json" c-gc1 net2 "${nsg[1]}"	# another network, same container
jq '. + {"cni.dev/valid-attachments": [{"containerID": "c-gc1", "ifname": "net1"},
				       {"containerID": "c-gc2", "ifname": "net1"}]}' \
	"$CNI_TMP/plain.json" >"$CNI_TMP/gc.json"
cni_run GC "$CNI_TMP/gc.json" "" "" ""
cni_check_ok "GC (cni.dev/valid-attachments) succeeds"
check_eq "  c-gc3 collected: link, rules, routes gone" "$(cni_pod_leftovers gc3)" ""
check_eq "  c-gc3's addresses released" "$(cni_held c-gc3 net1)" ""
check "  c-gc1 and c-gc2 kept" test -n "$(cni_held c-gc1 net1)" -a -n "$(cni_held c-gc2 net1)"
check "  the other network's attachment of c-gc1 kept" test -n "$(cni_held c-gc1 net2)"
jq '. + {"cni.dev/attachments": [{"containerID": "c-gc1", "ifname": "net1"}]}' \
	"$CNI_TMP/plain.json" >"$CNI_TMP/gc.json"
cni_run GC "$CNI_TMP/gc.json" "" "" ""
cni_check_ok "GC (cni.dev/attachments, the pre-1.1 name) succeeds"
check "  c-gc2 collected, c-gc1 kept" test -z "$(cni_held c-gc2 net1)" -a -n "$(cni_held c-gc1 net1)"
cni_run GC "$CNI_TMP/plain.json" "" "" ""
check "GC without a valid list is refused (7), nothing collected" \
	test "$(cni_code)" = 7 -a -n "$(cni_held c-gc1 net1)"
jq '. + {"cni.dev/valid-attachments": [{"containerID": "c-gc1"}]}' "$CNI_TMP/plain.json" \
	>"$CNI_TMP/gc.json"
cni_run GC "$CNI_TMP/gc.json" "" "" ""
check "GC with a malformed entry is refused (7), nothing collected" \
	test "$(cni_code)" = 7 -a -n "$(cni_held c-gc1 net1)"
tap_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdmanetd's pre-checks (user/README.md, "Pre-checked addresses") under the
# DaemonSet's capabilities, read from deploy/base/rdmanetd-daemonset.yaml:
# the agent runs under a bounding set of exactly those (setpriv, as
# test_caps.sh does) and fills its table; without NET_RAW (its ARP probe
# is an AF_PACKET socket, its NS a raw ICMPv6 one) every probe fails, the
# agent says why, the table stays empty and ADDs probe for themselves.
# That is why the manifest adds NET_RAW.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
command -v setpriv >/dev/null || tap_skip_all "setpriv (util-linux) missing"
cni_topo_up || tap_skip_all "cannot create network namespaces"
CAPS=$(grep -E '^\s+- [A-Z_]+\s*$' "$RN_SRC/deploy/base/rdmanetd-daemonset.yaml" |
	awk '{ printf ",+%s", tolower($2) }')
TABLE=$CNI_STATE/.precheck
cni_node_config "$CNI_CONFIG" monitor \
	'{ "name": "pc4", "subnet": "10.81.0.0/24", "ips": ["10.81.0.100-10.81.0.119"],
	   "gateway": "10.81.0.254", "masters": ["ra0"] },
	 { "name": "pc6", "subnet": "fd81::/64", "ips": ["fd81::100-fd81::119"],
	   "gateway": "fd81::254", "masters": ["ra0"] }' \
	"{ \"store\": \"sqlite\", \"path\": \"$CNI_TMP/ipam.db\",
	   \"precheck\": { \"max_age_s\": 600, \"per_pool\": 3 } }"
cni_netconf "$CNI_TMP/pc.json" 1.1.0 pc '{"master": "ra0", "ippools": {"ipv4": ["pc4"], "ipv6": ["pc6"]}}'
count() { awk -v p="$1" 'NR > 1 && $1 == p && $2 == "ra0"' "$TABLE" 2>/dev/null | wc -l; }
full() { [ "$(count pc4)" = 3 ] && [ "$(count pc6)" = 3 ]; }

# an ADD with the conflict check on marks the pools for pre-checks
ns=$(cni_pod_up p)
cni_run ADD "$CNI_TMP/pc.json" c1 net1 "$ns"
cni_check_ok "an ADD of the pools, the conflict check on"

CNI_AGENT_WRAP="setpriv --bounding-set -all$CAPS --inh-caps=-all"
check "rdmanetd under exactly the manifest's capabilities ($(echo "${CAPS//,+/ }" | xargs))" \
	cni_agent_start "$CNI_CONFIG"
check "  ... pre-checks 3 addresses of each pool (ARP and NS probes)" cni_wait "$CNI_AGENT_PID" full
check_eq "  ... no pre-check failed" "$(grep -c 'pre-checks on ra0' "$CNI_TMP/agent.log")" 0
cni_agent_stop
rm -f "$TABLE"

: >"$CNI_TMP/agent.log"
CNI_AGENT_WRAP="setpriv --bounding-set -all${CAPS/,+net_raw/} --inh-caps=-all"
check "rdmanetd without NET_RAW" cni_agent_start "$CNI_CONFIG"
failed() { grep -q "pre-checks on ra0: .*Operation not permitted" "$CNI_TMP/agent.log"; }
check "  ... says its probes are not permitted" cni_wait "$CNI_AGENT_PID" failed
grep 'pre-checks on ra0' "$CNI_TMP/agent.log" | head -2 | sed 's/^/# /'
check_eq "  ... and pre-checks nothing" "$(count pc4) $(count pc6)" "0 0"
export RDMANET_CNI_LOG=debug
cni_run ADD "$CNI_TMP/pc.json" c2 net2 "$ns"
cni_check_ok "  ... ADDs still work: they probe for themselves"
check "  ... as their log says" grep -q "not pre-checked on ra0: probing" "$CNI_ERR"
tap_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Pre-checked addresses of a block pool (etcd, "block"): the node hands out
# its blocks' addresses from its own SQLite store, which etcd does not list,
# so rdmanetd takes the addresses in use, and where the pool's round-robin
# stands, from there: it drops a pre-check a pod of the node took, and its
# candidates lie in the node's blocks, so the next ADD takes one without
# the probe window.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
command -v etcd >/dev/null || tap_skip_all "etcd not installed"
cni_topo_up || tap_skip_all "cannot create network namespaces"
TABLE=$CNI_STATE/.precheck
check "a one-member etcd starts" cni_etcd_start "$CNI_TMP/etcd"
cni_node_config "$CNI_CONFIG" monitor \
	'{ "name": "bk4", "subnet": "10.81.0.0/24", "ips": ["10.81.0.96-10.81.0.127"], "block": 28,
	   "gateway": "10.81.0.254", "masters": ["ra0"] }' \
	"{ \"store\": \"etcd\", \"endpoints\": [\"$CNI_ETCD_URL\"], \"prefix\": \"/$CNI_PFX\",
	   \"path\": \"$CNI_TMP/node.db\", \"precheck\": { \"max_age_s\": 600, \"per_pool\": 3 } }"
check "rdmanetd attaches to both rails" cni_agent_start "$CNI_CONFIG"
cni_netconf "$CNI_TMP/bk.json" 1.1.0 bk '{"master": "ra0", "ippools": {"ipv4": ["bk4"]}}'
export RDMANET_CNI_LOG=debug

entries() { awk 'NR > 1 && $1 == "bk4" && $2 == "ra0" { print $3 }' "$TABLE" 2>/dev/null; }
full() { [ "$(entries | wc -l)" = 3 ]; }
addr_of() { jq -r '.ips[0].address | sub("/.*"; "")' "$CNI_OUT"; }

ns=$(cni_pod_up p)
held=()
for i in 1 2 3; do
	cni_run ADD "$CNI_TMP/bk.json" "c$i" "net$i" "$ns"
	cni_check_ok "ADD $i from the block pool"
	held+=("$(addr_of)")
done
# an ADD may take a pre-checked address before the agent looks again: the
# agent's next look drops it
none_held() { full && ! entries | grep -qx -e "${held[0]}" -e "${held[1]}" -e "${held[2]}"; }
check "rdmanetd pre-checks 3 addresses of the block pool, none held by a pod of the node" \
	cni_wait "$CNI_AGENT_PID" none_held
pre=$(entries | tr '\n' ' ')
tap_diag "held: ${held[*]}; pre-checked: $pre"
cni_run ADD "$CNI_TMP/bk.json" c4 net4 "$ns"
cni_check_ok "ADD 4"
check_eq "it skipped the probe window" "$(grep -c 'pre-checked on ra0 .* no probe window' "$CNI_ERR")" 1
check "with a pre-checked address ($(addr_of))" grep -qw "$(addr_of)" <<<"$pre"

# more pre-checks wanted than the node's blocks have free: only its blocks'
# addresses are candidates (the rest of the pool is other nodes' or nobody's
# yet; probing them wastes the window and warns of "conflicts" that are
# another node's pods)
VIEW=$CNI_TMP/node.db.blocks
# outside: the entries outside the node's blocks of bk4 (its view), and how many there are
outside() { python3 - "$VIEW" $(entries) <<'PY'
import ipaddress, json, sys
v = json.load(open(sys.argv[1]))
nets = [ipaddress.ip_network("%s/%s" % (b["base"], b["len"])) for b in v["blocks"] if b["pool"] == "bk4"]
out = [a for a in sys.argv[2:] if not any(ipaddress.ip_address(a) in n for n in nets)]
print(len(sys.argv) - 2, len(nets), " ".join(out))
PY
}
jq '.ipam.precheck.per_pool = 40' "$CNI_CONFIG" >"$CNI_TMP/c.json" && cat "$CNI_TMP/c.json" >"$CNI_CONFIG"
grown() { [ "$(entries | wc -l)" -gt 3 ]; }
check "per_pool 40 (reloaded): more pre-checks" cni_wait "$CNI_AGENT_PID" grown
read -r n_pre n_blocks out < <(outside)
check_eq "all $n_pre lie in the node's $n_blocks block(s) of the pool" "${out:-none}" none

tap_done

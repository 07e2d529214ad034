#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Pre-checked addresses (user/README.md, "Pre-checked addresses"): an ADD
# with the conflict check on marks its pools; rdmanetd then probes the next
# addresses of each from the master and keeps those nobody answered for, at
# most ipam.precheck.per_pool; the next ADD takes one and skips its probe
# window (asserted on the plugin's debug outcome, never on time). A rogue
# that takes a pre-checked address is caught by the agent's re-probe, or by
# the ADD's own probe once the check is older than the max age; a table
# from a crash, another boot or with too many entries is never trusted
# beyond what it may say.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
cni_topo_up || tap_skip_all "cannot create network namespaces"
TABLE=$CNI_STATE/.precheck
ipam() {
	echo "{ \"store\": \"sqlite\", \"path\": \"$CNI_TMP/ipam.db\",
	        \"precheck\": { \"max_age_s\": $1, \"per_pool\": 3 } }"
}
POOLS='{ "name": "pc4", "subnet": "10.81.0.0/24", "ips": ["10.81.0.100-10.81.0.119"],
	 "gateway": "10.81.0.254", "masters": ["ra0"] },
       { "name": "pc6", "subnet": "fd81::/64", "ips": ["fd81::100-fd81::119"],
	 "gateway": "fd81::254", "masters": ["ra0"] }'
POOLS="$POOLS"', { "name": "pcdead", "subnet": "10.81.0.0/24", "ips": ["10.81.0.150-10.81.0.159"],
	 "gateway": "10.81.0.253", "masters": ["ra0"] }'
cni_node_config "$CNI_CONFIG" monitor "$POOLS" "$(ipam 600)"
check "rdmanetd attaches to both rails" cni_agent_start "$CNI_CONFIG"
cni_netconf "$CNI_TMP/pc.json" 1.1.0 pc '{"master": "ra0", "ippools": {"ipv4": ["pc4"], "ipv6": ["pc6"]}}'
export RDMANET_CNI_LOG=debug

# entries POOL: the table's addresses of POOL on ra0, one a line
entries() { awk -v p="$1" 'NR > 1 && $1 == p && $2 == "ra0" { print $3 }' "$TABLE" 2>/dev/null; }
count() { entries "$1" | wc -l; }
full() { [ "$(count pc4)" = 3 ] && [ "$(count pc6)" = 3 ]; }
now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }	# CLOCK_BOOTTIME
addr_of() { jq -r ".ips[$1].address | sub(\"/.*\"; \"\")" "$CNI_OUT"; }
skipped() { grep -c "pre-checked on ra0 .* no probe window" "$CNI_ERR"; }
probed() { grep -c "not pre-checked on ra0: probing" "$CNI_ERR"; }

ns=$(cni_pod_up p)
cni_run ADD "$CNI_TMP/pc.json" c1 net1 "$ns"
cni_check_ok "first ADD of the pools (no pre-checks yet)"
check_eq "it probed both addresses itself" "$(probed)/$(skipped)" "2/0"
check "it marked both pools on ra0 for pre-checks" \
	test -e "$CNI_STATE/.precheck.want/pc4:ra0" -a -e "$CNI_STATE/.precheck.want/pc6:ra0"
check "rdmanetd pre-checks per_pool (3) addresses of each pool" cni_wait "$CNI_AGENT_PID" full
A1=$(addr_of 0)
check "the pre-checked addresses are free ones (not the first ADD's $A1)" \
	bash -c "! grep -qw '$A1' '$TABLE'"

pre4=$(entries pc4 | tr '\n' ' ')
pre6=$(entries pc6 | tr '\n' ' ')
cni_run ADD "$CNI_TMP/pc.json" c2 net2 "$ns"
cni_check_ok "second ADD"
A2=$(addr_of 0)
check_eq "it skipped the probe window for both addresses" "$(probed)/$(skipped)" "0/2"
check "its IPv4 address is one the agent pre-checked ($pre4)" grep -qw "$(addr_of 0)" <<<"$pre4"
check "its IPv6 address is one the agent pre-checked ($pre6)" grep -qw "$(addr_of 1)" <<<"$pre6"

# --- the gateway is still asked: a silent one fails an ADD of a pre-checked address ---
cni_netconf "$CNI_TMP/dead.json" 1.1.0 dead \
	'{"master": "ra0", "ippools": {"ipv4": ["pcdead"]}, "gatewayCheck": {"timeoutMs": 300}}'
cni_run ADD "$CNI_TMP/dead.json" c-d1 net8 "$ns"
cni_check_error 104 "a pool whose gateway is silent: ADD fails with 104 (and marks the pool)"
dead_full() { [ "$(count pcdead)" = 3 ]; }
check "rdmanetd pre-checks that pool too" cni_wait "$CNI_AGENT_PID" dead_full
cni_run ADD "$CNI_TMP/dead.json" c-d2 net9 "$ns"
cni_check_error 104 "with a pre-checked address the silent gateway still fails the ADD (104)"
check_eq "that ADD skipped only the conflict window" "$(probed)/$(skipped)" "0/1"

# --- the agent crashes; a rogue takes a pre-checked address; the check ages past the
# max age: the ADD does not trust it, probes, and sees the rogue
cni_stop "$CNI_AGENT_PID" KILL
CNI_AGENT_PID=
rogue=$(entries pc4 | grep -vx "$A2" | head -n 1)
cni_in fabric ip addr add "$rogue/24" dev wa0
tap_diag "rogue on the wire with $rogue"
# the entries aged past the max age (checked at boot-clock 1 ms)
sed -i '2,$ s/ [0-9]*$/ 1/' "$TABLE"
cni_run ADD "$CNI_TMP/pc.json" c3 net3 "$ns"
cni_check_ok "ADD with every pre-check past its max age"
check_eq "it trusted no pre-check" "$(skipped)" 0
check "its own probe found the rogue" grep -q "$rogue .* is in use on the wire" "$CNI_ERR"
check "and it got another address ($(addr_of 0))" test "$(addr_of 0)" != "$rogue"
cni_in fabric ip addr del "$rogue/24" dev wa0

# --- a table from another boot ---------------------------------------------------------
now=$(now_ms)
{
	echo "rdmanet-precheck 1 00000000-0000-0000-0000-000000000000 600000"
	echo "pc4 ra0 10.81.0.118 $now"
} >"$TABLE"
cni_run ADD "$CNI_TMP/pc.json" c4 net4 "$ns"
cni_check_ok "ADD with a table from another boot"
check_eq "it trusted none of it" "$(probed)/$(skipped)" "2/0"

# --- the restart after the crash finds too many fresh entries and a stale one --------
{
	# the crashed agent's max age was long: these are fresh when the new one starts
	echo "rdmanet-precheck 1 $(cat /proc/sys/kernel/random/boot_id) 600000"
	for i in 110 111 112 113 114 115 116 117; do echo "pc4 ra0 10.81.0.$i $now"; done
	echo "pc6 ra0 fd81::119 1"
} >"$TABLE"
cni_node_config "$CNI_CONFIG" monitor "$POOLS" "$(ipam 4)"
cni_agent_start "$CNI_CONFIG" >/dev/null
bounded() {
	[ "$(count pc4)" -le 3 ] && ! grep -q "^pc6 ra0 fd81::119 1$" "$TABLE" && full
}
check "the restarted agent cuts the table to its bound and drops what is past the max age" \
	cni_wait "$CNI_AGENT_PID" bounded
check "the 3 it keeps are 3 of the 8 it found (re-probed, as they are past half its 4 s)" \
	bash -c "! awk 'NR > 1 && \$1 == \"pc4\" { print \$3 }' '$TABLE' | grep -vx '10.81.0.11[0-7]'"

# --- a rogue takes the fresh pre-checked addresses: the agent's re-probe drops them ---
rogue2=$(entries pc4 | tr '\n' ' ')
for a in $rogue2; do cni_in fabric ip addr add "$a/24" dev wa0; done
tap_diag "rogue on the wire with $rogue2"
gone() {
	for a in $rogue2; do entries pc4 | grep -qx "$a" && return 1; done
	grep -q "is in use on ra0's wire" "$CNI_TMP/agent.log"
}
check "its re-probe (max age 4 s) drops the rogue's addresses" cni_wait "$CNI_AGENT_PID" gone
check "and pre-checks others instead, still at most 3" cni_wait "$CNI_AGENT_PID" full

tap_done

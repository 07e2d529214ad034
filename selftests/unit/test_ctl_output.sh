#!/bin/bash
# rdmanetctl's output as a reader and a query want it: no JSON fragments in
# pool show's human view, JSON that says null for what the host does not
# have (vf -j as dev -j does), a port's rate as a number, and errors about
# a file argument or the config that name the problem once (no "line -1
# column -1", no path said twice).
. "$RN_SRC/selftests/lib/tap.sh"
CTL=$RN_BUILD/bin/rdmanetctl
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v jq >/dev/null || tap_skip_all "jq not installed (make deps)"

echo '{}' >"$TMP/empty.json"
export RDMANET_SYSFS_ROOT=$RN_SRC/selftests/fixtures/sysfs/cx5_sriov/sys
vf=$("$CTL" -c "$TMP/empty.json" vf -j)
check_eq "vf -j: a VF without netdev or RDMA device says null, not \"\"" \
	"$(jq -c '[.pfs[0].vfs[5] | .netdev, .rdma_dev] + [[.. | strings | select(. == "")] | length]' <<<"$vf")" \
	'[null,null,0]'
check_eq "dev -j: a port's rate is a number of Gb/s, the kernel's text beside it" \
	"$("$CTL" -c "$TMP/empty.json" dev -j | jq -c '.devices[0].ports[0] | [.rate, .rate_text]')" \
	'[100,"100 Gb/sec (4X EDR)"]'
unset RDMANET_SYSFS_ROOT

echo "{\"node\": \"w1\", \"ipam\": {\"path\": \"$TMP/ipam.db\"}}" >"$TMP/node.json"
ctl() { "$CTL" -c "$TMP/node.json" "$@"; }
ctl pool add rail1 --subnet 172.16.11.0/24 --range 172.16.11.10-172.16.11.20 \
	--route 10.0.0.0/8,172.16.11.1 --route 10.1.0.0/16 --master ens1 --master ens2 >/dev/null
ctl pool show rail1 >"$TMP/show"
check "pool show: no JSON in the human view" test -z "$(grep -E '[][{}"]' "$TMP/show")"
check "pool show: routes as DST via GW" grep -qx '  routes   10.0.0.0/8 via 172.16.11.1, 10.1.0.0/16' "$TMP/show"
check "pool show: lists joined" grep -qx '  masters  ens1, ens2' "$TMP/show"

# file_error WHAT WANT FILE: pool gc --valid FILE fails in one line with WANT
file_error() {
	ctl pool gc --valid "$3" >/dev/null 2>"$TMP/err"
	local rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -qF -- "$2" "$TMP/err" &&
		! grep -q 'line -1' "$TMP/err"; then
		tap_ok "$1"
	else
		tap_fail "$1: rc $rc, stderr: $(cat "$TMP/err")"
	fi
}
file_error "pool gc --valid of a missing file" "$TMP/nope: No such file or directory" "$TMP/nope"
file_error "pool gc --valid of a directory" "$TMP: is a directory" "$TMP"
echo '[' >"$TMP/broken.json"
file_error "pool gc --valid of broken JSON says where" "$TMP/broken.json: line 2 column 0" \
	"$TMP/broken.json"

# the config: a directory or a missing file said once, in plain words
check_eq "a directory as the config" "$("$CTL" -c "$TMP" stats 2>&1)" \
	"rdmanetctl: $TMP: is a directory, not a JSON file"
check_eq "a missing config names its path once" "$("$CTL" -c "$TMP/nope.json" stats 2>&1)" \
	"rdmanetctl: $TMP/nope.json: No such file or directory"
tap_done

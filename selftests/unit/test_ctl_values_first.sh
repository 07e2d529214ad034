#!/bin/bash
# rdmanetctl checks an argument's value before it reads the node config: a
# bad --dscp, --mac, --ip or netns mode is a usage error (exit 2, one line
# naming the value) whatever the config file is, even one that cannot be
# read; a good value with that config fails on the config (exit 1).
. "$RN_SRC/selftests/lib/tap.sh"
CTL=$RN_BUILD/bin/rdmanetctl
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo '{ "qos": 5 }' >"$TMP/bad.json"

bad_value() {	# WHAT WANT CMD...
	local what=$1 want=$2 rc
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -qF -- "$want" "$TMP/err"; then
		tap_ok "$what"
	else
		tap_fail "$what: rc $rc, stderr: $(cat "$TMP/err")"
	fi
}

for cfg in "$TMP/missing.json" "$TMP/bad.json"; do
	c=$(basename "$cfg")
	bad_value "pod add --dscp 64, config $c: the value's error" \
		'pod add: --dscp: "64" is not a DSCP value (0..63)' \
		"$CTL" -c "$cfg" pod add --namespace a --pod b --dscp 64
	bad_value "pod add --mac zz, config $c" '--mac: "zz" is not a MAC address' \
		"$CTL" -c "$cfg" pod add --namespace a --pod b --mac zz
	bad_value "pod add --ip x, config $c" '--ip: "x" is not an IP address' \
		"$CTL" -c "$cfg" pod add --namespace a --pod b --ip x
	bad_value "dev netns bogus, config $c" '"bogus": expected shared or exclusive' \
		"$CTL" -c "$cfg" dev netns bogus
done
"$CTL" -c "$TMP/bad.json" pod add --namespace a --pod b --dscp 10 >/dev/null 2>"$TMP/err"
check_eq "a good value: the config's error, exit 1" "$?:$(grep -c 'config.qos' "$TMP/err")" "1:1"
tap_done

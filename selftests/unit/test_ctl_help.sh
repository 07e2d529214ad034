#!/bin/bash
# rdmanetctl teaches itself: every object and verb answers `help`, -h and
# --help with its usage and exit 0 without reading the config, the IPAM
# store or bpffs; unknown objects, verbs and options are usage errors (exit
# 2, one line naming the token and where the help is); global options work
# anywhere on the line; the bash completion and the man page come from the
# parser's tables, and the three man pages render without a warning.
. "$RN_SRC/selftests/lib/tap.sh"
CTL=$RN_BUILD/bin/rdmanetctl
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# if anything below read the config or the pin dir, it would fail (exit 1)
export RDMANET_CONFIG=$TMP/no-such-dir/config.json RDMANET_PIN_DIR=$TMP/no-such-dir/pin
mkdir "$TMP/unreadable" && chmod 000 "$TMP/unreadable"

# the tables, as the completion reads them: objects, and each one's verbs
objects=$("$CTL" __complete 1 "" | grep -vx help)
check "the completion lists the objects" grep -qx pool <<<"$objects"
verbs() { "$CTL" __complete 2 "$1" "" | grep -vx help | grep -vx -e shared -e exclusive; }

# helps WHAT WANT CMD...: exit 0, usage on stdout containing WANT, no stderr
helps() {
	local what=$1 want=$2 rc
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc = 0 ] && [ ! -s "$TMP/err" ] && head -1 "$TMP/out" | grep -q '^usage:' &&
		grep -qF -- "$want" "$TMP/out"; then
		tap_ok "$what"
	else
		tap_fail "$what: rc $rc, stdout: $(head -3 "$TMP/out"), stderr: $(cat "$TMP/err")"
	fi
}

# usage_error WHAT WANT CMD...: exit 2, one stderr line with WANT and the hint
usage_error() {
	local what=$1 want=$2 rc
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -qF -- "$want" "$TMP/err" &&
		grep -q "see 'rdmanetctl .*help'" "$TMP/err" && [ ! -s "$TMP/out" ]; then
		tap_ok "$what"
	else
		tap_fail "$what: rc $rc, stderr: $(cat "$TMP/err")"
	fi
}

helps "rdmanetctl help" "objects:" "$CTL" help
helps "rdmanetctl --help" "objects:" "$CTL" --help
helps "rdmanetctl -h lists -v" "-v, --verbose" "$CTL" -h
helps "the usage lists every global option" "--pin-dir DIR" "$CTL" help
for o in $objects; do
	helps "$o help" "rdmanetctl $o" "$CTL" "$o" help
	helps "$o --help" "rdmanetctl $o" "$CTL" "$o" --help
	helps "help $o" "rdmanetctl $o" "$CTL" help "$o"
	for v in $(verbs "$o"); do
		helps "$o $v --help" "usage: rdmanetctl $o $v" "$CTL" "$o" "$v" --help
		helps "$o $v help" "usage: rdmanetctl $o $v" "$CTL" "$o" "$v" help
		helps "$o $v -h with the config unreadable" "usage: rdmanetctl $o $v" \
			"$CTL" -c "$TMP/unreadable/c.json" "$o" "$v" -h
	done
done
helps "pod add --help names its options" "--container-id ID" "$CTL" pod add --help
helps "pool add --help documents its flags" "--route DST[,GW]" "$CTL" pool add --help
helps "pool show --help does not open the store" "pool show [NAME]" "$CTL" pool show --help
helps "dev help is help, not a device" "dev netns [shared|exclusive]" "$CTL" dev help

usage_error "unknown object" 'unknown object "frob"' "$CTL" frob
usage_error "unknown verb" 'pod: unknown verb "bump"' "$CTL" pod bump
usage_error "unknown option" 'stats: unexpected argument "--frob"' "$CTL" stats --frob
usage_error "unknown global option" 'unknown option "--frob"' "$CTL" --frob
usage_error "an option without its value" '--namespace needs a value' "$CTL" pod add --namespace
usage_error "a verb that needs a verb" 'which verb? (show, release, allocate)' "$CTL" ip
echo '{}' >"$TMP/empty.json"
usage_error "a bad value" '--dscp: "64" is not a DSCP value' "$CTL" -c "$TMP/empty.json" pod add \
	--namespace a --pod b --dscp 64
usage_error "a missing required option" '--valid is required' "$CTL" -c "$TMP/empty.json" \
	pool gc
usage_error "required options are checked before the config is read" \
	'--namespace and --pod are required' "$CTL" pod add --pod x
usage_error "an empty required value is no value" '--namespace and --pod are required' \
	"$CTL" pod add --namespace "" --pod x
usage_error "a second positional" 'unexpected argument "b"' "$CTL" pool show a b
usage_error "a verb's option with a value before the object" '--pod NS/NAME goes after' \
	"$CTL" --pod a/b stats
"$CTL" >/dev/null 2>"$TMP/err"
check_eq "no object at all: usage on stderr, exit 2" "$?:$(head -c 6 "$TMP/err")" "2:usage:"

# a runtime failure is 1; global options after the object and verb are read
"$CTL" stats -j --pin-dir "$TMP/pins-after" -c "$TMP/empty.json" 2>"$TMP/err"
check_eq "a runtime failure exits 1" "$?" 1
check "--pin-dir after the object is used" grep -qF "$TMP/pins-after" "$TMP/err"
echo '{"qos":{"roce_dscp":99}}' >"$TMP/bad.json"
"$CTL" stats -c "$TMP/bad.json" 2>"$TMP/err"
check "-c after the object is read" grep -qF 'qos.roce_dscp: 99 is outside 0..63' "$TMP/err"
export RDMANET_SYSFS_ROOT=$RN_SRC/selftests/fixtures/sysfs/cx5/sys
want=$("$CTL" -c "$TMP/empty.json" -j gid)
check "gid -j on the fixture" test -n "$want"
check_eq "-j after the verb: the same JSON" "$("$CTL" gid show -j -c "$TMP/empty.json")" "$want"
check_eq "a verb's flag before the object (as ip -s link)" \
	"$("$CTL" -s -c "$TMP/empty.json" dev -j | jq -c '[.. | .hw_counters? // empty] | length')" \
	"$("$CTL" -c "$TMP/empty.json" dev -s -j | jq -c '[.. | .hw_counters? // empty] | length')"
unset RDMANET_SYSFS_ROOT

# bash completion, from the binary's tables
complete_words() {	# complete_words WORD... (the last one is being completed)
	PATH=$RN_BUILD/bin:$PATH bash -c '. "$1"; shift; COMP_WORDS=("$@");
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _rdmanetctl; echo "${COMPREPLY[*]}"' \
		_ "$RN_SRC/user/ctl/rdmanetctl.bash" rdmanetctl "$@"
}
check_eq "completes objects" "$(complete_words po)" "pod pool"
check_eq "completes verbs" "$(complete_words pool "")" "list show add del gc sync check help"
check_eq "completes a verb's options" "$(complete_words pool add --s)" "--subnet"
check_eq "completes global options after the verb" "$(complete_words stats --pre)" "--pretty"
check_eq "completes word lists" "$(complete_words dev netns "")" "shared exclusive"
check_eq "no words for an option's value (files)" "$(complete_words -c "")" ""

# man pages: render without warnings; rdmanetctl's names every verb
"$CTL" __man >"$TMP/rdmanetctl.8"
pages=("$TMP/rdmanetctl.8" "$RN_SRC/user/ctl/man/rdmanetd.8" "$RN_SRC/user/ctl/man/rdmanet.8")
if command -v groff >/dev/null; then
	for p in "${pages[@]}"; do
		err=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$p" 2>&1)
		check_eq "$(basename "$p") renders without warnings" "$err" ""
	done
else
	tap_skip "man pages render" "groff not installed (make deps)"
fi
missing=""
for o in $objects; do
	for v in $(verbs "$o"); do
		grep -q "^\.B rdmanetctl $o $v\b" "$TMP/rdmanetctl.8" || missing+=" $o/$v"
	done
	grep -q "^\.SS $o\$" "$TMP/rdmanetctl.8" || missing+=" $o"
done
check_eq "every object and verb is in rdmanetctl(8)" "$missing" ""
missing=""
for opt in $("$RN_BUILD/bin/rdmanetd" --help 2>&1 | grep -o -- '--[a-z-]*' | sort -u); do
	grep -qF -- "${opt//-/\\-}" "$RN_SRC/user/ctl/man/rdmanetd.8" || missing+=" $opt"
done
check_eq "every option of rdmanetd --help is in rdmanetd(8)" "$missing" ""
inst=$(make -s -n -C "$RN_SRC" OUT="$RN_BUILD" DESTDIR=/x install 2>/dev/null)
check "make install installs the man pages" grep -q 'man8/' <<<"$inst"
check "make install installs the completion" grep -q 'rdmanetctl.bash' <<<"$inst"
tap_done

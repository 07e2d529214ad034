#!/bin/bash
# Every binary says which build it is: the Makefile's VERSION and the git
# commit, the same in all three, as an operator reads them on a node.
. "$RN_SRC/selftests/lib/tap.sh"
VERSION=$(make -s -C "$RN_SRC" print-version)
check "the Makefile has a version" test -n "$VERSION"
want_commit=$(git -C "$RN_SRC" describe --always --dirty --abbrev=12 --match=NeVeR 2>/dev/null)
line_re="^%s $VERSION \\(commit [0-9a-f]{12}(-dirty)?\\)$"
for prog in rdmanetd rdmanetctl; do
	out=$("$RN_BUILD/bin/$prog" --version 2>&1)
	rc=$?
	check_eq "$prog --version exits 0" "$rc" 0
	# shellcheck disable=SC2059
	check "$prog --version: \"$out\"" grep -qE "$(printf "$line_re" "$prog")" <<<"$out"
	# make regenerates the header at every build: a build dir made before the
	# checkout's last commit names the commit it was made from
	built=$(sed -n 's/^#define RN_COMMIT "\(.*\)"$/\1/p' "$RN_BUILD/gen/rdmanet_version.h" 2>/dev/null)
	if [ -z "$want_commit" ]; then
		tap_skip "$prog names the checkout's commit" "not a git checkout"
	elif [ "$built" != "$want_commit" ]; then
		tap_skip "$prog names the checkout's commit" "$RN_BUILD was built at $built, the checkout is $want_commit: run make"
	else
		check "$prog names the checkout's commit ($want_commit)" grep -qF "(commit $want_commit)" <<<"$out"
	fi
done
check_eq "rdmanetctl -V is --version" "$("$RN_BUILD/bin/rdmanetctl" -V)" "$("$RN_BUILD/bin/rdmanetctl" --version)"
# the CNI plugin, run by hand, as the reference plugins answer: on stderr, exit 0, stdin unread
out=$(env -u CNI_COMMAND "$RN_BUILD/bin/rdmanet" </dev/full 2>&1 >/dev/null)
check_eq "the CNI plugin without CNI_COMMAND exits 0" "$?" 0
check "the CNI plugin without CNI_COMMAND names its version" \
	grep -qE "^CNI rdmanet plugin $VERSION \\(commit [0-9a-f]{12}(-dirty)?\\)$" <<<"$out"
check "... and the CNI versions it speaks" grep -q '^CNI protocol versions supported: .*1.1.0' <<<"$out"
out=$(CNI_COMMAND=VERSION "$RN_BUILD/bin/rdmanet" <<<'{"cniVersion":"1.1.0"}')
check "CNI_COMMAND=VERSION still answers the spec's JSON" grep -q '"supportedVersions"' <<<"$out"
tap_done

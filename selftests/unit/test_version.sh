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
	[ -n "$want_commit" ] && [ "${want_commit%-dirty}" = "$(git -C "$RN_SRC" rev-parse --short=12 HEAD)" ] &&
		check "$prog names the checkout's commit" grep -qF "commit ${want_commit%-dirty}" <<<"$out"
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

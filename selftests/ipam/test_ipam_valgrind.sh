#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The IPAM unit suites under valgrind memcheck (SQLite store): no invalid
# read or write, no use of freed memory (a plan holding pointers into a
# pool list that a reload freed was one), no definite leak.
# test_ipam_etcd.sh runs the allocator suite under valgrind on etcd.
set -u
. "$RN_SRC/selftests/lib/tap.sh"

command -v valgrind >/dev/null || tap_skip_all "valgrind is not installed"
DIR=$(mktemp -d "/tmp/rn-ipam-vg-$$-XXXXXX")
trap 'rm -rf "$DIR"' EXIT

for t in test_ipam_alloc test_ipam_pool; do
	bin=$RN_BUILD/selftests/unit/$t
	if [ ! -x "$bin" ]; then
		tap_fail "$t under valgrind: $bin is not built"
		continue
	fi
	if valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		"$bin" >"$DIR/$t.log" 2>&1; then
		tap_ok "$t under valgrind: clean ($(grep -c '^ok' "$DIR/$t.log") cases)"
	else
		tap_fail "$t under valgrind"
		grep -E -m 40 '==[0-9]+==|^not ok|^# ' "$DIR/$t.log" | sed 's/^/# /'
	fi
done
tap_done

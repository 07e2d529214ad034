#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make test's share of fuzzing: every built libFuzzer target for a bounded
# time (RN_FUZZ_BUDGET seconds in all, default 24, at least 4 each); the
# long runs are make fuzz / make fuzz-long.
set -u
. "$RN_SRC/selftests/lib/tap.sh"

targets=()
for f in "$RN_BUILD"/fuzz/fuzz_*; do
	[ -x "$f" ] && [[ "$f" != *.d ]] && targets+=("$(basename "$f")")
done
[ ${#targets[@]} = 0 ] && tap_skip_all "no fuzz targets built (make test builds them with clang)"
budget=${RN_FUZZ_BUDGET:-24}
each=$((budget / ${#targets[@]}))
[ $each -lt 4 ] && each=4
for t in "${targets[@]}"; do
	if out=$("$RN_SRC/selftests/fuzz/run.sh" "$RN_BUILD" "$each" "$t" 2>&1); then
		tap_ok "${out#fuzz: }"
	else
		tap_fail "$t: $(echo "$out" | head -1)"
		echo "$out" | tail -n +2 | sed 's/^/# /'
	fi
done
tap_done

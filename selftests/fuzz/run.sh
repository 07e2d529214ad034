#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Runs every built libFuzzer target for SECONDS each (make fuzz: 20,
# make fuzz-long: 600, test_fuzz.sh: a short share of its budget).
#
#   selftests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
#
# Seeds come from selftests/fuzz/corpus/<target>/ (read only: new inputs go
# to a scratch corpus under BUILD_DIR/fuzz-corpus/<target>/, kept between
# runs so long runs build on each other), a dictionary from
# selftests/fuzz/<target>.dict if there is one. A crash, leak, timeout or
# sanitizer report leaves its input in BUILD_DIR/fuzz-artifacts/ and fails.
set -u
cd "$(dirname "$0")/../.."
OUT=${1:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}
SECONDS_EACH=${2:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
targets=("$@")
if [ ${#targets[@]} = 0 ]; then
	for f in "$OUT"/fuzz/fuzz_*; do
		[ -x "$f" ] && [[ "$f" != *.d ]] && targets+=("$(basename "$f")")
	done
fi
if [ ${#targets[@]} = 0 ]; then
	echo "fuzz: no fuzz targets built under $OUT/fuzz (make $OUT/fuzz/fuzz_...)" >&2
	exit 1
fi
mkdir -p "$OUT/fuzz-artifacts"
rc=0
for t in "${targets[@]}"; do
	bin=$OUT/fuzz/$t
	work=$OUT/fuzz-corpus/$t
	log=$OUT/fuzz-artifacts/$t.log
	args=(-max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
	      -artifact_prefix="$OUT/fuzz-artifacts/$t-")
	mkdir -p "$work"
	[ -f "selftests/fuzz/$t.dict" ] && args+=(-dict="selftests/fuzz/$t.dict")
	seeds=()
	[ -d "selftests/fuzz/corpus/$t" ] && seeds=("selftests/fuzz/corpus/$t")
	if ASAN_OPTIONS=detect_leaks=1 "$bin" "${args[@]}" "$work" "${seeds[@]}" >"$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
		cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
		echo "fuzz: $t: ${runs:-?} runs in ${SECONDS_EACH}s, ${cov:-cov: ?}, no crash"
	else
		echo "fuzz: $t: FAILED (log: $log)"
		grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$log" | head -8 | sed 's/^/    /'
		rc=1
	fi
done
exit $rc

#!/bin/bash
# make bench: runs every selftests/bench/bench_*.sh, each of which prints
# table rows and writes one JSON object to $RN_BENCH_OUT/<name>.json; the
# objects are merged into selftests/bench/results.json.
set -u
cd "$(dirname "$0")/../.."
OUT=${1:-build}
export RN_BUILD=$(realpath "$OUT")
export RN_SRC=$(pwd)
export RN_BENCH_OUT=$RN_BUILD/bench-results
rm -rf "$RN_BENCH_OUT"
mkdir -p "$RN_BENCH_OUT"
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
ulimit -l unlimited 2>/dev/null || true

rc=0
for b in selftests/bench/bench_*.sh; do
	[ -x "$b" ] || continue
	echo "== $b"
	if ! "$b"; then
		echo "!! $b failed"
		rc=1
	fi
done
jq -s 'reduce .[] as $o ({}; . * $o) | {generated: (now | todate)} + .' \
	"$RN_BENCH_OUT"/*.json > selftests/bench/results.json.tmp &&
	mv selftests/bench/results.json.tmp selftests/bench/results.json
echo "wrote selftests/bench/results.json"
exit $rc

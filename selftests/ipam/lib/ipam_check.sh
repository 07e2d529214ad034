# shellcheck shell=bash
# Store checks shared by the IPAM shell tests (source after tap.sh).
#   ipam_verify WHAT CONFIG POOL REPORT [EXPECTED]
# Reads the pool's allocations through rdmanetctl and reports, as TAP:
# no address held twice, no owner holding two addresses, every line of
# REPORT ("container_id ifname address") present in the store with that
# address, `rdmanetctl pool check` clean, and (with EXPECTED) the count.
CTL=${CTL:-$RN_BUILD/bin/rdmanetctl}

ipam_verify() {
	local what=$1 cfg=$2 pool=$3 report=$4 expected=${5:-} tmp total uniq owners missing
	tmp=$(mktemp -d "/tmp/rn-ipam-verify-$$-XXXXXX")
	if ! "$CTL" -c "$cfg" pool show "$pool" -j >"$tmp/show.json" 2>"$tmp/err"; then
		tap_fail "$what: pool show: $(cat "$tmp/err")"
		rm -rf "$tmp"
		return
	fi
	jq -r '.allocations[] | "\(.container_id) \(.ip)"' "$tmp/show.json" | sort >"$tmp/store"
	total=$(wc -l <"$tmp/store")
	uniq=$(awk '{print $2}' "$tmp/store" | sort -u | wc -l)
	owners=$(awk '{print $1}' "$tmp/store" | sort -u | wc -l)
	check_eq "$what: no address held twice ($total allocations)" "$uniq" "$total"
	check_eq "$what: no owner holds two addresses" "$owners" "$total"
	awk '{print $1, $3}' "$report" | sort >"$tmp/reported"
	missing=$(comm -23 "$tmp/reported" "$tmp/store" | wc -l)
	check_eq "$what: every reported allocation is in the store ($(wc -l <"$tmp/reported") reported)" \
		"$missing" 0
	if [ "$missing" != 0 ]; then
		comm -23 "$tmp/reported" "$tmp/store" | head -5 | sed 's/^/# missing: /'
	fi
	if [ -n "$expected" ]; then
		check_eq "$what: $expected allocations in the store" "$total" "$expected"
	fi
	if "$CTL" -c "$cfg" pool check >"$tmp/check" 2>&1; then
		tap_ok "$what: rdmanetctl pool check finds the store consistent"
	else
		tap_fail "$what: pool check: $(tr '\n' ' ' <"$tmp/check")"
	fi
	rm -rf "$tmp"
}

# ipam_crash WHAT CONFIG POOL DIR PROCS KILL_MS
# PROCS allocators that allocate until killed (ipam_stress -u: nothing ends
# them but the kill, however fast the store), each killed with SIGKILL at its
# own random moment (0 to KILL_MS ms) after it has reported its first
# allocation; then the store is verified against what they reported,
# allocation works again, and GC with the reported owners as the valid set
# leaves exactly the reported allocations (an allocation committed just
# before the kill, never reported, is what GC is for).
ipam_crash() {
	local what=$1 cfg=$2 pool=$3 dir=$4 procs=$5 kill_ms=$6 i pids=() killers=()
	local killed=0 valid started=0 deadline
	: >"$dir/crash.report"
	for ((i = 0; i < procs; i++)); do
		"$RN_BUILD/tools/ipam_stress" -c "$cfg" -p "$pool" -u -i "crash$i" \
			-r "$dir/crash.report" -t 30 >/dev/null 2>"$dir/crash$i.err" &
		pids+=($!)
	done
	# every allocator under way (one reported allocation each), bounded
	deadline=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt "$deadline" ]; do
		started=0
		for ((i = 0; i < procs; i++)); do
			grep -q "^crash$i-" "$dir/crash.report" && started=$((started + 1))
		done
		[ "$started" = "$procs" ] && break
		sleep 0.05
	done
	check_eq "$what: all $procs allocators under way before the kills" "$started" "$procs"
	for i in "${pids[@]}"; do
		local ms=$((RANDOM % kill_ms))
		( sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"; kill -KILL "$i" 2>/dev/null ) &
		killers+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i"
		[ $? = 137 ] && killed=$((killed + 1))
	done
	wait "${killers[@]}"
	tap_diag "$what: $killed of $procs allocators killed mid-run, $(wc -l <"$dir/crash.report") allocations reported"
	check_eq "$what: every allocator was killed while allocating (none exited by itself)" "$killed" "$procs"
	[ "$killed" = "$procs" ] || cat "$dir"/crash*.err | head -5 | sed 's/^/# /'
	ipam_verify "$what: after SIGKILL" "$cfg" "$pool" "$dir/crash.report"
	check "$what: allocation works after the crash" \
		"$RN_BUILD/tools/ipam_stress" -c "$cfg" -p "$pool" -n 5 -i "after" -r "$dir/crash.report"
	valid=$(awk '{printf "%s{\"containerID\":\"%s\",\"ifname\":\"%s\"}", (NR > 1 ? "," : ""), $1, $2}' \
		"$dir/crash.report")
	echo "[$valid]" >"$dir/valid.json"
	check "$what: gc with the reported owners as valid" \
		"$CTL" -c "$cfg" pool gc --valid "$dir/valid.json"
	ipam_verify "$what: after gc" "$cfg" "$pool" "$dir/crash.report" "$(wc -l <"$dir/crash.report")"
}

# ipam_concurrent WHAT CONFIG POOL DIR PROCS COUNT
# PROCS allocators start together and allocate COUNT addresses each; all
# must finish without error, every reported address must be distinct, and
# the store must hold exactly what they reported.
ipam_concurrent() {
	local what=$1 cfg=$2 pool=$3 dir=$4 procs=$5 count=$6 i p start pids=() fails=0
	local total=$((procs * count))
	start=$(($(date +%s%3N) + 500))
	: >"$dir/$pool.report"
	for ((i = 0; i < procs; i++)); do
		"$RN_BUILD/tools/ipam_stress" -c "$cfg" -p "$pool" -n "$count" -i "p$i" -s "$start" \
			-r "$dir/$pool.report" >"$dir/$pool-p$i.json" 2>"$dir/$pool-p$i.err" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
	check_eq "$what: $procs allocators all finished without error" "$fails" 0
	[ "$fails" = 0 ] || cat "$dir/$pool"-p*.err | head -5 | sed 's/^/# /'
	check_eq "$what: $total allocations reported" "$(wc -l <"$dir/$pool.report")" "$total"
	check_eq "$what: $total distinct addresses reported" \
		"$(awk '{print $3}' "$dir/$pool.report" | sort -u | wc -l)" "$total"
	ipam_verify "$what" "$cfg" "$pool" "$dir/$pool.report" "$total"
	tap_diag "$what: per-process seconds: $(jq -s -r 'map(.alloc_s | tostring | .[0:5]) |
		join(" ")' "$dir/$pool"-p*.json)"
}

# expect_try_later WHAT MIN_MS MAX_MS COMMAND...
# The command must give up with exit status 75 (EX_TEMPFAIL), say "try
# again later" on stderr, and do so within [MIN_MS, MAX_MS].
expect_try_later() {
	local what=$1 lo=$2 hi=$3 t0 rc ms err
	shift 3
	err=$(mktemp "/tmp/rn-ipam-err-$$-XXXXXX")
	t0=$(date +%s%3N)
	"$@" >/dev/null 2>"$err"
	rc=$?
	ms=$(($(date +%s%3N) - t0))
	check_eq "$what: exits 75 (try again later)" "$rc" 75
	check "$what: says try again later" grep -q "try again later" "$err"
	check_range "$what: answered within the bound, ms" "$ms" "$lo" "$hi"
	tap_diag "$what: $(head -c 300 "$err")"
	rm -f "$err"
}

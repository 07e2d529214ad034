# shellcheck shell=bash
# VM testbed, guest side: sourced by a node's script inside the VM. Brings
# in tap.sh (the host re-emits the TAP lines, prefixed with the node name)
# and helpers to coordinate the two nodes. The run directory share
# ($VM_RUN, 9p without caching) is the coordination channel, so a test that
# breaks the wire on purpose can still synchronize.
#
#   vm_barrier NAME [TIMEOUT]       wait until every node reached NAME
#   vm_put KEY VALUE                publish a value to the other node
#   vm_get KEY [TIMEOUT]            print a value the other node published
#   vm_wait_listen PORT [TIMEOUT]   wait until a local TCP socket listens on PORT
#   vm_wait_peer [TIMEOUT]          wait until the peer answers ping over the wire
#   vm_wait_until TIMEOUT CMD...    poll CMD until it succeeds, pausing twice
#                                   as long as CMD took (0.1-2 s, no fork)
#   vm_capture_start FILE [FILTER...]  tcpdump on $VM_IFACE into FILE (VM-local),
#                                   returns once it is capturing
#   vm_capture_stop FILE EXPECTED   wait until FILE holds EXPECTED packets, stop,
#                                   copy FILE and FILE.err to $VM_OUT; 1 unless it
#                                   holds exactly EXPECTED and the kernel dropped none
#   vm_gid_index [IPV4] [DEV]       index of the RoCE v2 GID of IPV4 (default
#                                   $VM_IP) on DEV port 1 (default $VM_RXE), from sysfs
#
# Timeouts are in seconds (default 60). Each helper returns 1 on timeout
# with one line on stderr, and gives up early when the other node's
# script has already finished (it will never arrive).

# shellcheck source=selftests/lib/tap.sh
. "$RN_SRC/selftests/lib/tap.sh"

# A peer whose status file exists has finished (or failed setup).
vm__peers_done() {
	local n
	for n in $VM_NODES; do
		[ "$n" = "$VM_NODE" ] && continue
		[ -f "$VM_RUN/$n/status" ] && { echo "$n"; return 0; }
	done
	return 1
}

# vm__nap SECONDS: a sleep without a fork. Under TCG each exec of sleep(1)
# costs tens of milliseconds of the guest's one CPU, which is a host core
# shared with the other node and the other VM lane: a node polling every
# 0.1 s with sleep(1) kept about 40% of a core busy doing nothing (17 s of
# qemu CPU over a 40 s wait; 1.5 s when the guest just waits). read -t on
# a FIFO nobody writes to waits in the kernel instead.
if [ -z "${VM__NAP_FD:-}" ] && mkfifo "/tmp/.vm-nap.$$" 2>/dev/null; then
	exec {VM__NAP_FD}<>"/tmp/.vm-nap.$$"
	rm -f "/tmp/.vm-nap.$$"
fi
vm__nap() {
	if [ -n "${VM__NAP_FD:-}" ]; then
		read -r -t "$1" -u "$VM__NAP_FD" _
	else
		sleep "$1"
	fi
	return 0
}

# Between two checks it pauses twice as long as the check took, 0.1 s to
# 2 s: a check that execs jq takes most of a second under TCG, and checks
# back to back would take most of the guest's one CPU from what they wait
# for (an agent attaching, a plugin registering). All builtins.
vm_wait_until() {
	local timeout=$1 deadline t0 nap
	shift
	deadline=$((SECONDS + timeout))
	while :; do
		t0=${EPOCHREALTIME/./}
		"$@" && return 0
		if [ $SECONDS -ge $deadline ]; then
			return 1
		fi
		nap=$((2 * (${EPOCHREALTIME/./} - t0)))
		nap=$((nap < 100000 ? 100000 : nap > 2000000 ? 2000000 : nap))
		vm__nap "$((nap / 1000000)).$(printf '%06d' $((nap % 1000000)))"
	done
}

vm__all_reached() {
	local name=$1 n
	for n in $VM_NODES; do
		[ -f "$VM_RUN/sync/$name.$n" ] || return 1
	done
}

# Poll step for waits on the other node: true when CMD is, and also (with
# VM_GAVE_UP set) when the other node has finished without making it true.
vm__until_peer_gone() {
	"$@" && return 0
	vm__peers_done >/dev/null || return 1
	"$@" && return 0
	VM_GAVE_UP=1
}

# Wait for CMD to become true through the other node's doing.
vm__wait_peer_does() {
	local timeout=$1
	shift
	VM_GAVE_UP=
	vm_wait_until "$timeout" vm__until_peer_gone "$@" && [ -z "$VM_GAVE_UP" ]
}

vm_barrier() {
	local name=$1 timeout=${2:-60}
	touch "$VM_RUN/sync/$name.$VM_NODE"
	vm__wait_peer_does "$timeout" vm__all_reached "$name" && return 0
	if [ -n "$VM_GAVE_UP" ]; then
		echo "vm_barrier $name: $(vm__peers_done) finished without reaching it" >&2
	else
		echo "vm_barrier $name: not every node of '$VM_NODES' arrived in ${timeout}s" >&2
	fi
	return 1
}

vm_put() {
	local key=$1 value=$2
	printf '%s\n' "$value" >"$VM_SHARED/.$key.$VM_NODE.tmp" &&
		mv "$VM_SHARED/.$key.$VM_NODE.tmp" "$VM_SHARED/$key"
}

vm_get() {
	local key=$1 timeout=${2:-60}
	if ! vm__wait_peer_does "$timeout" test -f "$VM_SHARED/$key"; then
		echo "vm_get $key: nobody published it in ${timeout}s" >&2
		return 1
	fi
	cat "$VM_SHARED/$key"
}

vm__listening() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

vm_wait_listen() {
	local port=$1 timeout=${2:-60}
	vm_wait_until "$timeout" vm__listening "$port" && return 0
	echo "vm_wait_listen: nothing listens on TCP port $port after ${timeout}s" >&2
	return 1
}

vm_wait_peer() {
	local timeout=${1:-60}
	# busybox's ping: busybox-static is a testbed dependency, iputils-ping is not
	vm_wait_until "$timeout" busybox ping -c 1 -W 1 -q "$VM_PEER_IP" >/dev/null 2>&1 && return 0
	echo "vm_wait_peer: $VM_PEER ($VM_PEER_IP) does not answer ping after ${timeout}s" >&2
	return 1
}

# Packets in a capture file tcpdump is still writing (-U: whole packets).
vm__capture_count() {
	tcpdump -r "$1" -nn 2>/dev/null | wc -l
}

vm__capture_holds() {
	[ "$(vm__capture_count "$1")" -ge "$2" ]
}

vm_capture_start() {
	local file=$1
	shift
	tcpdump -i "$VM_IFACE" -nn -s 128 -B 16384 -U -w "$file" "$@" 2>"$file.err" &
	VM_CAPTURE_PID=$!
	vm_wait_until 30 grep -q 'listening on' "$file.err" && return 0
	echo "vm_capture_start: tcpdump did not start: $(tail -n 1 "$file.err")" >&2
	return 1
}

# vm_capture_stop FILE EXPECTED
# Under TCG tcpdump lags the wire by seconds at perftest rates, so stopping
# waits (bounded) until the capture holds EXPECTED packets, the count the
# senders' own counters report (rxe sent_pkts), then checks it holds exactly
# that many and that the kernel dropped none; a mismatch prints both numbers.
vm_capture_stop() {
	local file=$1 want=$2 got
	case $want in
	'' | *[!0-9]*) echo "vm_capture_stop: EXPECTED must be a packet count, got '$want'" >&2; return 2 ;;
	esac
	vm_wait_until 120 vm__capture_holds "$file" "$want"
	kill -INT "$VM_CAPTURE_PID"
	wait "$VM_CAPTURE_PID"
	cp "$file" "$file.err" "$VM_OUT/"
	got=$(vm__capture_count "$file")
	if [ "$got" != "$want" ]; then
		echo "vm_capture_stop: $(basename "$file") holds $got packets, the senders report $want" >&2
		return 1
	fi
	grep -q '^0 packets dropped by kernel' "$file.err" && return 0
	echo "vm_capture_stop: $(grep 'dropped by kernel' "$file.err")" >&2
	return 1
}

# rxe's count of one of its hardware counters (sent_pkts, rcvd_pkts, ...)
vm_rxe_stat() {
	rdma -j statistic show link "$VM_RXE/1" | jq -r ".[0].$1"
}

vm_gid_index() {
	local ip=${1:-$VM_IP} dev=${2:-$VM_RXE} want a b c d f i
	IFS=. read -r a b c d <<<"$ip"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	for f in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
		i=${f##*/}
		[ "$(cat "$f")" = "$want" ] || continue
		[ "$(cat "/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i" 2>/dev/null)" = \
			"RoCE v2" ] && { echo "$i"; return 0; }
	done
	echo "vm_gid_index: no RoCE v2 GID for $ip on $dev" >&2
	return 1
}

# shellcheck shell=bash
# A throwaway etcd cluster on loopback (etcd-server from Debian), for the
# IPAM tests and benchmarks. Source it, then:
#   etcd_cluster_start DIR N [TLS_DIR]  N members, random free ports, data
#                                       under DIR; sets ETCD_URLS (a,b,c),
#                                       ETCD_ENDPOINTS_JSON ("a","b","c")
#   etcd_member_kill I [SIGNAL]         stop member I (1-based), SIGKILL default
#   etcd_member_start I                 (re)start member I on its data dir
#   etcd_leader                         index of the current leader
#   etcd_requests [METHOD]              KV and lease requests the running
#                                       members have handled, summed (only
#                                       METHOD's: Range, Txn, ...)
#   etcd_wait_healthy [SECONDS]         until every running member answers
#   etcd_cluster_stop                   kill every member (also on EXIT: add
#                                       it to your trap)
#   etcd_test_cluster NAME              for a TAP test: DIR (a new /tmp dir),
#                                       a 3-member cluster in it, everything
#                                       (members, background jobs, DIR) gone
#                                       on EXIT; a cluster that does not start
#                                       is a failed test
# With TLS_DIR (holding ca.pem, server.pem, server-key.pem) clients talk
# https and must present a certificate signed by ca.pem; with
# ETCD_PEER_TLS=1 the members between them too.

ETCD_PIDS=()
ETCD_CLIENT_PORTS=()
ETCD_PEER_PORTS=()
ETCD_DIR=
ETCD_TLS_DIR=
ETCD_CLUSTER=
ETCD_TOKEN=

# A port nothing uses and that we have not handed out yet, below the
# kernel's ephemeral range (outgoing connections take ports there too).
etcd_free_port() {
	local p used lo
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range
	[ "${lo:-0}" -gt 12000 ] || lo=32768
	used=$(ss -tanH 2>/dev/null | awk '{print $4}' | sed 's/.*://')
	while :; do
		p=$((10000 + RANDOM % (lo - 10000)))
		grep -qx "$p" <<<"$used" && continue
		[[ " ${ETCD_CLIENT_PORTS[*]} ${ETCD_PEER_PORTS[*]} " == *" $p "* ]] && continue
		echo "$p"
		return
	done
}

etcd_scheme() { [ -n "$ETCD_TLS_DIR" ] && echo https || echo http; }
# ETCD_PEER_TLS=1 (with TLS_DIR): members talk to each other over TLS too,
# presenting server.pem and requiring a peer certificate of the CA
etcd_peer_scheme() { [ -n "$ETCD_TLS_DIR" ] && [ "${ETCD_PEER_TLS:-0}" = 1 ] && echo https || echo http; }

etcd_member_start() {
	local i=$1 idx=$(($1 - 1)) scheme tls=()
	scheme=$(etcd_scheme)
	if [ -n "$ETCD_TLS_DIR" ]; then
		tls=(--cert-file "$ETCD_TLS_DIR/server.pem" --key-file "$ETCD_TLS_DIR/server-key.pem"
		     --client-cert-auth --trusted-ca-file "$ETCD_TLS_DIR/ca.pem")
	fi
	if [ "$(etcd_peer_scheme)" = https ]; then
		tls+=(--peer-cert-file "$ETCD_TLS_DIR/server.pem" --peer-key-file "$ETCD_TLS_DIR/server-key.pem"
		      --peer-client-cert-auth --peer-trusted-ca-file "$ETCD_TLS_DIR/ca.pem")
	fi
	etcd --name "m$i" --data-dir "$ETCD_DIR/m$i" \
		--listen-client-urls "$scheme://127.0.0.1:${ETCD_CLIENT_PORTS[$idx]}" \
		--advertise-client-urls "$scheme://127.0.0.1:${ETCD_CLIENT_PORTS[$idx]}" \
		--listen-peer-urls "$(etcd_peer_scheme)://127.0.0.1:${ETCD_PEER_PORTS[$idx]}" \
		--initial-advertise-peer-urls "$(etcd_peer_scheme)://127.0.0.1:${ETCD_PEER_PORTS[$idx]}" \
		--initial-cluster "$ETCD_CLUSTER" --initial-cluster-state new \
		--initial-cluster-token "$ETCD_TOKEN" \
		--heartbeat-interval 50 --election-timeout 500 \
		--logger zap --log-level warn --log-outputs stderr "${tls[@]}" \
		>>"$ETCD_DIR/m$i.log" 2>&1 &
	ETCD_PIDS[$idx]=$!
}

# Starts the cluster; a member that dies at once (a port taken between our
# choice and its bind) makes it start again on other ports.
etcd_cluster_start() {
	local try
	for try in 1 2 3; do
		etcd_cluster_start_once "$@" && return 0
		etcd_cluster_stop
		rm -rf "$1"
	done
	return 1
}

etcd_cluster_start_once() {
	local dir=$1 n=$2 i scheme urls=() json=()
	ETCD_DIR=$dir
	ETCD_TLS_DIR=${3:-}
	ETCD_TOKEN="rn-$$-$RANDOM"
	ETCD_PIDS=() ETCD_CLIENT_PORTS=() ETCD_PEER_PORTS=()
	scheme=$(etcd_scheme)
	mkdir -p "$dir"
	ETCD_CLUSTER=
	for ((i = 1; i <= n; i++)); do
		ETCD_CLIENT_PORTS+=("$(etcd_free_port)")
		ETCD_PEER_PORTS+=("$(etcd_free_port)")
		ETCD_CLUSTER+="${ETCD_CLUSTER:+,}m$i=$(etcd_peer_scheme)://127.0.0.1:${ETCD_PEER_PORTS[$((i - 1))]}"
		urls+=("$scheme://127.0.0.1:${ETCD_CLIENT_PORTS[$((i - 1))]}")
		json+=("\"$scheme://127.0.0.1:${ETCD_CLIENT_PORTS[$((i - 1))]}\"")
	done
	ETCD_URLS=$(IFS=,; echo "${urls[*]}")
	ETCD_ENDPOINTS_JSON=$(IFS=,; echo "${json[*]}")
	for ((i = 1; i <= n; i++)); do
		etcd_member_start "$i"
	done
	sleep 0.5
	for i in "${ETCD_PIDS[@]}"; do
		kill -0 "$i" 2>/dev/null || return 1
	done
	etcd_wait_healthy 30
}

etcd_curl() {
	if [ -n "$ETCD_TLS_DIR" ]; then
		curl -s --max-time 2 --cacert "$ETCD_TLS_DIR/ca.pem" \
			--cert "$ETCD_TLS_DIR/client.pem" --key "$ETCD_TLS_DIR/client-key.pem" "$@"
	else
		curl -s --max-time 2 "$@"
	fi
}

# Every running member reports health (which needs a leader).
etcd_wait_healthy() {
	local deadline=$((SECONDS + ${1:-20})) i ok
	while [ $SECONDS -lt $deadline ]; do
		ok=1
		for i in "${!ETCD_PIDS[@]}"; do
			[ -n "${ETCD_PIDS[$i]}" ] || continue
			etcd_curl "$(etcd_scheme)://127.0.0.1:${ETCD_CLIENT_PORTS[$i]}/health" |
				grep -q '"health":"true"' || ok=0
		done
		[ $ok = 1 ] && return 0
		sleep 0.2
	done
	echo "# etcd did not become healthy; logs:" >&2
	tail -n 5 "$ETCD_DIR"/m*.log | sed 's/^/# /' >&2
	return 1
}

etcd_member_kill() {
	local idx=$(($1 - 1)) pid
	pid=${ETCD_PIDS[$idx]}
	[ -n "$pid" ] || return 0
	kill "-${2:-KILL}" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	ETCD_PIDS[$idx]=
}

# The leader's index (1-based), from each member's status.
etcd_leader() {
	local i st id leader
	for i in "${!ETCD_PIDS[@]}"; do
		[ -n "${ETCD_PIDS[$i]}" ] || continue
		st=$(etcd_curl -X POST -d '{}' \
			"$(etcd_scheme)://127.0.0.1:${ETCD_CLIENT_PORTS[$i]}/v3/maintenance/status")
		id=$(jq -r '.header.member_id' <<<"$st" 2>/dev/null)
		leader=$(jq -r '.leader' <<<"$st" 2>/dev/null)
		if [ -n "$id" ] && [ "$id" = "$leader" ]; then
			echo $((i + 1))
			return 0
		fi
	done
	return 1
}

etcd_cluster_stop() {
	local i
	for i in "${!ETCD_PIDS[@]}"; do
		etcd_member_kill $((i + 1)) KILL
	done
}

# A CA, a server certificate for 127.0.0.1 and a client certificate.
etcd_make_tls() {
	local d=$1
	mkdir -p "$d"
	(
		cd "$d" || exit 1
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=rn-test-ca" \
			-keyout ca-key.pem -out ca.pem 2>/dev/null &&
		openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
			-keyout server-key.pem -out server.csr 2>/dev/null &&
		printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' >server.ext &&
		openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial \
			-days 2 -extfile server.ext -out server.pem 2>/dev/null &&
		openssl req -newkey rsa:2048 -nodes -subj "/CN=rdmanet" \
			-keyout client-key.pem -out client.csr 2>/dev/null &&
		printf 'extendedKeyUsage=clientAuth\n' >client.ext &&
		openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial \
			-days 2 -extfile client.ext -out client.pem 2>/dev/null
	)
}

etcd_test_cleanup() {
	etcd_cluster_stop
	jobs -p | xargs -r kill -KILL 2>/dev/null
	rm -rf "$DIR"
}

etcd_test_cluster() {
	DIR=$(mktemp -d "/tmp/rn-$1-$$-XXXXXX")
	trap etcd_test_cleanup EXIT
	if ! etcd_cluster_start "$DIR/etcd" 3; then
		tap_fail "a 3-member etcd cluster starts on loopback"
		tap_done
	fi
}

# Every running member's handled KV and lease calls, summed (their gRPC
# counters: the JSON gateway calls the member's gRPC server), for counting
# the etcd requests a piece of work made; with METHOD (Range, Txn,
# LeaseGrant...), only those.
etcd_requests() {
	local i sum=0 v
	for i in "${!ETCD_PIDS[@]}"; do
		[ -n "${ETCD_PIDS[$i]}" ] || continue
		v=$(etcd_curl "$(etcd_scheme)://127.0.0.1:${ETCD_CLIENT_PORTS[$i]}/metrics" |
			awk -v m="${1:-}" '/^grpc_server_handled_total\{.*grpc_service="etcdserverpb\.(KV|Lease)"/ &&
			(m == "" || index($0, "grpc_method=\"" m "\"")) { s += $2 } END { printf "%d", s }')
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}

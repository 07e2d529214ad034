# shellcheck shell=bash
# An API-server stand-in (apiserver_standin.py) for a test, on loopback:
#   standin_start DIR   certificates in DIR (a cluster CA and the server's
#                       for 127.0.0.1; a node's client certificate, a
#                       foreign CA), the server with token "token-one",
#                       requests logged to DIR/requests.log; sets
#                       STANDIN_PORT, STANDIN_PID. Returns 1 if it cannot.
#                       STANDIN_RUN: a command to run it under (e.g.
#                       "nsenter --net=/run/netns/NODE": the loopback of
#                       the netns the agent runs in)
#   standin_kubeconfig DIR FILE [CA]   a kubeconfig for the server on
#                       STANDIN_PORT (token-one), trusting CA (default
#                       DIR/cluster-ca.pem)
#   standin_stop
#   standin_restart DIR   after standin_stop: the server again, on the same
#                       port with the same certificates (an API server that
#                       was down and is up again; what it stored is gone)
STANDIN_PID=

standin__ossl() { openssl "$@" >/dev/null 2>&1; }
standin__ca() {	# DIR NAME
	standin__ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj "/CN=$2" -keyout "$1/$2-key.pem" -out "$1/$2.pem"
}
standin__cert() {	# DIR NAME CA EXT
	standin__ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$2" \
		-keyout "$1/$2-key.pem" -out "$1/$2.csr" &&
	standin__ossl x509 -req -in "$1/$2.csr" -CA "$1/$3.pem" -CAkey "$1/$3-key.pem" \
		-CAcreateserial -days 2 -extfile <(echo "$4") -out "$1/$2.pem"
}

standin_start() {
	local dir=$1
	standin__ca "$dir" cluster-ca && standin__ca "$dir" foreign-ca &&
		standin__cert "$dir" apiserver cluster-ca "subjectAltName=IP:127.0.0.1,DNS:localhost" &&
		standin__cert "$dir" system:node:n1 cluster-ca "extendedKeyUsage=clientAuth" || return 1
	echo token-one >"$dir/tokens"
	standin__run "$dir" 0
}

standin__run() {	# DIR PORT (0: any)
	local dir=$1
	rm -f "$dir/port"
	${STANDIN_RUN:-} python3 "$RN_SRC/selftests/kubeapi/apiserver_standin.py" --port-file "$dir/port" \
		--port "$2" --cert "$dir/apiserver.pem" --key "$dir/apiserver-key.pem" \
		--client-ca "$dir/cluster-ca.pem" --token-file "$dir/tokens" \
		--log "$dir/requests.log" --fail-once-file "$dir/fail-once" 2>>"$dir/standin.err" &
	STANDIN_PID=$!
	for _ in $(seq 100); do [ -s "$dir/port" ] && break; sleep 0.1; done
	STANDIN_PORT=$(cat "$dir/port" 2>/dev/null)
	[ -n "$STANDIN_PORT" ]
}

standin_restart() { standin__run "$1" "$STANDIN_PORT"; }

standin_kubeconfig() {
	cat >"$2" <<YAML
apiVersion: v1
kind: Config
current-context: node
clusters:
- name: standin
  cluster: { server: "https://127.0.0.1:$STANDIN_PORT", certificate-authority: "${3:-$1/cluster-ca.pem}" }
contexts:
- name: node
  context: { cluster: standin, user: node }
users:
- name: node
  user: { token: token-one }
YAML
}

standin_stop() {
	[ -n "$STANDIN_PID" ] && kill "$STANDIN_PID" 2>/dev/null && wait "$STANDIN_PID" 2>/dev/null
	STANDIN_PID=
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Kubernetes API client's HTTP/1.1 and TLS (user/lib/kubeapi/kube_http.c,
# kube_tls.c) against servers that misbehave in one way each
# (odd_server.py): a cluster CA that is an intermediate (the bundle's
# certificate is the anchor, as Go's client and libcurl take it); an answer
# trickled across the client's 10 s deadline (one deadline for the whole
# request, not one per read); a server that takes a request and dies before
# answering (a POST is not sent twice, a GET is sent again on a new
# connection); an unasked 408 on an idle kept-alive connection (never read
# as the next request's answer).
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/kubeapi/lib/standin.sh"

command -v openssl >/dev/null || tap_skip_all "openssl is not installed"
command -v python3 >/dev/null || tap_skip_all "python3 is not installed (make deps)"
REQ=$RN_BUILD/tools/kube_request
DIR=$(mktemp -d /tmp/rn-kubehttp-$$-XXXXXX)
SRV=
stop() { [ -z "$SRV" ] || { kill "$SRV" 2>/dev/null; wait "$SRV" 2>/dev/null; }; SRV=; }
trap 'stop; rm -rf "$DIR"' EXIT

# root -> intermediate (a CA) -> the server's certificate (127.0.0.1)
standin__ca "$DIR" root && standin__ca "$DIR" foreign &&
	standin__cert "$DIR" inter root "basicConstraints=critical,CA:TRUE" &&
	standin__cert "$DIR" server inter "subjectAltName=IP:127.0.0.1" &&
	cat "$DIR/server.pem" "$DIR/inter.pem" >"$DIR/chain.pem" ||
	tap_skip_all "openssl could not make the certificates"
echo '{}' >"$DIR/body.json"

# serve MODE: the server up, $PORT its port, $DIR/log its requests
serve() {
	stop
	rm -f "$DIR/port" "$DIR/log"
	python3 "$RN_SRC/selftests/kubeapi/odd_server.py" "$1" "$DIR/chain.pem" "$DIR/server-key.pem" \
		"$DIR/port" "$DIR/log" 2>"$DIR/server.err" &
	SRV=$!
	for _ in $(seq 50); do [ -s "$DIR/port" ] && break; sleep 0.1; done
	PORT=$(cat "$DIR/port")
}
# kubeconfig CA: a kubeconfig for the server, trusting the CA file
kubeconfig() { STANDIN_PORT=$PORT standin_kubeconfig "$DIR" "$DIR/kubeconfig" "$1"; }
one() { "$REQ" --kubeconfig "$DIR/kubeconfig" "$@" 2>&1 | head -1; }
errno_of() { grep -oE '\(E[A-Z]+\)$' <<<"$1" | tr -d '()'; }

serve serve
kubeconfig "$DIR/inter.pem"
check_eq "a CA bundle holding only the intermediate: verified (partial chain)" "$(one GET /version)" 200
kubeconfig "$DIR/root.pem"
check_eq "the root CA: verified through the intermediate the server sends" "$(one GET /version)" 200
kubeconfig "$DIR/foreign.pem"
out=$("$REQ" --kubeconfig "$DIR/kubeconfig" GET /version 2>&1)
check_eq "a CA that signed neither: refused (EPROTO)" "$(errno_of "$out")" EPROTO
check "... the message says why" grep -q "the server's certificate: unable to get local issuer certificate" <<<"$out"

serve trickle
kubeconfig "$DIR/root.pem"
out=$("$REQ" --kubeconfig "$DIR/kubeconfig" GET /version 2>&1)
check_eq "an answer trickled over 12 s (each piece within 10 s): ETIMEDOUT at the deadline" \
	"$(errno_of "$out")" ETIMEDOUT
check "... said as no answer in time" grep -q "no answer in time" <<<"$out"

serve dies
kubeconfig "$DIR/root.pem"
out=$(printf 'POST /a %s\nPOST /b %s\nGET /c\n' "$DIR/body.json" "$DIR/body.json" |
	"$REQ" --kubeconfig "$DIR/kubeconfig" - 2>&1 | tr '\n' ' ')
check_eq "a server that takes a POST and dies: the POST fails (EPROTO), the next request works" \
	"$out" "201 error EPROTO 200 "
check_eq "... the POST reached the server once, never sent again" \
	"$(cut -d' ' -f2- "$DIR/log" | tr '\n' ',')" "POST /a HTTP/1.1,POST /b HTTP/1.1,GET /c HTTP/1.1,"
serve dies
kubeconfig "$DIR/root.pem"
out=$(printf 'GET /a\nGET /b\n' | "$REQ" --kubeconfig "$DIR/kubeconfig" - 2>&1 | tr '\n' ' ')
check_eq "... the same with a GET: sent again on a new connection, answered" "$out" "200 200 "
check_eq "... the server saw the GET twice" \
	"$(cut -d' ' -f2- "$DIR/log" | tr '\n' ',')" "GET /a HTTP/1.1,GET /b HTTP/1.1,GET /b HTTP/1.1,"

serve unasked
kubeconfig "$DIR/root.pem"
out=$({ echo "GET /a"; sleep 1; echo "GET /b"; } | "$REQ" --kubeconfig "$DIR/kubeconfig" - 2>&1 |
	tr '\n' ' ')
check_eq "an unasked 408 on the idle connection: not the next answer (a new connection)" \
	"$out" "200 200 "
check_eq "... both requests reached the server" "$(wc -l <"$DIR/log")" 2
tap_done

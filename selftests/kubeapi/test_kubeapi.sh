#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Kubernetes API client (user/lib/kubeapi) against an API-server
# stand-in (apiserver_standin.py: HTTPS, tokens and client certificates,
# the API conventions' Status answers and resourceVersion concurrency;
# no real API server runs here): kubeconfigs in YAML and JSON with files
# relative to the kubeconfig and inline *-data, the in-cluster
# configuration from the service account's files in a mount namespace,
# a rotated token picked up by a running client, each status mapped to
# its errno, and bad kubeconfigs refused with a message that says why.
set -u
. "$RN_SRC/selftests/lib/tap.sh"

command -v openssl >/dev/null || tap_skip_all "openssl is not installed"
command -v python3 >/dev/null || tap_skip_all "python3 is not installed (make deps)"
REQ=$RN_BUILD/tools/kube_request
. "$RN_SRC/selftests/kubeapi/lib/standin.sh"
DIR=$(mktemp -d /tmp/rn-kubeapi-$$-XXXXXX)
trap 'standin_stop; rm -rf "$DIR"' EXIT

if ! standin_start "$DIR"; then
	tap_fail "the API-server stand-in starts: $(cat "$DIR/standin.err" 2>/dev/null)"
	tap_done
fi
PORT=$STANDIN_PORT
tap_ok "the API-server stand-in listens on 127.0.0.1:$PORT (openssl made its certificates)"

# req ARGS...: RC, OUT (status line), BODY (the JSON line), ERR (stderr)
req() {
	local o
	o=$("$REQ" "$@" 2>"$DIR/err")
	RC=$?
	OUT=$(echo "$o" | head -1) BODY=$(echo "$o" | sed -n 2p) ERR=$(cat "$DIR/err")
}
errno_of() { grep -oE '\(E[A-Z]+\)$' <<<"$ERR" | tr -d '()'; }

# --- a YAML kubeconfig: CA file relative to the kubeconfig, a token
mkdir -p "$DIR/kube/certs"
cp "$DIR/cluster-ca.pem" "$DIR/kube/certs/ca.pem"
cat >"$DIR/kube/config" <<YAML
apiVersion: v1
kind: Config
current-context: test
clusters:
- name: other
  cluster: { server: "https://127.0.0.1:1" }
- name: standin
  cluster:
    server: https://127.0.0.1:$PORT/
    certificate-authority: certs/ca.pem
contexts:
- name: test
  context: { cluster: standin, user: node }
- name: wrong-token
  context: { cluster: standin, user: stranger }
users:
- name: node
  user:
    token: token-one
- name: stranger
  user:
    token: not-a-token
YAML
req --kubeconfig "$DIR/kube/config" GET /version
check_eq "a YAML kubeconfig (its current-context, a CA file relative to it, a token): GET /version" \
	"$RC:$OUT" 0:200
check_eq "... the answer's JSON is read" "$(jq -r .gitVersion <<<"$BODY")" v1.34.0-standin
req --kubeconfig "$DIR/kube/config" --context wrong-token GET /version
check_eq "another context (--context), a token the server does not know: 401, EACCES, exit 1" \
	"$RC:$OUT:$(errno_of)" "1:401:EACCES"

# --- a JSON kubeconfig with inline data: the CA and a client certificate
b64() { base64 -w0 "$1"; }
cat >"$DIR/kube.json" <<JSON
{ "apiVersion": "v1", "kind": "Config", "current-context": "mtls",
  "clusters": [ { "name": "c", "cluster": { "server": "https://localhost:$PORT",
      "certificate-authority-data": "$(b64 "$DIR/cluster-ca.pem")" } } ],
  "contexts": [ { "name": "mtls", "context": { "cluster": "c", "user": "n1" } } ],
  "users": [ { "name": "n1", "user": {
      "client-certificate-data": "$(b64 "$DIR/system:node:n1.pem")",
      "client-key-data": "$(b64 "$DIR/system:node:n1-key.pem")" } } ] }
JSON
req --kubeconfig "$DIR/kube.json" GET /version
check_eq "a JSON kubeconfig, CA and client certificate inline (*-data): GET /version" "$RC:$OUT" 0:200
check "... the server saw the client certificate's name" \
	grep -q '"user": "cert:system:node:n1"' "$DIR/requests.log"
KUBECONFIG=/nonexistent-first-is-used:$DIR/kube.json "$REQ" GET /version >/dev/null 2>"$DIR/err"
check "\$KUBECONFIG: its first file is the one read" grep -q "kubeconfig /nonexistent-first-is-used" "$DIR/err"
KUBECONFIG=$DIR/kube.json:/nonexistent "$REQ" GET /version >/dev/null 2>&1
check_eq "... and used when given" "$?" 0

# --- a server whose certificate is not signed by the kubeconfig's CA
sed "s#certs/ca.pem#$DIR/foreign-ca.pem#" "$DIR/kube/config" >"$DIR/foreign.yaml"
req --kubeconfig "$DIR/foreign.yaml" GET /version
check_eq "a server certificate from another CA: refused before any request (EPROTO, exit 2)" \
	"$RC:$(errno_of)" "2:EPROTO"
check "... the message names the server" grep -q "https://127.0.0.1:$PORT/version" <<<"$ERR"

# --- the REST semantics: each status mapped, the Status message carried
K=(--kubeconfig "$DIR/kube/config")
RS=/apis/resource.k8s.io/v1/resourceslices
cat >"$DIR/slice.json" <<'JSON'
{ "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
  "metadata": { "name": "n1-rdma.rdmanet.io-0" },
  "spec": { "driver": "rdma.rdmanet.io", "nodeName": "n1",
            "pool": { "name": "n1", "generation": 1, "resourceSliceCount": 1 } } }
JSON
req "${K[@]}" POST "$RS" "$DIR/slice.json"
check_eq "POST creates: 201" "$RC:$OUT" "0:201"
rv=$(jq -r .metadata.resourceVersion <<<"$BODY")
req "${K[@]}" POST "$RS" "$DIR/slice.json"
check_eq "POST of a name that exists: 409 AlreadyExists -> EEXIST" "$RC:$OUT:$(errno_of)" "1:409:EEXIST"
check "... the Status message is in the error" grep -q 'already exists' <<<"$ERR"
jq --arg rv "$rv" '.metadata.resourceVersion = $rv | .spec.pool.generation = 2' "$DIR/slice.json" >"$DIR/v2.json"
req "${K[@]}" PUT "$RS/n1-rdma.rdmanet.io-0" "$DIR/v2.json"
check_eq "PUT with the current resourceVersion: 200" "$RC:$OUT" "0:200"
req "${K[@]}" PUT "$RS/n1-rdma.rdmanet.io-0" "$DIR/v2.json"
check_eq "PUT with a stale resourceVersion: 409 Conflict -> ESTALE, exit 1" "$RC:$OUT:$(errno_of)" "1:409:ESTALE"
echo '{ "spec": { "pool": { "generation": 3 } } }' >"$DIR/patch.json"
req "${K[@]}" PATCH "$RS/n1-rdma.rdmanet.io-0" "$DIR/patch.json"
check_eq "PATCH: a merge patch (200), sent as application/merge-patch+json" \
	"$OUT:$(jq .spec.pool.generation <<<"$BODY"):$(grep '"PATCH"' "$DIR/requests.log" | jq -r .content_type)" \
	"200:3:application/merge-patch+json"
jq '.metadata.name = "Not_A_Name"' "$DIR/slice.json" >"$DIR/bad.json"
req "${K[@]}" POST "$RS" "$DIR/bad.json"
check_eq "an invalid object: 422 Invalid -> EINVAL" "$RC:$OUT:$(errno_of)" "1:422:EINVAL"
req "${K[@]}" DELETE "$RS/n1-rdma.rdmanet.io-0"
check_eq "DELETE: 200" "$RC:$OUT" "0:200"
req "${K[@]}" GET "$RS/n1-rdma.rdmanet.io-0"
check_eq "GET of what is gone: 404 -> ENOENT" "$RC:$OUT:$(errno_of)" "1:404:ENOENT"

# --- in the cluster: the service account's files and the Service's environment.
# A mount namespace with its own /run (so /var/run) holds them at their
# standard path; nothing of this machine's /run is touched.
incluster() {	# incluster CMD...: run with the pod's view
	unshare -m --propagation private bash -c '
		mount -t tmpfs tmpfs /run &&
		mkdir -p /run/secrets/kubernetes.io/serviceaccount &&
		cp "$0/cluster-ca.pem" /run/secrets/kubernetes.io/serviceaccount/ca.crt &&
		echo token-one >/run/secrets/kubernetes.io/serviceaccount/token &&
		shift && exec "$@"' "$DIR" - "$@"
}
out=$(incluster env KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$PORT \
	"$REQ" GET /version 2>/dev/null | head -1)
check_eq "in the cluster: token and CA under /var/run/secrets/kubernetes.io/serviceaccount, KUBERNETES_SERVICE_HOST/_PORT" \
	"$out" 200
out=$(env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST "$REQ" GET /version 2>&1 >/dev/null)
check_eq "no kubeconfig and not in a cluster: said, exit 2" \
	"$(env -u KUBECONFIG -u KUBERNETES_SERVICE_HOST "$REQ" GET /version >/dev/null 2>&1; echo $?):$(grep -c 'not in a cluster (KUBERNETES_SERVICE_HOST/_PORT unset)' <<<"$out")" "2:1"

# a running client picks up a rotated token (bound service account tokens
# expire; kubelet rewrites the file): the old one stops working at the server
echo token-two >>"$DIR/tokens"
out=$(incluster env KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$PORT \
	bash -c '
	coproc R { "$0" -; }
	echo "GET /version" >&"${R[1]}"; read -r a <&"${R[0]}"
	sed -i s/token-one/token-two/ "$1"
	sed -i /token-one/d "$2"
	echo "GET /version" >&"${R[1]}"; read -r b <&"${R[0]}"
	echo "$a $b"' "$REQ" /run/secrets/kubernetes.io/serviceaccount/token "$DIR/tokens" 2>&1)
check_eq "a rotated token file is read again by a running client (before, after)" "$out" "200 200"

# --- bad kubeconfigs: refused with what is wrong
bad() {	# bad WHAT EXPECTED-SUBSTRING YAML
	printf '%s\n' "$3" >"$DIR/bad.yaml"
	out=$("$REQ" --kubeconfig "$DIR/bad.yaml" GET /version 2>&1)
	if [ $? = 2 ] && grep -qF -- "$2" <<<"$out"; then tap_ok "$1"; else tap_fail "$1: got '$out'"; fi
}
bad "a YAML syntax error: the file and the lines are named" "kubeconfig $DIR/bad.yaml: line 4 column 1: did not find expected ',' or ']' (while parsing a flow sequence at line 3)" $'current-context: a\nclusters:\n  - name: [unclosed'
bad "no current-context and no --context" "no current-context" 'clusters: []'
bad "a context that does not exist" 'no context "a"' 'current-context: a'
bad "a context whose cluster does not exist" 'names no cluster that exists ("nope")' \
	$'current-context: a\ncontexts:\n- {name: a, context: {cluster: nope}}'
bad "a server that is not an http(s) URL" 'is not an http(s) URL' \
	$'current-context: a\ncontexts:\n- {name: a, context: {cluster: c}}\nclusters:\n- {name: c, cluster: {server: "ftp://x"}}'
bad "an exec credential plugin: refused by name (not run)" 'credential plugin (exec/auth-provider)' \
	$'current-context: a\ncontexts:\n- {name: a, context: {cluster: c, user: u}}\nclusters:\n- {name: c, cluster: {server: "https://127.0.0.1:1"}}\nusers:\n- {name: u, user: {exec: {command: aws}}}'
bad "a client certificate without its key" 'without its key' \
	$'current-context: a\ncontexts:\n- {name: a, context: {cluster: c, user: u}}\nclusters:\n- {name: c, cluster: {server: "https://127.0.0.1:1"}}\nusers:\n- {name: u, user: {client-certificate: x.pem}}'
bad "invalid base64 in *-data" 'certificate-authority-data is not valid base64' \
	$'current-context: a\ncontexts:\n- {name: a, context: {cluster: c}}\nclusters:\n- {name: c, cluster: {server: "https://127.0.0.1:1", certificate-authority-data: "%%%"}}'
bad "a tokenFile that does not exist" 'No such file or directory' \
	$'current-context: a\ncontexts:\n- {name: a, context: {cluster: c, user: u}}\nclusters:\n- {name: c, cluster: {server: "https://127.0.0.1:1"}}\nusers:\n- {name: u, user: {tokenFile: missing-token}}'
{ echo 'a: &a [x, x, x, x, x, x, x, x, x, x]'
  prev=a
  for l in b c d e f g h i; do
	echo "$l: &$l [$(printf "*$prev, %.0s" 1 2 3 4 5 6 7 8 9) *$prev]"
	prev=$l
  done
} >"$DIR/laughs.yaml"
req --kubeconfig "$DIR/laughs.yaml" GET /version
check_eq "aliases that expand to 10^9 values (billion laughs): refused, bounded" \
	"$RC:$(grep -c 'more than 100000 values' <<<"$ERR")" "2:1"
req --kubeconfig "$DIR" GET /version
check_eq "a directory given as kubeconfig: exit 2, said" "$RC:$ERR" "2:kubeconfig $DIR: Is a directory (EISDIR)"

# --- a server that is not there
standin_stop
req "${K[@]}" GET /version
check_eq "the API server is down: ECONNREFUSED, exit 2" "$RC:$(errno_of)" "2:ECONNREFUSED"
tap_done

# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The test cluster's certificates and kubeconfigs, made with openssl as
# kubeadm's "certs" and "kubeconfig" phases lay them out: one CA for the API
# server, its clients and the kubelets; the service-account key pair.
#
#   pki_init DIR APISERVER_IP            CA, API server serving cert, SA keys
#   pki_client DIR NAME CN [O]           DIR/NAME.{crt,key} signed by the CA
#   pki_kubeconfig DIR NAME SERVER OUT   a kubeconfig for DIR/NAME.{crt,key}

pki_sign() {	# pki_sign DIR NAME SUBJECT EXTFILE
	local d=$1 n=$2
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$d/$n.key" -subj "$3" -out "$d/$n.csr" 2>/dev/null &&
		openssl x509 -req -in "$d/$n.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" \
			-CAcreateserial -days 30 -extfile "$4" -out "$d/$n.crt" 2>/dev/null &&
		rm -f "$d/$n.csr"
}

pki_init() {
	local d=$1 ip=$2
	mkdir -p "$d" && chmod 700 "$d" || return 1
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$d/ca.key" -out "$d/ca.crt" -days 30 -subj "/CN=rdmanet-test-cluster-ca" \
		-addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" 2>/dev/null || return 1
	cat >"$d/apiserver.ext" <<EXT
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:$ip,IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
EXT
	pki_sign "$d" apiserver "/CN=kube-apiserver" "$d/apiserver.ext" || return 1
	openssl genrsa -out "$d/sa.key" 2048 2>/dev/null &&
		openssl rsa -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
}

pki_client() {
	local d=$1 n=$2 subj="/CN=$3"
	[ -n "${4:-}" ] && subj="/O=$4$subj"
	printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
		"extendedKeyUsage=clientAuth" >"$d/client.ext"
	pki_sign "$d" "$n" "$subj" "$d/client.ext"
}

pki_kubeconfig() {
	local d=$1 n=$2 server=$3 out=$4
	cat >"$out" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: { server: "$server", certificate-authority: "$d/ca.crt" }
users:
- name: $n
  user: { client-certificate: "$d/$n.crt", client-key: "$d/$n.key" }
contexts:
- name: $n@test
  context: { cluster: test, user: $n }
current-context: $n@test
YAML
}

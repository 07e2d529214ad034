#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Certificates for rdmanet's etcd (deploy/etcd) and its clients, made with
# openssl, and the two Secrets the manifests mount:
#   rdmanet-etcd-server  ca.pem server.pem server-key.pem   (the members:
#                        client and peer TLS, names of every member)
#   rdmanet-etcd-client  ca.pem client.pem client-key.pem   (the rdmanet
#                        agents; the rails-8 overlay copies them to each
#                        host's /var/lib/rdmanet/etcd-tls for the CNI plugin)
#
#   gen-certs.sh [--dir DIR] [--namespace NS] [--domain DOMAIN]
#                [--san NAME_OR_IP]... [--days N] [--apply]
#
# DIR (default ./rdmanet-etcd-certs) keeps the CA key: keep it safe, it
# signs the next certificates. Existing files in DIR are kept (run again
# with --apply after a cluster rebuild; delete DIR's server/client files to
# renew them with the same CA). --san adds a name or IP to the server
# certificate (the rdmanet-etcd-client Service's ClusterIP when the hosts
# use it instead of DNS names). Without --apply the kubectl commands are
# printed, not run.
set -eu

dir=./rdmanet-etcd-certs
ns=rdmanet-system
domain=cluster.local
days=825
apply=0
extra=
while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=$2; shift 2 ;;
	--namespace) ns=$2; shift 2 ;;
	--domain) domain=$2; shift 2 ;;
	--days) days=$2; shift 2 ;;
	--san) extra="$extra $2"; shift 2 ;;
	--apply) apply=1; shift ;;
	-h|--help) sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "gen-certs.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
	esac
done
command -v openssl >/dev/null || { echo "gen-certs.sh: needs openssl" >&2; exit 1; }
umask 077
mkdir -p "$dir"

# every name a client or peer may use for a member: the headless Service's
# per-member names with and without the cluster domain, the Services, and
# loopback (etcdctl inside a member's pod)
sans="DNS:localhost,IP:127.0.0.1"
for i in 0 1 2; do
	sans="$sans,DNS:rdmanet-etcd-$i.rdmanet-etcd.$ns.svc"
	sans="$sans,DNS:rdmanet-etcd-$i.rdmanet-etcd.$ns.svc.$domain"
done
for s in rdmanet-etcd rdmanet-etcd-client; do
	sans="$sans,DNS:$s.$ns.svc,DNS:$s.$ns.svc.$domain"
done
for s in $extra; do
	case $s in
	*[!0-9.:a-fA-F]*) sans="$sans,DNS:$s" ;;
	*) sans="$sans,IP:$s" ;;
	esac
done

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

if [ ! -s "$dir/ca.pem" ]; then
	key "$dir/ca-key.pem"
	openssl req -x509 -new -key "$dir/ca-key.pem" -out "$dir/ca.pem" -days 3650 \
		-subj "/CN=rdmanet-etcd-ca" \
		-addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign"
fi

# sign NAME CN EKU [SANS]
sign() {
	[ -s "$dir/$1.pem" ] && return 0
	key "$dir/$1-key.pem"
	openssl req -new -key "$dir/$1-key.pem" -subj "/CN=$2" -out "$dir/$1.csr"
	{
		echo "basicConstraints=critical,CA:FALSE"
		echo "keyUsage=critical,digitalSignature,keyEncipherment"
		echo "extendedKeyUsage=$3"
		[ -z "${4:-}" ] || echo "subjectAltName=$4"
	} >"$dir/$1.ext"
	openssl x509 -req -in "$dir/$1.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca-key.pem" \
		-CAcreateserial -days "$days" -extfile "$dir/$1.ext" -out "$dir/$1.pem" 2>/dev/null
	rm -f "$dir/$1.csr" "$dir/$1.ext"
}
# the members present server.pem to clients and to each other (as client
# and as server on the peer port): both usages
sign server rdmanet-etcd serverAuth,clientAuth "$sans"
sign client rdmanet-agent clientAuth
openssl verify -CAfile "$dir/ca.pem" "$dir/server.pem" "$dir/client.pem" >/dev/null

secret() {	# NAME FILE...
	name=$1
	shift
	for f in "$@"; do
		set -- "$@" "--from-file=$f=$dir/$f"
		shift
	done
	echo "kubectl -n $ns create secret generic $name $* --dry-run=client -o yaml | kubectl apply -f -"
	if [ $apply = 1 ]; then
		kubectl -n "$ns" create secret generic "$name" "$@" --dry-run=client -o yaml |
			kubectl apply -f -
	fi
}
[ $apply = 1 ] || echo "# run these (or gen-certs.sh --apply):"
secret rdmanet-etcd-server ca.pem server.pem server-key.pem
secret rdmanet-etcd-client ca.pem client.pem client-key.pem

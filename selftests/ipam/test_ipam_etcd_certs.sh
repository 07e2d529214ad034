#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The certificates deploy/etcd/gen-certs.sh makes work as the manifests use
# them, against a real 3-member etcd on loopback: the members talk to each
# other over TLS with server.pem (--peer-client-cert-auth), and the agent,
# with the rails-8 overlay's config (its ipam.tls, a block pool), allocates
# over https with client.pem; a client certificate of another CA is
# refused; a second run keeps the CA and the certificates.
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/ipam/lib/etcd_cluster.sh"

command -v etcd >/dev/null || tap_skip_all "etcd-server is not installed (make deps)"
command -v openssl >/dev/null || tap_skip_all "openssl is not installed"
DIR=$(mktemp -d /tmp/rn-ipam-certs-$$-XXXXXX)
trap etcd_test_cleanup EXIT
GEN=$RN_SRC/deploy/etcd/gen-certs.sh
CTL=$RN_BUILD/bin/rdmanetctl

out=$("$GEN" --dir "$DIR/tls" 2>&1)
check_eq "gen-certs.sh makes the CA, server and client certificates" "$?" 0
check_eq "... the keys are readable by their owner only" \
	"$(stat -c %a "$DIR"/tls/*-key.pem | sort -u | xargs)" 600
# the Secrets it creates hold the files the manifests mount
sts=$RN_SRC/deploy/etcd/statefulset.yaml
for f in ca.pem server.pem server-key.pem; do
	check "the server Secret has $f, which the StatefulSet reads" \
		bash -c 'echo "$0" | grep "secret generic rdmanet-etcd-server" | grep -q -- "--from-file=$1=" &&
			grep -q "/etc/etcd/tls/$1" "$2"' "$out" "$f" "$sts"
done
for f in ca.pem client.pem client-key.pem; do
	check "the client Secret has $f, which the rails-8 overlay copies" \
		bash -c 'echo "$0" | grep "secret generic rdmanet-etcd-client" | grep -q -- "--from-file=$1=" &&
			grep -q "$1" "$2"' "$out" "$f" "$RN_SRC/deploy/overlays/rails-8/etcd-client-tls.yaml"
done
check "the server certificate names every member's Service name" \
	bash -c 'for i in 0 1 2; do openssl x509 -in "$0" -noout -ext subjectAltName |
		grep -q "DNS:rdmanet-etcd-$i.rdmanet-etcd.rdmanet-system.svc,"; done' "$DIR/tls/server.pem"
sum=$(md5sum "$DIR"/tls/*.pem)
"$GEN" --dir "$DIR/tls" >/dev/null
check_eq "a second run keeps the CA and the certificates" "$(md5sum "$DIR"/tls/*.pem)" "$sum"

ETCD_PEER_TLS=1
if ! etcd_cluster_start "$DIR/etcd" 3 "$DIR/tls"; then
	tap_fail "3 members with client and peer TLS from gen-certs.sh start"
	tap_done
fi
tap_ok "3 members with client and peer TLS from gen-certs.sh start ($ETCD_URLS)"
check "... the peers talk https" grep -q -- "--initial-cluster.*https" <(ps -o args= -p "${ETCD_PIDS[0]}" | tr ' ' '\n' | paste -sd' ')

# the rails-8 config as shipped, pointed at this cluster and this test's files
jq --arg d "$DIR" --argjson eps "[ $ETCD_ENDPOINTS_JSON ]" '.node = "n1" | .ipam.endpoints = $eps |
	.ipam.path = "\($d)/n1.db" | .ipam.timeout_s = 2 |
	.ipam.tls |= with_entries(.value |= sub("^/var/lib/rdmanet/etcd-tls"; "\($d)/tls"))' \
	"$RN_SRC/deploy/overlays/rails-8/config.json" >"$DIR/n1.json"
check_eq "the rails-8 config keeps ipam.tls's file names" \
	"$(jq -r '.ipam.tls | [.ca_file, .cert_file, .key_file] | map(sub(".*/"; "")) | join(" ")' "$DIR/n1.json")" \
	"ca.pem client.pem client-key.pem"
ip=$("$CTL" -c "$DIR/n1.json" ip allocate --container-id c1 --ifname net1 --pool gpu1-v4 -j 2>"$DIR/err" |
	jq -r '.ips[0].address // empty')
cat "$DIR/err" | sed 's/^/# /'
check "the agent's config allocates from a block over https with gen-certs.sh's client certificate ($ip)" \
	test -n "$ip"
# which block depends on the node's name (ipam/block_pick.h): one of the
# pool's, n1's in etcd, holding the address
blk=$("$RN_BUILD/tools/ipam_blocks" "$DIR/n1.json" any all gpu1-v4)
check "... from the node's block, as etcd records it ($blk)" python3 -c 'import ipaddress, sys
pool, block, node = sys.argv[1].split()
b = ipaddress.ip_network(block)
sys.exit(0 if node == "n1" and b.prefixlen == 28 and
	 b.subnet_of(ipaddress.ip_network(sys.argv[3])) and ipaddress.ip_address(sys.argv[2]) in b else 1)' \
	"$blk" "${ip%/*}" "$(jq -r '.pools[] | select(.name == "gpu1-v4") | .subnet' "$DIR/n1.json")"

"$GEN" --dir "$DIR/other" >/dev/null
jq --arg d "$DIR" '.ipam.tls.cert_file = "\($d)/other/client.pem" | .ipam.tls.key_file = "\($d)/other/client-key.pem" |
	.ipam.path = "\($d)/n2.db" | .node = "n2"' "$DIR/n1.json" >"$DIR/n2.json"
"$CTL" -c "$DIR/n2.json" ip allocate --container-id c2 --ifname net1 --pool gpu1-v4 >/dev/null 2>"$DIR/err2"
rc=$?
sed 's/^/# /' "$DIR/err2"
check "a client certificate of another CA is refused" test "$rc" != 0
check "... and the error says the certificate was refused, not only a timeout" \
	grep -qi "certificate" "$DIR/err2"
tap_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The DRA driver's ResourceSlices (user/lib/dra/slices.h) from the
# ConnectX-5 SR-IOV fixture, published to an API-server stand-in that
# validates them with resource.k8s.io/v1's rules (apiserver_standin.py; no
# real API server runs here): HCA ports shared (allowMultipleAllocations, a
# "pods" capacity each claim consumes one of), VFs exclusive, the
# standard pcieRoot attribute; a second publication of the same devices
# writes nothing; a port going down is a new generation; kubelet's wipe
# of the node's slices is repaired; a stale slice is deleted; a 409 on
# the update is retried on the slice read again; bad input is refused
# before anything is sent.
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/kubeapi/lib/standin.sh"

command -v openssl >/dev/null || tap_skip_all "openssl is not installed"
command -v python3 >/dev/null || tap_skip_all "python3 is not installed (make deps)"
SL=$RN_BUILD/tools/dra_slices
REQ=$RN_BUILD/tools/kube_request
DIR=$(mktemp -d /tmp/rn-dra-slices-$$-XXXXXX)
trap 'standin_stop; rm -rf "$DIR"' EXIT
cp -a "$RN_SRC/selftests/fixtures/sysfs/cx5_sriov" "$DIR/fx"
SYS=$DIR/fx/sys
RS=/apis/resource.k8s.io/v1/resourceslices

# --- what is built
"$SL" --sysfs "$SYS" --node n1 --print >"$DIR/slices.json" 2>"$DIR/err"
check_eq "the fixture's devices as slices (--print)" "$?:$(cat "$DIR/err")" "0:"
dev() { jq -c --arg n "$1" '.[0].spec.devices[] | select(.name == $n)' "$DIR/slices.json"; }
ports=$(jq '[.[0].spec.devices[] | select(.attributes.kind.string == "hca-port")] | length' "$DIR/slices.json")
vfs=$(jq '[.[0].spec.devices[] | select(.attributes.kind.string == "vf")] | length' "$DIR/slices.json")
pfs=$(for d in "$SYS"/class/infiniband/*; do [ -e "$d/device/physfn" ] || echo x; done | wc -l)
fixture_vfs=$(ls -d "$SYS"/class/infiniband/*/device/virtfn* 2>/dev/null | wc -l)
check_eq "one shared device per port of each RDMA device that is not a VF" "$ports" "$pfs"
check_eq "one exclusive device per VF of the PFs" "$vfs" "$fixture_vfs"
check_eq "one slice: driver, node, pool, generation 1, resourceSliceCount 1" \
	"$(jq -c '[length, .[0].spec.driver, .[0].spec.nodeName, .[0].spec.pool]' "$DIR/slices.json")" \
	'[1,"rdma.rdmanet.io","n1",{"generation":1,"name":"n1","resourceSliceCount":1}]'
check_eq "an HCA port: shared by up to 1000 pods, each claim one unless it asks more" \
	"$(dev mlx5-0-port1 | jq -c '[.allowMultipleAllocations, .capacity.pods.value, .capacity.pods.requestPolicy.default]')" \
	'[true,"1000","1"]'
check_eq "... its attributes: RDMA device, netdev, link layer, port state, RoCE v2 GID index, PCI address and root" \
	"$(dev mlx5-0-port1 | jq -c '.attributes | [.rdmaDevice.string, .netdev.string, .linkLayer.string, .portState.string, .gidIndex.int, .pciAddress.string, .["resource.kubernetes.io/pcieRoot"].string]')" \
	'["mlx5_0","ens1f0np0","Ethernet","ACTIVE",3,"0000:3b:00.0","pci0000:3a"]'
vf=$(jq -r '[.[0].spec.devices[] | select(.attributes.kind.string == "vf")][0].name' "$DIR/slices.json")
check_eq "a VF ($vf): exclusive (no capacity, one allocation), its PF and index, the PF's netdev as master" \
	"$(dev "$vf" | jq -c '[.allowMultipleAllocations, .capacity, (.attributes.pfPciAddress.string | length > 0), (.attributes.vfIndex.int >= 0), (.attributes.master.string | length > 0)]')" \
	'[null,null,true,true,true]'
check_eq "every device name is a DNS label, every attribute value at most 64 characters" \
	"$(jq 'all(.[0].spec.devices[]; (.name | test("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")) and
		all(.attributes[]; ((.string // "") | length) <= 64))' "$DIR/slices.json")" true

# --- published
if ! standin_start "$DIR"; then
	tap_fail "the API-server stand-in starts: $(cat "$DIR/standin.err" 2>/dev/null)"
	tap_done
fi
standin_kubeconfig "$DIR" "$DIR/kubeconfig"
K=(--kubeconfig "$DIR/kubeconfig")
pub() { "$SL" --sysfs "$SYS" --node n1 "${K[@]}" "$@" 2>"$DIR/err"; }
writes() { grep -vc '"method": "GET"' "$DIR/requests.log"; }
slice() { "$REQ" "${K[@]}" GET "$RS/n1-rdma.rdmanet.io-0" | sed -n 2p; }

check_eq "first publication: the slice is created (the stand-in validated it)" \
	"$(pub):$(cat "$DIR/err")" "created 1 updated 0 unchanged 0 deleted 0:"
check_eq "... the API server holds it, generation 1" "$(slice | jq .spec.pool.generation)" 1
w=$(writes)
check_eq "the same devices again: nothing written" "$(pub)" "created 0 updated 0 unchanged 1 deleted 0"
check_eq "... not a single write request" "$(writes)" "$w"

echo "1: DOWN" >"$SYS/class/infiniband/mlx5_0/ports/1/state"
check_eq "a port went down: the slice is replaced" "$(pub)" "created 0 updated 1 unchanged 0 deleted 0"
check_eq "... with the next generation and the port's state" \
	"$(slice | jq -c '[.spec.pool.generation, (.spec.devices[] | select(.name == "mlx5-0-port1") | .attributes.portState.string)]')" \
	'[2,"DOWN"]'

echo "4: ACTIVE" >"$SYS/class/infiniband/mlx5_0/ports/1/state"
echo "PUT 409 Conflict" >"$DIR/fail-once"
check_eq "the update answered 409 (written meanwhile): read again and retried once" \
	"$(pub):$(cat "$DIR/err")" "created 0 updated 1 unchanged 0 deleted 0:"
check_eq "... generation 3, the port up again" \
	"$(slice | jq -c '[.spec.pool.generation, (.spec.devices[] | select(.name == "mlx5-0-port1") | .attributes.portState.string)]')" \
	'[3,"ACTIVE"]'

# kubelet deletes the node's slices when it starts (deletecollection)
"$REQ" "${K[@]}" DELETE "$RS?fieldSelector=spec.nodeName%3Dn1" >/dev/null
check_eq "kubelet wiped the node's slices: published again" "$(pub)" "created 1 updated 0 unchanged 0 deleted 0"

jq '.[0] | .metadata.name = "n1-rdma.rdmanet.io-1" | .spec.devices = []' "$DIR/slices.json" >"$DIR/stale.json"
"$REQ" "${K[@]}" POST "$RS" "$DIR/stale.json" >/dev/null
jq '.[0] | .metadata.name = "n2-rdma.rdmanet.io-0" | .spec.nodeName = "n2" | .spec.pool.name = "n2" | .spec.devices = []' \
	"$DIR/slices.json" >"$DIR/other.json"
"$REQ" "${K[@]}" POST "$RS" "$DIR/other.json" >/dev/null
check_eq "a stale slice of this node and driver is deleted; another node's is not touched" \
	"$(pub)" "created 0 updated 1 unchanged 0 deleted 1"
check_eq "... what the API server holds" \
	"$("$REQ" "${K[@]}" GET "$RS" | sed -n 2p | jq -c '[.items[].metadata.name] | sort')" \
	'["n1-rdma.rdmanet.io-0","n2-rdma.rdmanet.io-0"]'

# --- refused before anything is sent
w=$(writes)
pub --driver Bad_Driver >/dev/null
check_eq "a driver name that is not a lowercase DNS subdomain: refused, exit 1" \
	"$?:$(grep -c 'Bad_Driver' "$DIR/err")" "1:1"
pub --pods 0 >/dev/null
check_eq "an HCA port shared by 0 pods: refused, exit 1" \
	"$?:$(grep -c 'at least 1' "$DIR/err")" "1:1"
check_eq "... nothing was sent for either" "$(writes)" "$w"
check_eq "--pods 1: valid for the API server too (no step when min + step would pass the capacity)" \
	"$(pub --pods 1):$(cat "$DIR/err")" "created 0 updated 1 unchanged 0 deleted 0:"

standin_stop
pub >/dev/null
check_eq "the API server is down: the publication fails, said (ECONNREFUSED)" \
	"$?:$(grep -o ECONNREFUSED "$DIR/err")" "1:ECONNREFUSED"
tap_done

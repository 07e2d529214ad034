# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The test cluster: upstream Kubernetes (built by ../build.sh) on one host,
# the control plane on the host and two nodes in namespaces (node.sh), the
# rails' switch and gateways in a fabric namespace. Source it, then:
#
#   cl_up            build if needed, start everything, wait for Ready nodes
#   cl_down          stop everything; nothing is left on the host
#   cl_status        what runs, one line each
#   k ARGS...        kubectl as the cluster admin
#   cl_node_exec NODE CMD...
#   cl_import_image NODE|all OCI_OR_DOCKER_ARCHIVE
#
# Settings (environment, defaults in brackets): CL_NAME [rk] (a prefix of
# every name on the host; 2-4 characters), CL_PROFILE [default: the
# release's default feature gates | dra: also the DRA gates rdmanet uses
# that are still off there], RN_CACHE [/var/cache/rdmanet].
CL_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=selftests/cluster/lib/pki.sh
. "$CL_LIB/pki.sh"
# shellcheck source=selftests/cluster/lib/control.sh
. "$CL_LIB/control.sh"
# shellcheck source=selftests/cluster/lib/node.sh
. "$CL_LIB/node.sh"

CL_NAME=${CL_NAME:-rk}
CL_DIR=/var/tmp/rdmanet-cluster-$CL_NAME
CL_PKI=$CL_DIR/pki
CL_BIN=${RN_CACHE:-/var/cache/rdmanet}/cluster/bin
CL_BR=${CL_NAME}br
CL_FABRIC=$CL_NAME-fabric
# the management network and etcd's ports follow from the name, so that
# clusters of other names can run side by side
CL_NUM=$(($(printf '%s' "$CL_NAME" | cksum | cut -d' ' -f1) % 200 + 20))
CL_NET=10.250.$CL_NUM
CL_IP=$CL_NET.1
CL_PORT=6443
CL_ETCD_PORT=$((23000 + CL_NUM * 2))
# node name and hostname: the second node's differ, as on cloud nodes
# or with kubelet's --hostname-override
CL_NODES="worker-a worker-b"
CL_HOSTNAMES="worker-a gpu-host-17"
# the rails: the fixture's netdevs in every node, a bridge and gateway each
CL_MASTERS="ens1f0np0 ens1f1np1"
CL_RAIL_GW="172.16.11.254/24 172.16.12.254/24"
CL_FIXTURE=$(cd "$CL_LIB/../../fixtures/sysfs/cx5_sriov" && pwd)
CL_PAUSE_IMAGE=localhost/rdmanet-test/pause:1
CL_TOOLS_IMAGE=localhost/rdmanet-test/tools:1
CL_PROFILE=${CL_PROFILE:-default}
case $CL_PROFILE in
default) CL_FEATURE_GATES= ;;
dra) CL_FEATURE_GATES=DRAConsumableCapacity=true ;;
*) echo "cluster: CL_PROFILE is default or dra, not '$CL_PROFILE'" >&2; return 2 2>/dev/null || exit 2 ;;
esac

k() { "$CL_BIN/kubectl" --kubeconfig "$CL_DIR/admin.kubeconfig" "$@"; }

cl_images() {
	mkdir -p "$CL_DIR/images"
	python3 "$CL_LIB/../../lib/oci_image.py" "$CL_PAUSE_IMAGE" "$CL_DIR/images/pause.tar" \
		/usr/bin/catatonit:/pause --entrypoint /pause --entrypoint=-P --user 65535:65535 || return 1
	local links=() a
	for a in sh ash cat echo env grep hostname ip ls nc ping ping6 ps sed sleep sort test \
		timeout true false wc awk cut head tail tr udhcpc wget id mount stat readlink; do
		links+=(--link "/bin/$a:busybox")
	done
	# the traffic generator and sink the netns tests use, static here
	for a in rn_udpgen rn_udpsink; do
		gcc -static -O2 -o "$CL_DIR/images/$a" "$CL_LIB/../../tools/$a.c" || return 1
	done
	python3 "$CL_LIB/../../lib/oci_image.py" "$CL_TOOLS_IMAGE" "$CL_DIR/images/tools.tar" \
		/bin/busybox:/bin/busybox "${links[@]}" --entrypoint /bin/sh \
		"$CL_DIR/images/rn_udpgen:/bin/rn_udpgen" "$CL_DIR/images/rn_udpsink:/bin/rn_udpsink"
}

cl_import_image() {	# NODE|all ARCHIVE
	local n nodes=$1
	[ "$nodes" = all ] && nodes=$CL_NODES
	for n in $nodes; do
		cl_node_exec "$n" "$CL_BIN/ctr" --address /run/containerd/containerd.sock -n k8s.io \
			images import "$2" >>"$CL_DIR/logs/images-$n.log" 2>&1 || {
			echo "cluster: cannot import $2 into node $n" >&2
			return 1
		}
	done
}

# Multus (the stand-in of go/cmd/multus: the proxy does not serve Multus) as
# its DaemonSet installs the thin plugin: the CRD, its ServiceAccount, and
# on each node the binary, a kubeconfig with the account's token and the
# first CNI config, delegating the pods' eth0 to the primary network
cl_multus_up() {
	local n d token
	k apply -f "$CL_LIB/../manifests/nad-crd.yaml" -f "$CL_LIB/../manifests/multus-rbac.yaml" \
		>/dev/null || return 1
	token=$(k -n kube-system create token multus --duration 48h) || return 1
	for n in $CL_NODES; do
		d=$(cl_node_dir "$n")
		cp "$CL_BIN/multus" "$d/opt/cni/bin/" &&
			cl_node_exec "$n" mkdir -p /etc/cni/net.d/multus.d || return 1
		cl_node_exec "$n" tee /etc/cni/net.d/multus.d/multus.kubeconfig >/dev/null <<YAML
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: { server: "https://$CL_IP:$CL_PORT", certificate-authority: "$CL_PKI/ca.crt" }
users:
- name: multus
  user: { token: "$token" }
contexts:
- name: multus
  context: { cluster: test, user: multus }
current-context: multus
YAML
		cl_node_exec "$n" tee /etc/cni/net.d/00-multus.conf >/dev/null <<JSON
{ "cniVersion": "1.0.0", "name": "multus-cni-network", "type": "multus",
  "kubeconfig": "/etc/cni/net.d/multus.d/multus.kubeconfig",
  "clusterNetwork": "/etc/cni/net.d/10-podnet.conflist",
  "logFile": "/var/log/multus.log", "logLevel": "verbose", "logToStderr": false }
JSON
	done
	k wait --for condition=established --timeout=60s \
		crd/network-attachment-definitions.k8s.cni.cncf.io >/dev/null
}

cl_nodes_ready() {
	local n
	for n in $CL_NODES; do
		[ "$(k get node "$n" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ] ||
			return 1
	done
}

cl_up() {
	local start=$SECONDS
	[ -e "$CL_DIR/env" ] && { echo "cluster: $CL_NAME is up already (cl_down first)" >&2; return 1; }
	"$CL_LIB/../build.sh" >/dev/null || return 1
	mkdir -p "$CL_DIR" && mount -t tmpfs -o mode=700 "rdmanet-cluster-$CL_NAME" "$CL_DIR" || return 1
	# the node namespaces are kept by bind mounts on files in here
	mount --make-private "$CL_DIR" || return 1
	mkdir -p "$CL_DIR"/{logs,pids,nodes,images} || return 1
	declare -p CL_NAME CL_PROFILE >"$CL_DIR/env"
	# management network: the host end carries the API server's address
	ip link add "$CL_BR" type bridge && ip addr add "$CL_IP/24" dev "$CL_BR" &&
		ip link set "$CL_BR" up || return 1
	ip netns add "$CL_FABRIC" && ip -n "$CL_FABRIC" link set lo up || return 1
	local r=0 gw
	for gw in $CL_RAIL_GW; do
		ip -n "$CL_FABRIC" link add "rail$r" type bridge &&
			ip -n "$CL_FABRIC" addr add "$gw" dev "rail$r" &&
			ip -n "$CL_FABRIC" link set "rail$r" up || return 1
		r=$((r + 1))
	done
	cl_images || return 1
	cl_control_up || return 1
	local n h i=0
	set -- $CL_HOSTNAMES
	for n in $CL_NODES; do
		i=$((i + 1))
		h=$1
		shift
		cl_node_up "$n" "$h" "$i" || return 1
	done
	cl_wait 120 cl_nodes_ready || {
		echo "cluster: nodes not Ready in 120 s:" >&2
		k get nodes >&2
		return 1
	}
	cl_multus_up || { echo "cluster: cannot install Multus" >&2; return 1; }
	echo "cluster: $CL_NAME up in $((SECONDS - start)) s (profile $CL_PROFILE)"
}

cl_down() {
	local n
	[ -d "$CL_DIR" ] || return 0
	for n in $CL_NODES; do cl_node_down "$n"; done
	cl_control_down
	ip netns del "$CL_FABRIC" 2>/dev/null
	ip link del "$CL_BR" 2>/dev/null
	if [ -f "$CL_DIR/made-dirs" ]; then
		sort -r "$CL_DIR/made-dirs" | while read -r n; do rmdir "$n" 2>/dev/null; done
	fi
	umount -l "$CL_DIR" 2>/dev/null
	rmdir "$CL_DIR" 2>/dev/null
	return 0
}

cl_status() {
	local d
	[ -f "$CL_DIR/env" ] || { echo "cluster $CL_NAME: down"; return 1; }
	for d in "$CL_DIR"/pids/*; do
		d=$(basename "$d")
		if cl_daemon_alive "$d"; then echo "$d: running ($(cl_daemon_pid "$d"))"; else echo "$d: dead"; fi
	done
	k get nodes -o wide
}

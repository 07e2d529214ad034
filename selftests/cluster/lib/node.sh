# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A node of the test cluster: a network, mount and UTS namespace of its own
# (as kind's node containers are, without a container), with its own
# containerd 2, kubelet and kube-proxy. Inside it:
#   - eth0 on the management bridge (the API server's network), the
#     default route through the host;
#   - the "RoCE masters": veths named as the ConnectX-5 fixture's netdevs
#     (ens1f0np0, ens1f1np1), their peers on the fabric namespace's rail
#     bridges, where the rails' gateways live;
#   - /sys a sysfs of its own netns (as `ip netns exec` mounts it), with the
#     host's cgroup hierarchies and a bpffs of its own at /sys/fs/bpf;
#   - private /run, /var/lib, /var/log, /opt, /etc (an overlay on the host's)
#     and /dev/infiniband (character devices with the uverbs and
#     rdma_cm numbers, for the fixture's devices): what a node's DaemonSet and
#     CNI plugins write stays in the node; every mount shared inside the node;
#   - kubelet's cgroups under /$CL_NAME-NODE in every v1 hierarchy.
#
#   cl_node_up NAME HOSTNAME INDEX
#   cl_node_exec NAME CMD...     CMD inside the node (net, mount, UTS)
#   cl_node_kubelet_up NAME      (re)start its kubelet
#   cl_node_down NAME

cl_node_ns() { echo "$CL_NAME-$1"; }
cl_node_dir() { echo "$CL_DIR/nodes/$1"; }

# cl_node_nsenter NODE: CL_NSENTER, the command prefix that enters it
# (nsenter execs the command: a daemon started through it keeps its pid)
cl_node_nsenter() {
	local d
	d=$(cl_node_dir "$1")
	CL_NSENTER=(nsenter --net=/run/netns/"$(cl_node_ns "$1")" --mount="$d/mnt" --uts="$d/uts" --)
}

cl_node_exec() {
	local CL_NSENTER
	cl_node_nsenter "$1"
	shift
	"${CL_NSENTER[@]}" "$@"
}

# host directories the nodes mount over; made here only if missing, and
# then removed by cl_node_down (listed in $CL_DIR/made-dirs)
cl_node_mountpoint() {
	[ -d "$1" ] && return 0
	mkdir -p "$1" && echo "$1" >>"$CL_DIR/made-dirs"
}

# cl_chardev NAME: the major and minor of an RDMA character device as the
# kernel numbers them (umadN 231:N, issmN 231:64+N, uverbsN 231:192+N,
# rdma_cm a misc device)
cl_chardev() {
	case $1 in
	umad*) echo 231 "${1#umad}" ;;
	issm*) echo 231 $((64 + ${1#issm})) ;;
	uverbs*) echo 231 $((192 + ${1#uverbs})) ;;
	rdma_cm) echo 10 58 ;;
	*) return 1 ;;
	esac
}

# the setup inside the node's new mount and UTS namespaces (in its netns)
cl_node_mounts() {	# cl_node_mounts DIR HOSTNAME
	local d=$1 m
	set -e
	hostname "$2"
	# In a chroot (selftests/fresh-root.sh, CI), the new namespace's root
	# is still the host's: whatever enters it later (nsenter --mount) would
	# see the host's files, not the chroot's. A process that joins the
	# namespace starts at its root, and from there makes the chroot the root.
	local me=$$
	nsenter --mount=/proc/$me/ns/mnt -- sh -ec "
		r=\$(readlink /proc/$me/root)
		[ \"\$r\" = / ] && exit 0
		cd \"\$r\" && mkdir -p .cl-oldroot && pivot_root . .cl-oldroot &&
			umount -l .cl-oldroot && rmdir .cl-oldroot"
	# a new mount namespace copies every mount, and with them the binds
	# that keep other namespaces alive (other nodes', other clusters', the
	# host's /run/netns/*): dropped here, or a node's netns outlives its
	# cluster while another cluster runs; and other clusters' directories
	awk '$3 == "nsfs" { print $2 }' /proc/self/mounts | sort -r | xargs -r -n 1 umount -l
	awk -v own="$CL_DIR" '$2 ~ "^/var/tmp/rdmanet-cluster-" && index($2, own) != 1 { print $2 }' \
		/proc/self/mounts | sort -r | xargs -r -n 1 umount -l
	for m in var-lib var-log opt etc etc.work dev-ib run cg; do mkdir -p "$d/$m"; done
	# /etc: the host's under an overlay of the node's own, so that what
	# the node writes there (/etc/rdmanet, /etc/cni, /etc/cdi) is a plain
	# directory, as on a node, which an uninstall can remove
	mount -t overlay overlay -o "lowerdir=/etc,upperdir=$d/etc,workdir=$d/etc.work" /etc
	mount --bind "$d/var-lib" /var/lib
	mount --bind "$d/var-log" /var/log
	mount --bind "$d/opt" /opt
	mount --bind "$d/dev-ib" /dev/infiniband
	# umad (231, n), issm (231, 64 + n), uverbs (231, 192 + n) and rdma_cm
	# (10, a misc minor): the fixture's device nodes as real character
	# devices, which the runtime can give containers (no driver behind them)
	for m in 0 1 2 3 4 5 6 7 8 9 10 11 12 13; do
		for c in umad issm uverbs; do mknod "/dev/infiniband/$c$m" c $(cl_chardev "$c$m"); done
	done
	mknod /dev/infiniband/rdma_cm c $(cl_chardev rdma_cm)
	mount --rbind /sys/fs/cgroup "$d/cg"
	mount -t sysfs sysfs /sys
	mount --move "$d/cg" /sys/fs/cgroup
	mount -t bpf bpf /sys/fs/bpf
	mount -t configfs configfs /sys/kernel/config 2>/dev/null || true
	mount --bind "$d/run" /run
	mkdir -p /run/netns /run/containerd /run/cdi /var/lib/kubelet /var/log/pods \
		/opt/cni/bin /etc/cni/net.d /etc/cdi
	# shared, as systemd makes a node's mounts (kind's nodes do the same):
	# HostToContainer volumes need it; the peer groups are this node's own
	mount --make-rshared /
}

cl_node_up() {
	local n=$1 host=$2 i=$3 ns d ip c
	ns=$(cl_node_ns "$n")
	d=$(cl_node_dir "$n")
	ip=$CL_NET.$((10 + i))
	mkdir -p "$d" || return 1
	cl_node_mountpoint /dev/infiniband || return 1
	ip netns add "$ns" || return 1
	ip link add "$CL_NAME-n$i" type veth peer name eth0 netns "$ns" &&
		ip link set "$CL_NAME-n$i" master "$CL_BR" up &&
		ip -n "$ns" link set lo up && ip -n "$ns" link set eth0 up &&
		ip -n "$ns" addr add "$ip/24" dev eth0 &&
		ip -n "$ns" route add default via "$CL_IP" || return 1
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 || return 1
	# the rails: a veth per fixture netdev, its peer on the fabric's bridge
	local r=0 m
	for m in $CL_MASTERS; do
		ip link add "$CL_NAME-$i-r$r" type veth peer name "$m" netns "$ns" &&
			ip link set "$CL_NAME-$i-r$r" netns "$CL_FABRIC" &&
			ip -n "$CL_FABRIC" link set "$CL_NAME-$i-r$r" master "rail$r" up &&
			ip -n "$ns" link set "$m" up || return 1
		r=$((r + 1))
	done
	# the mount and UTS namespaces, kept by bind mounts on these files (their
	# directory must be a private mount for that)
	touch "$d/mnt" "$d/uts" || return 1
	nsenter --net=/run/netns/"$ns" unshare --mount="$d/mnt" --uts="$d/uts" --propagation private \
		env CL_DIR="$CL_DIR" bash -c "$(declare -f cl_chardev cl_node_mounts); cl_node_mounts '$d' '$host'" || {
		echo "cluster: cannot make node $n's mounts" >&2
		return 1
	}
	# the RDMA devices: the fixture's sysfs tree (the test overlay's
	# rdma.sysfs_root), the node's own copy
	mkdir -p "$d/opt/rdmanet-fixture" && cp -a "$CL_FIXTURE/." "$d/opt/rdmanet-fixture/" || return 1
	# its dev/ too as character devices: the DRA driver's CDI specs name
	# the nodes under the fixture's dev root, and containerd's CDI takes
	# only device nodes
	local f
	for f in "$d"/opt/rdmanet-fixture/dev/infiniband/*; do
		rm -f "$f" && mknod "$f" c $(cl_chardev "$(basename "$f")") || return 1
	done
	for c in /sys/fs/cgroup/*/; do mkdir -p "$c$CL_NAME-$n" || return 1; done
	cp /sys/fs/cgroup/cpuset/cpuset.cpus "/sys/fs/cgroup/cpuset/$CL_NAME-$n/" 2>/dev/null
	cp /sys/fs/cgroup/cpuset/cpuset.mems "/sys/fs/cgroup/cpuset/$CL_NAME-$n/" 2>/dev/null
	cl_node_containerd_up "$n" && cl_node_kubelet_up "$n" && cl_node_proxy_up "$n"
}

cl_node_containerd_config() {	# cl_node_containerd_config NODE
	cat <<TOML
version = 3
root = "/var/lib/containerd"
state = "/run/containerd"
[grpc]
  address = "/run/containerd/containerd.sock"
[plugins."io.containerd.cri.v1.images".pinned_images]
  sandbox = "$CL_PAUSE_IMAGE"
[plugins."io.containerd.cri.v1.runtime"]
  enable_cdi = true
  cdi_spec_dirs = ["/etc/cdi", "/var/run/cdi"]
  # the test machine (itself a container) may lack CAP_SYS_RESOURCE
  restrict_oom_score_adj = true
  disable_apparmor = true
[plugins."io.containerd.cri.v1.runtime".cni]
  bin_dirs = ["/opt/cni/bin"]
  conf_dir = "/etc/cni/net.d"
[plugins."io.containerd.cri.v1.runtime".containerd]
  default_runtime_name = "runc"
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
  BinaryName = "/usr/sbin/runc"
  SystemdCgroup = false
[plugins."io.containerd.grpc.v1.cri"]
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
TOML
}

cl_node_containerd_up() {
	local n=$1 d
	d=$(cl_node_dir "$n")
	cl_node_containerd_config "$n" >"$d/containerd.toml" || return 1
	# the primary network: the reference bridge plugin (pods' eth0)
	cp /usr/lib/cni/* "$d/opt/cni/bin/" || return 1
	cl_node_primary_cni "$n" || return 1
	cl_node_nsenter "$n"
	cl_daemon "containerd-$n" "${CL_NSENTER[@]}" env PATH="$CL_BIN:$PATH" \
		"$CL_BIN/containerd" --config "$d/containerd.toml"
	cl_wait 60 cl_node_exec "$n" "$CL_BIN/ctr" --address /run/containerd/containerd.sock version || {
		echo "cluster: containerd of node $n did not start; its log:" >&2
		tail -n 20 "$CL_DIR/logs/containerd-$n.log" >&2
		return 1
	}
	local img
	for img in "$CL_DIR"/images/*.tar; do
		[ -f "$img" ] || continue
		cl_node_exec "$n" "$CL_BIN/ctr" --address /run/containerd/containerd.sock -n k8s.io \
			images import --no-unpack=false "$img" >>"$CL_DIR/logs/images-$n.log" 2>&1 || {
			echo "cluster: cannot import $(basename "$img") into node $n" >&2
			return 1
		}
	done
}

cl_node_primary_cni() {	# the pods' eth0: bridge + host-local on the node's pod CIDR
	local n=$1 d i
	d=$(cl_node_dir "$n")
	i=$(cl_node_index "$n")
	# written inside the node: its /etc is an overlay, whose upper directory
	# is not to be written behind its back
	cl_node_exec "$n" tee /etc/cni/net.d/10-podnet.conflist >/dev/null <<JSON
{ "cniVersion": "1.0.0", "name": "podnet",
  "plugins": [ { "type": "bridge", "bridge": "cni0", "isGateway": true,
                 "ipam": { "type": "host-local", "ranges": [[{ "subnet": "10.244.$i.0/24" }]],
                           "routes": [{ "dst": "0.0.0.0/0" }] } } ] }
JSON
}

cl_node_index() {
	local n i=0
	for n in $CL_NODES; do
		i=$((i + 1))
		[ "$n" = "$1" ] && { echo $i; return 0; }
	done
	return 1
}

cl_node_kubelet_up() {	# cl_node_kubelet_up NODE (again: a kubelet restart)
	local n=$1 ip i d
	d=$(cl_node_dir "$n")
	i=$(cl_node_index "$n") || return 1
	ip=$CL_NET.$((10 + i))
	pki_client "$CL_PKI" "node-$n" "system:node:$n" system:nodes &&
		pki_kubeconfig "$CL_PKI" "node-$n" "https://$CL_IP:$CL_PORT" "$d/kubelet.kubeconfig" || return 1
	cat >"$d/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: "$CL_PKI/ca.crt" }
authorization: { mode: Webhook }
address: "$ip"
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
cgroupDriver: cgroupfs
cgroupRoot: "/$CL_NAME-$n"
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
podCIDR: 10.244.$i.0/24
clusterDomain: cluster.local
resolvConf: /etc/resolv.conf
volumePluginDir: /var/lib/kubelet/volume-plugins
# the test machine's disk is shared with everything else: no eviction or
# image GC on its fill level (the images cannot be pulled again)
evictionHard: { memory.available: "1Mi", nodefs.available: "0%", imagefs.available: "0%" }
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
syncFrequency: 10s
nodeStatusUpdateFrequency: 5s
$( [ -n "$CL_FEATURE_GATES" ] && printf 'featureGates: {%s}\n' "$(echo "$CL_FEATURE_GATES" | sed 's/=/: /g; s/,/, /g')")
YAML
	cl_node_nsenter "$n"
	cl_daemon "kubelet-$n" "${CL_NSENTER[@]}" env PATH="$CL_BIN:$PATH" \
		"$CL_BIN/kubelet" --config "$d/kubelet.yaml" --kubeconfig "$d/kubelet.kubeconfig" \
		--hostname-override "$n" --node-ip "$ip"
}

cl_node_proxy_up() {
	local n=$1 d
	d=$(cl_node_dir "$n")
	[ -f "$CL_PKI/kube-proxy.crt" ] || pki_client "$CL_PKI" kube-proxy system:kube-proxy || return 1
	pki_kubeconfig "$CL_PKI" kube-proxy "https://$CL_IP:$CL_PORT" "$d/kube-proxy.kubeconfig" || return 1
	cl_node_nsenter "$n"
	cl_daemon "kube-proxy-$n" "${CL_NSENTER[@]}" "$CL_BIN/kube-proxy" \
		--kubeconfig "$d/kube-proxy.kubeconfig" --hostname-override "$n" \
		--proxy-mode nftables --conntrack-max-per-core 0 --cluster-cidr 10.244.0.0/16 \
		--metrics-bind-address 127.0.0.1:10249 --healthz-bind-address 127.0.0.1:10256
}

# the node's processes, then its namespaces and cgroups
cl_node_down() {
	local n=$1 d ns c pid
	d=$(cl_node_dir "$n")
	ns=$(cl_node_ns "$n")
	cl_daemon_stop "kube-proxy-$n"
	cl_daemon_stop "kubelet-$n"
	cl_daemon_stop "containerd-$n"
	# what outlives containerd: shims and host-network containers (in the
	# node's netns), the pods' containers (in the node's cgroups)
	for pid in $(ip netns pids "$ns" 2>/dev/null) \
		$(find /sys/fs/cgroup/pids/"$CL_NAME-$n" -name cgroup.procs -exec cat {} + 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null
	done
	sleep 0.5
	for c in /sys/fs/cgroup/*/"$CL_NAME-$n"; do
		[ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	if [ -e "$d/mnt" ]; then
		umount -l "$d/mnt" 2>/dev/null
		umount -l "$d/uts" 2>/dev/null
	fi
	ip netns del "$ns" 2>/dev/null
	return 0
}

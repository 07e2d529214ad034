# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# containerd 1.6 as kubelet's node runs it, in the node netns of
# selftests/cni/lib.sh (masters ra0/rb0 with their gateways in the fabric
# netns, rdmanetd): its CRI plugin creates the pod sandboxes and calls the
# CNI plugins in $CRI_CNI_BIN with the first config in $CRI_CNI_CONF, as it
# does for kubelet. The test drives it over the CRI gRPC API (cri_client.py).
# Its root, state, socket and config are this run's ($CRI_DIR); the pods'
# netns are containerd's own (/var/run/netns/cni-*).
#
#   cri_setup                   bin dir (rdmanet + the reference plugins),
#                               pause image archive, containerd config
#   cri_containerd_start        start it in the node netns, wait for CRI (CRI_PID)
#   cri_containerd_stop         SIGTERM it (its shims, the pods, live on)
#   cri_pause_import            the pause image into its k8s.io namespace
#   cri CMD ARGS...             cri_client.py on this containerd's socket
#   cri_pod_netns ID            the netns path containerd made for a sandbox
#   cri_pod_pid ID              its pause process
#   cri_conf_loaded NAME        containerd has loaded the network config NAME
#   cri_calls VERB ID           how often containerd called rdmanet's VERB for
#                               sandbox ID ($CRI_CALLS: VERB|ID|IFNAME|NETNS|CNI_ARGS)
#   cri_cleanup                 stop and remove every sandbox, stop containerd,
#                               its shims; remove its directories (trap this)

CRI_DIR=$CNI_TMP/containerd
CRI_SOCK=$CRI_DIR/containerd.sock
CRI_CNI_BIN=$CNI_TMP/cni-bin
CRI_CNI_CONF=$CNI_TMP/cni-conf
CRI_PAUSE=localhost/rdmanet-pause:$CNI_PFX
CRI_STUBS=$RN_BUILD/selftests/cri/stubs
CRI_CLIENT=$RN_SRC/selftests/cri/cri_client.py
CRI_CALLS=$CNI_TMP/cni-calls.log
CRI_PID=

cri() { /usr/bin/python3 "$CRI_CLIENT" --stubs "$CRI_STUBS" --address "$CRI_SOCK" "$@"; }

cri_setup() {
	mkdir -p "$CRI_DIR" "$CRI_CNI_BIN" "$CRI_CNI_CONF" || return 1
	# the node's CNI bin dir: the reference plugins (loopback is called by
	# containerd itself) and rdmanet, behind a recorder that logs how
	# containerd calls it (verb, container id, ifname, netns, CNI_ARGS) to
	# $CRI_CALLS and execs the plugin with everything unchanged
	cp /usr/lib/cni/* "$CRI_CNI_BIN"/ && cp "$CNI_BIN" "$CRI_DIR"/rdmanet || return 1
	cat >"$CRI_CNI_BIN"/rdmanet <<SH
#!/bin/sh
printf '%s|%s|%s|%s|%s\\n' "\$CNI_COMMAND" "\$CNI_CONTAINERID" "\$CNI_IFNAME" \\
	"\${CNI_NETNS-unset}" "\$CNI_ARGS" >>"$CRI_CALLS"
exec "$CRI_DIR/rdmanet" "\$@"
SH
	chmod +x "$CRI_CNI_BIN"/rdmanet && : >"$CRI_CALLS"
	# the sandbox's pause process: catatonit -P, a static binary, in an
	# OCI archive made here (no registry)
	/usr/bin/python3 "$RN_SRC/selftests/lib/oci_image.py" "$CRI_PAUSE" "$CRI_DIR/pause.tar" \
		/usr/bin/catatonit:/pause --entrypoint /pause --entrypoint=-P --user 65535:65535 || return 1
	cat >"$CRI_DIR/config.toml" <<TOML
version = 2
root = "$CRI_DIR/root"
state = "$CRI_DIR/state"
[grpc]
  address = "$CRI_SOCK"
[ttrpc]
  address = "$CRI_SOCK.ttrpc"
[debug]
  level = "info"
[plugins."io.containerd.internal.v1.opt"]
  path = "$CRI_DIR/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$CRI_PAUSE"
  disable_apparmor = true
  # lowering a process's OOM score takes CAP_SYS_RESOURCE, which a test machine
  # (itself a container) may lack: containerd's own score is the floor
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$CRI_CNI_BIN"
    conf_dir = "$CRI_CNI_CONF"
    max_conf_num = 1
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
TOML
}

cri_ready() { cri version >/dev/null 2>&1; }

# RDMANET_CONFIG reaches the plugin through containerd's environment, as a
# node's containerd unit would pass it (libcni execs plugins with it)
cri_containerd_start() {
	nsenter --net=/run/netns/"$CNI_NODE" env RDMANET_CONFIG="$CNI_CONFIG" \
		containerd --config "$CRI_DIR/config.toml" >>"$CRI_DIR/containerd.log" 2>&1 &
	CRI_PID=$!
	cni_wait "$CRI_PID" cri_ready && return 0
	echo "# containerd did not answer on its CRI socket; log:"
	tail -n 20 "$CRI_DIR/containerd.log" | sed 's/^/# /'
	return 1
}

cri_containerd_stop() {
	cni_stop "$CRI_PID" TERM
	CRI_PID=
}

cri_pause_import() {
	ctr --address "$CRI_SOCK" -n k8s.io images import "$CRI_DIR/pause.tar" >"$CRI_DIR/import.log" 2>&1
}

# the netns containerd made for a sandbox (its CNI_NETNS), from the
# sandbox's verbose info
cri_pod_netns() {
	cri pod-status --verbose "$1" |
		jq -r '.info.info.runtimeSpec.linux.namespaces[] | select(.type == "network") | .path'
}

# the pause process of a sandbox (its pid on the host)
cri_pod_pid() { cri pod-status --verbose "$1" | jq -r '.info.info.pid'; }

# cri_conf_loaded NAME: containerd's CRI has loaded the network config NAME
# (its Status reports the config it calls; it reloads $CRI_CNI_CONF on change)
cri_conf_loaded() {
	cri status | jq -e --arg n "$1" '.info.cniconfig.Networks | map(.Config.Name) | index($n)' \
		>/dev/null 2>&1
}

cri_calls() { grep -c "^$1|$2|" "$CRI_CALLS" 2>/dev/null; }

cri_cleanup() {
	local id pidf
	if [ -n "$CRI_PID" ]; then
		for id in $(cri list 2>/dev/null | jq -r '.[].id'); do
			cri stop-pod "$id" >/dev/null 2>&1
			cri remove-pod "$id" >/dev/null 2>&1
		done
	fi
	cri_containerd_stop
	# sandboxes that could not be stopped (containerd died): their pause
	# processes and shims outlive containerd, their netns mounts stay
	for pidf in "$CRI_DIR"/state/io.containerd.runtime.v2.task/k8s.io/*/init.pid; do
		[ -f "$pidf" ] && kill -KILL "$(cat "$pidf")" 2>/dev/null
	done
	# the shims name this containerd's socket, which is this run's alone
	pgrep -f -- "-address $CRI_SOCK\$" | xargs -r kill -KILL 2>/dev/null
	cut -d'|' -f4 "$CRI_CALLS" 2>/dev/null | sort -u | grep '^/var/run/netns/cni-' |
		while read -r ns; do
			[ -e "$ns" ] && umount "$ns" 2>/dev/null && rm -f "$ns"
		done
	grep -s " $CRI_DIR/" /proc/self/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l
	rm -rf "$CRI_DIR"
}

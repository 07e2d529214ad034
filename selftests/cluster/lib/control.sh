# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The control plane on the host: etcd, kube-apiserver, kube-controller-manager
# and kube-scheduler, each a daemon with its log and pid under $CL_DIR. The
# API server listens on the management bridge's address ($CL_IP), which the
# nodes (network namespaces with a veth on that bridge) reach as a real
# node reaches its control plane; the host reaches it there too.
#
#   cl_daemon NAME CMD...       start CMD in its own session, log + pid file
#   cl_daemon_stop NAME         SIGTERM, then SIGKILL after 10 s
#   cl_control_up               everything above, until the API server is ready
#   cl_control_down

cl_daemon() {
	local name=$1
	shift
	setsid "$@" </dev/null >>"$CL_DIR/logs/$name.log" 2>&1 &
	echo $! >"$CL_DIR/pids/$name"
}

cl_daemon_pid() { cat "$CL_DIR/pids/$1" 2>/dev/null; }

cl_daemon_alive() {
	local pid
	pid=$(cl_daemon_pid "$1") && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

cl_daemon_stop() {
	local pid i
	pid=$(cl_daemon_pid "$1") || return 0
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	rm -f "$CL_DIR/pids/$1"
}

# cl_wait SECONDS CMD...: until CMD succeeds (0) or the time is up (1)
cl_wait() {
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt "$end" ] || return 1
		sleep 0.5
	done
}

cl_apiserver_ready() {
	curl -sf --cacert "$CL_PKI/ca.crt" --cert "$CL_PKI/admin.crt" --key "$CL_PKI/admin.key" \
		"https://$CL_IP:$CL_PORT/readyz" >/dev/null
}

cl_control_up() {
	local gates=$CL_FEATURE_GATES
	pki_init "$CL_PKI" "$CL_IP" || return 1
	pki_client "$CL_PKI" admin kubernetes-admin system:masters &&
		pki_client "$CL_PKI" apiserver-kubelet-client kube-apiserver-kubelet-client system:masters &&
		pki_client "$CL_PKI" controller-manager system:kube-controller-manager &&
		pki_client "$CL_PKI" scheduler system:kube-scheduler || return 1
	local n
	for n in admin controller-manager scheduler; do
		pki_kubeconfig "$CL_PKI" "$n" "https://$CL_IP:$CL_PORT" "$CL_DIR/$n.kubeconfig" || return 1
	done
	# etcd on loopback only; its data in memory ($CL_DIR is on /run): a
	# test cluster lives as long as its run
	cl_daemon etcd "$CL_BIN/etcd" --name test --data-dir "$CL_DIR/etcd" \
		--listen-client-urls "http://127.0.0.1:$CL_ETCD_PORT" \
		--advertise-client-urls "http://127.0.0.1:$CL_ETCD_PORT" \
		--listen-peer-urls "http://127.0.0.1:$((CL_ETCD_PORT + 1))" \
		--initial-advertise-peer-urls "http://127.0.0.1:$((CL_ETCD_PORT + 1))" \
		--initial-cluster "test=http://127.0.0.1:$((CL_ETCD_PORT + 1))" \
		--unsafe-no-fsync --log-level warn
	cl_daemon kube-apiserver "$CL_BIN/kube-apiserver" \
		--etcd-servers "http://127.0.0.1:$CL_ETCD_PORT" \
		--bind-address "$CL_IP" --advertise-address "$CL_IP" --secure-port "$CL_PORT" \
		--tls-cert-file "$CL_PKI/apiserver.crt" --tls-private-key-file "$CL_PKI/apiserver.key" \
		--client-ca-file "$CL_PKI/ca.crt" \
		--kubelet-client-certificate "$CL_PKI/apiserver-kubelet-client.crt" \
		--kubelet-client-key "$CL_PKI/apiserver-kubelet-client.key" \
		--kubelet-preferred-address-types InternalIP \
		--service-account-issuer https://kubernetes.default.svc.cluster.local \
		--service-account-key-file "$CL_PKI/sa.pub" \
		--service-account-signing-key-file "$CL_PKI/sa.key" \
		--service-cluster-ip-range 10.96.0.0/16 \
		--authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
		--allow-privileged=true --profiling=false \
		${gates:+--feature-gates "$gates"} ${CL_RUNTIME_CONFIG:+--runtime-config "$CL_RUNTIME_CONFIG"}
	cl_wait 120 cl_apiserver_ready || {
		echo "cluster: kube-apiserver not ready in 120 s; its log:" >&2
		tail -n 20 "$CL_DIR/logs/kube-apiserver.log" >&2
		return 1
	}
	cl_daemon kube-controller-manager "$CL_BIN/kube-controller-manager" \
		--kubeconfig "$CL_DIR/controller-manager.kubeconfig" \
		--authentication-kubeconfig "$CL_DIR/controller-manager.kubeconfig" \
		--authorization-kubeconfig "$CL_DIR/controller-manager.kubeconfig" \
		--service-account-private-key-file "$CL_PKI/sa.key" --root-ca-file "$CL_PKI/ca.crt" \
		--cluster-signing-cert-file "$CL_PKI/ca.crt" --cluster-signing-key-file "$CL_PKI/ca.key" \
		--use-service-account-credentials --leader-elect=false \
		--bind-address 127.0.0.1 --secure-port 0 \
		${gates:+--feature-gates "$gates"}
	cl_daemon kube-scheduler "$CL_BIN/kube-scheduler" \
		--kubeconfig "$CL_DIR/scheduler.kubeconfig" \
		--authentication-kubeconfig "$CL_DIR/scheduler.kubeconfig" \
		--authorization-kubeconfig "$CL_DIR/scheduler.kubeconfig" \
		--leader-elect=false --bind-address 127.0.0.1 --secure-port 0 \
		${gates:+--feature-gates "$gates"}
}

cl_control_down() {
	local d
	for d in kube-scheduler kube-controller-manager kube-apiserver etcd; do cl_daemon_stop "$d"; done
}

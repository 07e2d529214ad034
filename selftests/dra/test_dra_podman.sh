#!/bin/bash
# A container runtime consumes what NodePrepareResources returns: podman
# (runc, a busybox rootfs) started with the claim's CDI device IDs gets
# exactly that device's RDMA nodes and the claim's variables. On the
# cx5_sriov fixture, whose /dev/infiniband entries are made character
# devices here (1:3, as /dev/null) so that the spec's host paths exist.
# podman 4 reads CDI specs only from /etc/cdi and /var/run/cdi: the spec
# goes to /var/run/cdi under the claim's own UID and is removed by
# NodeUnprepareResources (and the trap). No kubelet or API server runs.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
. "$RN_SRC/selftests/dra/lib.sh"
DRA_CDI=/var/run/cdi
U=$(cat /proc/sys/kernel/random/uuid)
trap 'rm -f "$DRA_CDI/rdmanet.io-claim_$U.json"; rn_topo_down' EXIT

command -v podman >/dev/null && command -v runc >/dev/null ||
	{ tap_fail "podman and runc (make deps installs them)"; tap_done; }
dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_sriov
for f in uverbs0 umad0 issm0 uverbs1 umad1 issm1 rdma_cm; do
	rm -f "$RN_TMP/host/dev/infiniband/$f"
	mknod "$RN_TMP/host/dev/infiniband/$f" c 1 3
done
dra_config "$RN_TMP/config.json"
check "agent attaches with a dra section" rn_agent_start "$RN_TMP/config.json"
reg=$(dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver "$DRA_DRIVER")
check_eq "registered" "$(jq -r .error <<<"$reg")" null

dra_claim default pod1 "$U" "[$(dra_result nic mlx5-0-port1)]"
out=$(dra_prepare v1.DRAPlugin "default/pod1/$U")
cdi=$(jq -r ".claims[\"$U\"].devices[0].cdi[0]" <<<"$out")
check_eq "prepared: the CDI ID" "$cdi" "rdmanet.io/claim=$U-mlx5-0-port1"

mkdir -p "$RN_TMP/rootfs/bin" "$RN_TMP/rootfs/dev" "$RN_TMP/rootfs/proc" "$RN_TMP/rootfs/sys"
cp /bin/busybox "$RN_TMP/rootfs/bin/busybox"
pm=(podman --runtime runc --root "$RN_TMP/podman-root" --runroot "$RN_TMP/podman-run"
    --storage-driver vfs)
"${pm[@]}" run --rm --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --device "$cdi" --rootfs "$RN_TMP/rootfs" /bin/busybox sh -c \
	'for f in /dev/infiniband/*; do [ -c "$f" ] && echo "$f"; done; env' \
	>"$RN_TMP/podman.out" 2>"$RN_TMP/podman.err"
check_eq "podman --device $cdi: the HCA's uverbs, port 1's umad/issm, rdma_cm; nothing of mlx5_1" \
	"$(grep '^/dev/' "$RN_TMP/podman.out" | sort | xargs)" \
	"/dev/infiniband/issm0 /dev/infiniband/rdma_cm /dev/infiniband/umad0 /dev/infiniband/uverbs0"
check_eq "... and the claim's variables" \
	"$(grep -E '^(RDMANET_|NCCL_IB_HCA)' "$RN_TMP/podman.out" | sort | xargs)" \
	"NCCL_IB_HCA==mlx5_0:1 RDMANET_NIC_GID_INDEX=3 RDMANET_NIC_NETDEV=ens1f0np0 RDMANET_NIC_PORT=1 RDMANET_NIC_RDMA_DEVICE=mlx5_0"
[ -s "$RN_TMP/podman.err" ] && sed 's/^/# podman: /' "$RN_TMP/podman.err" | head -5

out=$(dra_unprepare v1.DRAPlugin "default/pod1/$U")
check_eq "unprepared" "$(jq -c "[.grpc_error, .claims[\"$U\"].error]" <<<"$out")" '[null,""]'
"${pm[@]}" run --rm --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --device "$cdi" --rootfs "$RN_TMP/rootfs" /bin/busybox true \
	>"$RN_TMP/podman2.out" 2>&1
rc=$?
check_eq "after unprepare podman refuses the CDI device, naming it" \
	"$([ "$rc" -ne 0 ] && echo refused):$(grep -c "$U" "$RN_TMP/podman2.out")" "refused:1"
tap_done

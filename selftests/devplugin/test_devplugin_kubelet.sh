#!/bin/bash
# rdmanetd's device plugin against a fake kubelet (a real gRPC peer in
# Python, stubs generated from the same .proto): registration checked as
# kubelet checks it, every RPC called and its answer checked, health
# changes through ListAndWatch, a kubelet restart (sockets deleted, a new
# kubelet) answered by serving and registering again, and the data path
# attached throughout. The HCAs are the ConnectX-5 fixture tree.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
trap 'dp_kubelet_stop; rn_topo_down' EXIT

dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_healthy
A=rdma/hca_shared_devices_a
G=spidernet.io/shared_cx5_gpu1
# the shared plugin's README example shape, plus one rail by ifNames
dp_config "$RN_TMP/config.json" "{ \"kubelet_dir\": \"$DP_KUBELET\", \"periodicUpdateInterval\": 1,
  \"configList\": [
    { \"resourceName\": \"hca_shared_devices_a\", \"rdmaHcaMax\": 4,
      \"selectors\": { \"vendors\": [\"15b3\"], \"deviceIDs\": [\"1017\"] } },
    { \"resourcePrefix\": \"spidernet.io\", \"resourceName\": \"shared_cx5_gpu1\", \"rdmaHcaMax\": 3,
      \"selectors\": { \"ifNames\": [\"ens1f1np1\"] } } ] }"

dp_kubelet_start
check "fake kubelet up" dp_wait '.event == "kubelet_up"'
check "agent attaches" rn_agent_start "$RN_TMP/config.json"

for r in $A $G; do
	check "$r: registered" dp_wait ".event == \"register\" and .resource == \"$r\""
	reg=$(dp_last ".event == \"register\" and .resource == \"$r\"")
	check_eq "$r: RegisterRequest passes kubelet's checks" "$(jq -r .error <<<"$reg")" null
	check_eq "$r: version" "$(jq -r .version <<<"$reg")" v1beta1
	check_eq "$r: GetPreferredAllocation announced" "$(jq -r .preferred <<<"$reg")" true
	check "$r: kubelet dialed back (GetDevicePluginOptions)" \
		dp_wait ".event == \"options\" and .resource == \"$r\""
	check "$r: ListAndWatch list" dp_wait ".event == \"list\" and .resource == \"$r\""
	check "$r: Allocate answered" dp_wait ".event == \"allocate\" and .resource == \"$r\""
	check "$r: PreStartContainer answered" dp_wait ".event == \"prestart\" and .resource == \"$r\""
done
check_eq "endpoint: the socket name under device-plugins/" \
	"$(dp_last ".event == \"register\" and .resource == \"$A\"" | jq -r .endpoint)" \
	"rdmanet-rdma-hca_shared_devices_a.sock"

la=$(dp_last ".event == \"list\" and .resource == \"$A\"")
lg=$(dp_last ".event == \"list\" and .resource == \"$G\"")
check_eq "$A: rdmaHcaMax devices, all healthy" "$(jq -c '[.n, .healthy]' <<<"$la")" "[4,4]"
check_eq "$A: NUMA nodes of both PFs" "$(jq -c '[.devices[].numa] | unique' <<<"$la")" "[[0,1]]"
check_eq "$G: 3 devices on NUMA node 1 (ens1f1np1)" \
	"$(jq -c '[.n, .healthy, ([.devices[].numa] | unique)]' <<<"$lg")" "[3,3,[[1]]]"

al=$(dp_last ".event == \"allocate\" and .resource == \"$A\"")
check_eq "$A: Allocate gives both HCAs' nodes and rdma_cm, rwm" \
	"$(dp_alloc_devices "$al")" \
	'["/dev/infiniband/issm0=/dev/infiniband/issm0:rwm","/dev/infiniband/issm1=/dev/infiniband/issm1:rwm","/dev/infiniband/rdma_cm=/dev/infiniband/rdma_cm:rwm","/dev/infiniband/umad0=/dev/infiniband/umad0:rwm","/dev/infiniband/umad1=/dev/infiniband/umad1:rwm","/dev/infiniband/uverbs0=/dev/infiniband/uverbs0:rwm","/dev/infiniband/uverbs1=/dev/infiniband/uverbs1:rwm"]'
check_eq "$A: env names the HCAs, ports and netdevs" \
	"$(jq -c '.containers[0].envs' <<<"$al")" \
	'{"RDMANET_HCAS_RDMA_HCA_SHARED_DEVICES_A":"mlx5_0:1:ens1f0np0,mlx5_1:1:ens1f1np1"}'
ag=$(dp_last ".event == \"allocate\" and .resource == \"$G\"")
check_eq "$G: Allocate gives mlx5_1 only" \
	"$(jq -c '[.containers[0].devices[].host] | sort' <<<"$ag")" \
	'["/dev/infiniband/issm1","/dev/infiniband/rdma_cm","/dev/infiniband/umad1","/dev/infiniband/uverbs1"]'
check_eq "$G: its own env variable" "$(jq -c '.containers[0].envs' <<<"$ag")" \
	'{"RDMANET_HCAS_SPIDERNET_IO_SHARED_CX5_GPU1":"mlx5_1:1:ens1f1np1"}'
bad=$(dp_last ".event == \"allocate_bad_error\" and .resource == \"$A\"")
check_eq "unknown device ID: FAILED_PRECONDITION naming it" \
	"$(jq -r '"\(.code) \(.details)"' <<<"$bad")" \
	"StatusCode.FAILED_PRECONDITION $A: unknown device ID \"no-such-device\""
pr=$(dp_last ".event == \"preferred\" and .resource == \"$A\"")
check_eq "GetPreferredAllocation: size honoured, must-include first" \
	"$(jq -c '[(.ids[0] | length), .ids[0][0] == .must[0]]' <<<"$pr")" "[2,true]"

# health: mlx5_1's port goes DOWN, then its netdev; kubelet hears each
PF1=$RN_TMP/host/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1
dp_mark
echo "1: DOWN" >"$PF1/infiniband/mlx5_1/ports/1/state"
check "$G: Unhealthy when mlx5_1's port is DOWN" \
	dp_wait ".event == \"list\" and .resource == \"$G\" and .healthy == 0"
# A has two HCAs and healthyWhen anyHca (the default): mlx5_0 still serves
res=$(rn_ctl --config "$RN_TMP/config.json" resources -j)
check_eq "$A: still 4 healthy, mlx5_1 shown down (rdmanetctl resources)" \
	"$(jq -c ".[] | select(.resource == \"$A\") | [.healthy, .healthy_when, [.hcas[] | [.name, .healthy, .why]]]" <<<"$res")" \
	'[4,"anyHca",[["mlx5_0",true,""],["mlx5_1",false,"mlx5_1 port 1 DOWN"]]]'
check "rdmanetctl resources: the policy in words" \
	grep -q "^    healthy when any HCA is (healthyWhen anyHca)" \
	<(rn_ctl --config "$RN_TMP/config.json" resources)
check_eq "$A: kubelet never told it is Unhealthy" \
	"$(dp_lines | jq -c "select(.event == \"list\" and .resource == \"$A\" and .healthy < 4)" | wc -l)" 0
dp_mark
echo "4: ACTIVE" >"$PF1/infiniband/mlx5_1/ports/1/state"
check "$G: Healthy again" dp_wait ".event == \"list\" and .resource == \"$G\" and .healthy == 3"
dp_mark
echo down >"$PF1/net/ens1f1np1/operstate"
check "$G: Unhealthy when ens1f1np1 is down" \
	dp_wait ".event == \"list\" and .resource == \"$G\" and .healthy == 0"
echo up >"$PF1/net/ens1f1np1/operstate"
check "$G: Healthy again" dp_wait ".event == \"list\" and .resource == \"$G\" and .healthy == 3"
check "agent log says why" grep -q "mlx5_1 unhealthy: mlx5_1 port 1 netdev ens1f1np1 down" "$RN_TMP/agent.log"

res=$(rn_ctl --config "$RN_TMP/config.json" resources -j)
check_eq "rdmanetctl resources: devices, health, NUMA, serving" \
	"$(jq -c '[.[] | [.resource, .devices, .healthy, .numa, .serving, [.hcas[].name]]]' <<<"$res")" \
	'[["rdma/hca_shared_devices_a",4,4,[0,1],true,["mlx5_0","mlx5_1"]],["spidernet.io/shared_cx5_gpu1",3,3,[1],true,["mlx5_1"]]]'
check "rdmanetctl resources: a line per resource" \
	grep -q "^spidernet.io/shared_cx5_gpu1: 3 devices, 3 healthy, numa 1, serving" \
	<(rn_ctl --config "$RN_TMP/config.json" resources)

# a kubelet restart: the old one dies, the new one deletes every socket
# under device-plugins/ before it listens
dp_kubelet_stop
dp_mark
dp_kubelet_start
for r in $A $G; do
	check "$r: registered with the new kubelet" \
		dp_wait ".event == \"register\" and .resource == \"$r\" and .error == null"
	check "$r: the new kubelet gets the list" \
		dp_wait ".event == \"list\" and .resource == \"$r\" and .n > 0"
done
check "agent log: socket deletion noticed" grep -q "was deleted (kubelet restart?)" "$RN_TMP/agent.log"

# an agent restart registers again too
rn_agent_stop
check "agent stop removes its sockets" \
	test -z "$(find "$DP_KUBELET/device-plugins" -name 'rdmanet-*' 2>/dev/null)"
dp_mark
check "agent restarts" rn_agent_start "$RN_TMP/config.json"
check "$A: registered again after the agent restart" \
	dp_wait ".event == \"register\" and .resource == \"$A\" and .error == null"

check "data path still attached" \
	test "$(rn_stat '.masters[] | select(.ifname == "roce0") | .tc')" != none
tap_done

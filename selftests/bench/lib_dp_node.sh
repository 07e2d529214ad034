# shellcheck shell=bash
# The node of bench_devplugin.sh and bench_rss_all.sh (sourced after
# selftests/lib/netns.sh and selftests/devplugin/lib.sh, with the topology
# up): the ConnectX-5 fixture with rail 2's netdev made the node's real
# roce0 (the node's sysfs mounted at $NSYS, linked from the fixture), so
# taking roce0 down is a real link event; the device plugin's 8 resources
# in $RN_TMP/dp.json and the agent without it in $RN_TMP/plain.json.
#   bench_dp_node              set it up (umount "$NSYS" at the end)
#   bench_register_pods N      rdmanetctl pod add of N pods on roce0
NSYS=$RN_TMP/nsys

bench_dp_node() {
	local i nd rails="" pf1
	dp_fixture cx5_healthy
	mkdir -p "$NSYS"
	rn_in_node mount -t sysfs sysfs "$NSYS" || return 1
	pf1=$RN_TMP/host/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1/net/ens1f1np1
	rm "$pf1/operstate"
	ln -s "$NSYS/class/net/roce0/operstate" "$pf1/operstate"
	for i in 1 2 3 4 5 6 7 8; do
		case $((i % 4)) in
		0) nd=ens1f0np0 ;; 1) nd=ens1f1np1 ;; 2) nd=ens1f0v0 ;; 3) nd=ens1f0v1 ;;
		esac
		rails="$rails${rails:+,} { \"resourcePrefix\": \"spidernet.io\", \"resourceName\": \"shared_cx5_gpu$i\",
		  \"rdmaHcaMax\": 100, \"selectors\": { \"ifNames\": [\"$nd\"] } }"
	done
	dp_config "$RN_TMP/dp.json" "{ \"kubelet_dir\": \"$DP_KUBELET\", \"periodicUpdateInterval\": 0,
	  \"configList\": [ $rails ] }"
	rn_agent_config "$RN_TMP/plain.json" monitor "" "\"rdma\": { \"sysfs_root\": \"$RN_TMP/host/sys\" }"
}

bench_register_pods() {
	local i mac
	for i in $(seq 0 $(($1 - 1))); do
		printf -v mac '02:ab:00:00:%02x:%02x' $((i >> 8)) $((i & 255))
		rn_ctl pod add --namespace bench --pod p$i --container-id c$i --ifname net1 \
			--master roce0 --mac "$mac" --ip 10.$((100 + i / 250)).$((i % 250)).1 || return 1
	done
}

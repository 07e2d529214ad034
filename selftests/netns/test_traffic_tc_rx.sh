#!/bin/bash
# The traffic test again with xdp_mode auto: on a veth master the agent
# leaves XDP off (it would copy every GSO skb) and tc ingress counts rx.
export RN_XDP_MODE=auto
exec "$(dirname "$0")/test_traffic.sh"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The test cluster by hand (lib/cluster.sh says what it is):
#
#   selftests/cluster/cluster.sh up|down|status
#   selftests/cluster/cluster.sh kubectl ARGS...
#   selftests/cluster/cluster.sh node NODE CMD...     (in the node's namespaces)
#   selftests/cluster/cluster.sh import NODE|all ARCHIVE
#
# As root. CL_NAME and CL_PROFILE as in lib/cluster.sh.
set -u
# shellcheck source=selftests/cluster/lib/cluster.sh
. "$(dirname "$0")/lib/cluster.sh"
[ -f "$CL_DIR/env" ] && . "$CL_DIR/env"
cmd=${1:-status}
shift
case $cmd in
up) cl_up || { cl_down; exit 1; } ;;
down) cl_down ;;
status) cl_status ;;
kubectl) k "$@" ;;
node) cl_node_exec "$@" ;;
import) cl_import_image "$@" ;;
*) sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

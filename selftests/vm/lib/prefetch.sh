#!/bin/bash
# Prepares what the VM tests boot before they run: selftests/run.sh starts
# it in the background, beside the non-VM tests, when both kinds are
# selected. In a fresh root, downloading and unpacking the kernels and
# qemu 10 takes about a minute (45 s of it CPU). Without this, that minute
# lands on the VM lanes, which start only after the other tests finish.
#
#   selftests/vm/lib/prefetch.sh [6.12|6.1|qemu10]...
#
# The caches are the tests' own (vm_prepare, vm_qemu10_prepare, each under
# its flock), so a test that starts early waits for the prefetch. A failure
# here only goes to the log. Each test prepares again and reports the
# failure itself, as a failure or a skip.
set -u
VM_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=selftests/vm/lib/vm.sh
. "$VM_LIB/vm.sh"

rc=0
for what in "$@"; do
	start=$SECONDS
	case $what in
	qemu10) vm_qemu10_prepare ;;
	*) VM_PREPARED=; vm_prepare "$what" ;;
	esac
	r=$?
	echo "prefetch $what: status $r, $((SECONDS - start)) s"
	[ $r = 0 ] || rc=1
done
exit $rc

#!/bin/bash
# rdmanet-etcd, the CNI plugin the static one hands etcd-store requests to,
# has its man page: it renders without a warning, make install installs it
# beside the others and make uninstall removes it and the binary.
. "$RN_SRC/selftests/lib/tap.sh"
PAGE=$RN_SRC/user/ctl/man/rdmanet-etcd.8

check "user/ctl/man/rdmanet-etcd.8 is there" test -s "$PAGE"
if command -v groff >/dev/null; then
	err=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$PAGE" 2>&1)
	check_eq "rdmanet-etcd.8 renders without warnings" "$err" ""
else
	tap_skip "rdmanet-etcd.8 renders" "groff not installed (make deps)"
fi
check "rdmanet(8) points to it" grep -q '^\.BR rdmanet-etcd (8)' "$RN_SRC/user/ctl/man/rdmanet.8"
inst=$(make -s -n -C "$RN_SRC" OUT="$RN_BUILD" DESTDIR=/x install 2>/dev/null)
check "make install installs it" grep -q 'rdmanet-etcd\.8.*man8/' <<<"$inst"
uninst=$(make -s -n -C "$RN_SRC" OUT="$RN_BUILD" DESTDIR=/x uninstall 2>/dev/null)
check "make uninstall removes the page" grep -q 'man8/rdmanet-etcd\.8' <<<"$uninst"
check "make uninstall removes the binary" grep -q 'bin/rdmanet-etcd\b' <<<"$uninst"
tap_done

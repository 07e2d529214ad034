# SPDX-License-Identifier: Apache-2.0
# containerd's default AppArmor profile for containers, as its CRI plugin
# generates and loads it (`apparmor_parser -Kr`) under the name
# cri-containerd.apparmor.d for every container whose pod asks for
# RuntimeDefault or says nothing. The rules are those of the template in
# containerd's contrib/apparmor/template.go
# (github.com/containerd/containerd, commit b6a1e59888ff, itself copied from
# moby's profiles/apparmor; Copyright The docker Authors, The Moby Authors,
# The containerd Authors; Apache License 2.0), rendered as containerd
# renders it on a node with /etc/apparmor.d/tunables/global and
# abstractions/base, from an unconfined containerd (DaemonProfile
# "unconfined"). CRI-O's crio-default is the same template.
#
# Used by selftests/vm/test_deploy_mounts.sh to show that rdmanetd cannot run
# under it: the agent's pins and the lock on its pin directory (bpffs,
# /sys/fs/[^c]*) and default_roce_tos (configfs, /sys/[^f]*) are writes and
# locks it denies. Do not edit the rules: they must stay containerd's.

#include <tunables/global>

profile cri-containerd.apparmor.d flags=(attach_disconnected,mediate_deleted) {
  #include <abstractions/base>

  network,
  capability,
  file,
  umount,
  # Host (privileged) processes may send signals to container processes.
  signal (receive) peer=unconfined,
  # Manager may send signals to container processes.
  signal (receive) peer=unconfined,
  # Container processes may send signals amongst themselves.
  signal (send,receive) peer=cri-containerd.apparmor.d,

  deny @{PROC}/* w,   # deny write for all files directly in /proc (not in a subdir)
  # deny write to files not in /proc/<number>/** or /proc/sys/**
  deny @{PROC}/{[^1-9],[^1-9][^0-9],[^1-9s][^0-9y][^0-9s],[^1-9][^0-9][^0-9][^0-9]*}/** w,
  deny @{PROC}/sys/[^k]** w,  # deny /proc/sys except /proc/sys/k* (effectively /proc/sys/kernel)
  deny @{PROC}/sys/kernel/{?,??,[^s][^h][^m]**} w,  # deny everything except shm* in /proc/sys/kernel/
  deny @{PROC}/sysrq-trigger rwklx,
  deny @{PROC}/mem rwklx,
  deny @{PROC}/kmem rwklx,
  deny @{PROC}/kcore rwklx,

  deny mount,

  deny /sys/[^f]*/** wklx,
  deny /sys/f[^s]*/** wklx,
  deny /sys/fs/[^c]*/** wklx,
  deny /sys/fs/c[^g]*/** wklx,
  deny /sys/fs/cg[^r]*/** wklx,
  deny /sys/firmware/** rwklx,
  deny /sys/kernel/security/** rwklx,

  # allow processes within the container to trace each other,
  # provided all other LSM and yama setting allow it.
  ptrace (trace,tracedby,read,readby) peer=cri-containerd.apparmor.d,
}

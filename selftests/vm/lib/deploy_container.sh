# shellcheck shell=bash
# The DaemonSet's rdmanetd container as far as a testbed VM can build it
# without a container engine. Sourced by the guest halves of
# test_deploy_mounts.sh (its mounts and its AppArmor parts).
#
#   deploy_container LAYOUT CONFIG [APPARMOR_PROFILE]
#       runs `rdmanetd --once --config CONFIG` in a mount namespace laid out
#       as the manifest lays out the container: sysfs read-only, bpffs
#       writable, and with LAYOUT configfs the configfs root writable, as the
#       manifest mounts it (LAYOUT none: configfs read-only all through); with
#       exactly the capabilities deploy/base/rdmanetd-daemonset.yaml adds
#       (bounding set, nothing inheritable); confined by APPARMOR_PROFILE
#       when given, as the runtime confines the container's process (aa-exec:
#       the profile is entered at the agent's exec). Returns the agent's status.

# the manifest's capabilities.add, as setpriv's "+cap" list
DEPLOY_CAPS=$(grep -E '^\s+- [A-Z_]+\s*$' "$RN_SRC/deploy/base/rdmanetd-daemonset.yaml" |
	awk '{ printf ",+%s", tolower($2) }')

deploy_container() {
	unshare --mount bash -s "$1" "$2" "$DEPLOY_CAPS" "$RN_BUILD/bin/rdmanetd" "${3:-}" <<'INNER'
set -e
mount --make-rprivate /
# configfs its own mount (the manifest's hostPath), read-only unless the
# layout is the manifest's; then sysfs read-only (per mount: bpffs and
# configfs below it keep their own flags, as the container's mounts do)
mount --bind /sys/kernel/config /sys/kernel/config
[ "$1" = configfs ] || mount -o remount,bind,ro /sys/kernel/config
mount -o remount,bind,ro /sys
set +e
confine=()
[ -n "$5" ] && confine=(aa-exec -p "$5" --)
"${confine[@]}" setpriv --bounding-set "-all$3" --inh-caps=-all "$4" --once --config "$2"
INNER
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Builds the rdmanet image with podman and proves it runs (make image).
#
#   IMAGE=rdmanet/rdmanet:0.9.0 [BASE=debian:bookworm-slim] [GIT_COMMIT=...]
#     [VERSION=...] deploy/image/build.sh
#
# VERSION defaults to the Makefile's.
#
# BASE is the Debian 12 image the Dockerfile starts FROM. Left empty, a
# minimal Debian 12 root is made here with mmdebstrap from this machine's
# own apt sources and imported as localhost/rdmanet-base:bookworm (once):
# the way to build on a machine that reaches no container registry. The
# build stage runs on the host network (its apt needs the archive, and
# nothing else is reachable). After the build, each binary is run in the
# image: --version, ldd with nothing missing, gRPC core and libcurl found
# by the dynamic loader as the agent dlopens them, and rdmanetd
# --check-config of every node config the shipped manifests carry.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${IMAGE:?IMAGE=name:tag}" "${VERSION:=$(make -s print-version)}"
: "${GIT_COMMIT:=$(git describe --always --dirty --abbrev=12 --match=NeVeR 2>/dev/null || echo unknown)}"
BASE=${BASE:-}
LOCAL_BASE=localhost/rdmanet-base:bookworm
# podman on hosts without systemd or with a small default limit: say them
PODMAN=(podman --runtime "${RN_OCI_RUNTIME:-runc}")
RUN_OPTS=(--rm --network none --ulimit nofile=4096:4096 --ulimit nproc=4096:4096)

fail() { echo "image: $*" >&2; exit 1; }
command -v podman >/dev/null || fail "podman missing (apt-get install podman runc, or make deps)"

local_base() {
	"${PODMAN[@]}" image exists "$LOCAL_BASE" && return 0
	command -v mmdebstrap >/dev/null || fail "no BASE given and mmdebstrap missing to make one (apt-get install mmdebstrap)"
	local sources=() f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		case "$f" in */rdmanet-*) continue ;; esac	# install-deps.sh adds backports itself
		grep -qsE '^[^#]*\bbookworm\b' "$f" && sources+=("$f")
	done
	[ ${#sources[@]} -gt 0 ] || fail "no Debian 12 (bookworm) apt source on this machine to make a base image from; give BASE="
	echo "image: making $LOCAL_BASE with mmdebstrap from this machine's apt sources" >&2
	# minbase: dpkg, apt, coreutils, a shell; the machine's CA certificates go
	# in so that apt and TLS work as they do here (a proxy's CA, say)
	local certs=()
	compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null &&
		certs=(--customize-hook='mkdir -p "$1/usr/local/share/ca-certificates"'
		       --customize-hook='cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/"'
		       --customize-hook='chroot "$1" update-ca-certificates >/dev/null')
	mmdebstrap --quiet --variant=minbase --include=ca-certificates "${certs[@]}" \
		--customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
		bookworm - "${sources[@]}" | "${PODMAN[@]}" import --quiet - "$LOCAL_BASE" >/dev/null ||
		fail "mmdebstrap or podman import failed"
}

if [ -z "$BASE" ]; then
	local_base
	BASE=$LOCAL_BASE
fi
echo "image: building $IMAGE (version $VERSION, commit $GIT_COMMIT) from $BASE" >&2
"${PODMAN[@]}" build --quiet --network host --pull=never \
	--ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
	--build-arg BASE="$BASE" --build-arg GIT_COMMIT="$GIT_COMMIT" \
	--build-arg VERSION="$VERSION" \
	--label org.opencontainers.image.version="$VERSION" \
	--label org.opencontainers.image.revision="$GIT_COMMIT" \
	--label org.opencontainers.image.licenses="GPL-2.0 OR BSD-2-Clause" \
	-f deploy/image/Dockerfile -t "$IMAGE" . >/dev/null || fail "podman build failed"

# --- the image runs what it ships -------------------------------------------
in_image() { "${PODMAN[@]}" run "${RUN_OPTS[@]}" --entrypoint "$1" "$IMAGE" "${@:2}"; }
for b in /usr/local/sbin/rdmanetd /usr/local/bin/rdmanetctl; do
	out=$(in_image "$b" --version) || fail "$b --version failed in the image"
	[[ "$out" == *" $VERSION (commit $GIT_COMMIT)" ]] || fail "$b --version says \"$out\", not $VERSION/$GIT_COMMIT"
	echo "image: $out" >&2
done
out=$(in_image /usr/local/lib/cni/rdmanet 2>&1) || fail "the CNI plugin does not run in the image"
[[ "$out" == *"plugin $VERSION (commit $GIT_COMMIT)"* ]] || fail "the CNI plugin says \"$out\""
missing=$(in_image /bin/sh -c '
	for f in /usr/local/sbin/rdmanetd /usr/local/bin/rdmanetctl /usr/local/lib/cni/rdmanet-etcd \
		$(ldconfig -p | awk "/libgrpc\.so\.|libgpr\.so\.|libcurl\.so\.4 |libssl\.so\.3 /{ print \$NF }"); do
		ldd "$f" | sed -n "s|^|$f: |; /not found/p"
	done
	for l in libgrpc.so.29 libgpr.so.29 libcurl.so.4 libssl.so.3 libibverbs.so.1; do
		ldconfig -p | grep -q "^[[:space:]]*$l " || echo "$l: not in the loader cache"
	done
	ls /usr/lib/x86_64-linux-gnu/libibverbs/*.so >/dev/null 2>&1 || echo "no verbs provider (ibverbs-providers)"')
[ -z "$missing" ] || fail "missing in the image: $missing"
# every node config the shipped manifests carry passes the image's agent
cfgdir=$(mktemp -d)
trap 'rm -rf "$cfgdir"' EXIT
deploy/image/node-configs.sh "$cfgdir"
n=0
for c in "$cfgdir"/*.json; do
	out=$("${PODMAN[@]}" run "${RUN_OPTS[@]}" -v "$cfgdir:/cfg:ro" "$IMAGE" \
		--check-config --cluster --config "/cfg/$(basename "$c")" 2>&1) ||
		fail "rdmanetd --check-config of $(basename "$c") in the image: $out"
	n=$((n + 1))
done
[ $n -gt 0 ] || fail "no node config found in deploy/"
# A name without a registry host is podman's localhost/NAME but
# Kubernetes' docker.io/NAME (kubelet and containerd's CRI normalize it so):
# the image gets that name too, the one to save for a node's containerd
first=${IMAGE%%/*}
case $first in
*.* | *:* | localhost) ;;
*) [ "$first" != "$IMAGE" ] && "${PODMAN[@]}" tag "$IMAGE" "docker.io/$IMAGE" &&
	echo "image: also named docker.io/$IMAGE, as Kubernetes resolves $IMAGE" >&2 ;;
esac
size=$("${PODMAN[@]}" image inspect --format '{{.Size}}' "$IMAGE")
echo "image: $IMAGE built and checked: 3 binaries run, no library missing, $n shipped node configs accepted, $((size / 1048576)) MiB" >&2

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Builds the upstream programs the test cluster runs, at the versions
# selftests/cluster/go/go.mod and go.sum pin: kube-apiserver,
# kube-controller-manager, kube-scheduler, kubelet, kube-proxy and etcd (one
# multi-call binary, cmd/kube), kubectl, containerd 2, its runc shim and ctr
# (their own main packages, go.mod's tools). Debian's runc runs the
# containers; Debian's reference CNI plugins are the pods' primary network.
#
#   selftests/cluster/build.sh [CACHE]     (default: $RN_CACHE, /var/cache/rdmanet)
#
# Everything lives under CACHE: go/ (the module and build caches, the
# toolchain when it was fetched) and cluster/bin (with a stamp of the sources
# it was built from, so a second run with the same pins does nothing). A fresh machine has no Go: the exact
# toolchain go.mod names comes from the Go module proxy (GOPROXY, as the go
# command's own GOTOOLCHAIN switch fetches it: golang.org/toolchain), checked
# against the SHA-256 in go/toolchain.sha256. The machine's own Go is used
# when it is that version. Cold: about N minutes on 2 cores; warm: seconds.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=${1:-${RN_CACHE:-/var/cache/rdmanet}}
cache=$top/cluster
mod=$here/go
read -r tsum tver <"$mod/toolchain.sha256"
mkdir -p "$cache/bin"
exec 9>"$cache/.lock"
flock 9

stamp=$(cat "$mod/go.mod" "$mod/go.sum" "$mod/toolchain.sha256" "$mod"/cmd/*/*.go "$0" | sha256sum | cut -c1-16)
if [ "$(cat "$cache/bin/.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "cluster build: up to date ($stamp)"
	exit 0
fi

# the Go toolchain: the machine's if it is the pinned one, else the proxy's
go=
for g in "$(command -v go || true)" /usr/local/go/bin/go "$top/go/toolchain/bin/go"; do
	[ -x "$g" ] && [ "$("$g" env GOVERSION 2>/dev/null)" = "$tver" ] && { go=$g; break; }
done
if [ -z "$go" ]; then
	proxy=${GOPROXY:-https://proxy.golang.org}
	proxy=${proxy%%,*}
	[ "$proxy" = direct ] || [ "$proxy" = off ] && proxy=https://proxy.golang.org
	mkdir -p "$top/go"
	zip="$top/go/toolchain-$tver.zip"
	echo "cluster build: fetching $tver from $proxy"
	curl -sfL --retry 3 -o "$zip.tmp" "$proxy/golang.org/toolchain/@v/v0.0.1-$tver.linux-amd64.zip" || {
		echo "cluster build: cannot fetch the Go toolchain $tver from $proxy" >&2
		exit 1
	}
	echo "$tsum  $zip.tmp" | sha256sum -c --quiet - || {
		echo "cluster build: the Go toolchain $tver from $proxy does not have the pinned SHA-256" >&2
		rm -f "$zip.tmp"
		exit 1
	}
	rm -rf "$top/go/toolchain" "$top/go/toolchain.tmp"
	python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$zip.tmp" "$top/go/toolchain.tmp"
	mv "$top/go/toolchain.tmp/golang.org/toolchain@v0.0.1-$tver.linux-amd64" "$top/go/toolchain"
	rm -rf "$top/go/toolchain.tmp" "$zip.tmp"
	chmod +x "$top"/go/toolchain/bin/* "$top"/go/toolchain/pkg/tool/*/*
	go=$top/go/toolchain/bin/go
fi

export GOMODCACHE=$top/go/mod GOCACHE=$top/go/build GOTOOLCHAIN=local GOFLAGS="-mod=readonly -buildvcs=false" GOPROXY=${GOPROXY:-https://proxy.golang.org}
export CGO_ENABLED=1
start=$SECONDS
cd "$mod"
rm -rf "$cache/bin.new"
mkdir -p "$cache/bin.new"
# the versions the programs report (kubelet's node status, kubectl version,
# the API server's emulation version): the release's own, as Kubernetes'
# hack/lib/version.sh and containerd's Makefile stamp them
kv=$(sed -n 's/^\tk8s.io\/kubernetes \(v[0-9.]*\)\( .*\)\{0,1\}$/\1/p' go.mod)
cv=$(sed -n 's/^\tgithub.com\/containerd\/containerd\/v2 v\([0-9.]*\)\( .*\)\{0,1\}$/\1/p' go.mod)
minor=${kv#v1.}
minor=${minor%%.*}
ld="-s"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	ld="$ld -X $p.gitVersion=$kv -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
	ld="$ld -X $p.buildDate=1970-01-01T00:00:00Z"
done
ld="$ld -X github.com/containerd/containerd/v2/version.Version=$cv"
"$go" build -trimpath -ldflags="$ld" -o "$cache/bin.new/" ./cmd/kube ./cmd/multus \
	github.com/containerd/containerd/v2/cmd/containerd \
	github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 \
	github.com/containerd/containerd/v2/cmd/ctr \
	k8s.io/kubernetes/cmd/kubectl
for c in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy etcd; do
	ln -s kube "$cache/bin.new/$c"
done
echo "$stamp" >"$cache/bin.new/.stamp"
rm -rf "$cache/bin"
mv "$cache/bin.new" "$cache/bin"
echo "cluster build: built in $((SECONDS - start)) s with $("$go" env GOVERSION)"

#!/bin/sh
# Installs Debian 12 packages for rdmanet in one apt transaction.
#
#   deploy/install-deps.sh MAIN_PKGS... -- BACKPORTS_PKGS...
#
# BACKPORTS_PKGS come from bookworm-backports (libbpf >= 1.3 for tcx links, and
# the elfutils libraries libbpf's backport needs: libelf1 and libdw1 must come
# from one suite, or bookworm's libdw1 pins libelf1 to 0.188 and apt gives up).
# The backports suite is added from the mirror this machine's apt already uses,
# read from its own sources (deb822 or one-line): nodes behind a local mirror
# or proxy keep using it. Idempotent: returns at once when all is installed.
set -eu

main="" bpo=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do main="$main $1"; shift; done
[ $# -gt 0 ] && shift
bpo="$*"

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}
from_backports() {
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null | grep -q '~bpo'
}

missing=""
for p in $main; do installed "$p" || missing="$missing $p"; done
for p in $bpo; do { installed "$p" && from_backports "$p"; } || missing="$missing $p"; done
if [ -z "$missing" ]; then
	echo "deps: all installed"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing:$missing (run as root)" >&2
	exit 1
fi

# The URI and keyring of the source that serves bookworm main, as apt has it.
# Prints "URI SIGNED_BY" (SIGNED_BY may be empty).
bookworm_source() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# deb822: stanzas separated by blank lines
		awk '
		function flush() {
			if (types ~ /(^| )deb( |$)/ && suites ~ /(^| )bookworm( |$)/ && comps ~ /(^| )main( |$)/ && uri != "")
				{ print uri, signed; found = 1; exit }
			types = suites = comps = uri = signed = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		tolower($1) == "types:" { $1 = ""; types = $0 " " }
		tolower($1) == "uris:" { uri = $2 }
		tolower($1) == "suites:" { $1 = ""; suites = $0 " " }
		tolower($1) == "components:" { $1 = ""; comps = $0 " " }
		tolower($1) == "signed-by:" { signed = $2 }
		END { if (!found) flush() }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# one-line: deb [opts] URI SUITE COMPONENTS...
		awk '
		$1 != "deb" { next }
		{
			i = 2; signed = ""
			if ($2 ~ /^\[/) {
				for (; i <= NF; i++) {
					if ($i ~ /^\[?signed-by=/) { s = $i; sub(/^\[?signed-by=/, "", s); sub(/\]$/, "", s); signed = s }
					if ($i ~ /\]$/) { i++; break }
				}
			}
			uri = $i; suite = $(i + 1)
			if (suite != "bookworm") next
			for (j = i + 2; j <= NF; j++) if ($j == "main") { print uri, signed; exit }
		}' "$f"
	done
}

have_backports() {
	grep -rqsE '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/
}

export DEBIAN_FRONTEND=noninteractive
if [ -n "$bpo" ] && ! have_backports; then
	src=$(bookworm_source | head -n 1)
	if [ -z "$src" ]; then
		echo "deps: no apt source serves Debian 12 (bookworm) main; add one, or add bookworm-backports yourself" >&2
		exit 1
	fi
	uri=${src%% *}
	signed=${src#* }
	[ "$signed" = "$src" ] && signed=""
	list=/etc/apt/sources.list.d/rdmanet-bookworm-backports.sources
	{
		echo "# added by rdmanet's make deps, from the mirror of this machine's bookworm source"
		echo "Types: deb"
		echo "URIs: $uri"
		echo "Suites: bookworm-backports"
		echo "Components: main"
		[ -n "$signed" ] && echo "Signed-By: $signed"
	} >"$list"
	echo "deps: added bookworm-backports from $uri ($list)"
fi

echo "deps: installing$missing"
apt-get update -qq
sel=""
for p in $bpo; do sel="$sel $p/bookworm-backports"; done
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $main $sel >/dev/null
echo "deps: done"

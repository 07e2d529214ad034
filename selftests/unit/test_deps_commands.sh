#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Every external command the tests and the demo run comes from a package that
# `make deps` installs (or that a new Debian 12 system already has: the
# Essential set, apt, make, git), so a hand-installed tool on a developer's
# machine cannot hide a missing install step.
#
# The commands are read from the scripts (selftests/**/*.sh, deploy/*.sh):
# the first word of each command (after |, ;, &&, ||, $(, then, do, ...),
# looking through wrappers (timeout, nsenter, ip netns exec, env, stdbuf,
# the tests' own check/rn_in/vm_wait_until helpers), quoted text dropped.
# Each word that is an executable on PATH (not a shell function or builtin)
# is traced to the Debian package that ships it (dpkg -S), which must be in
# the allowed set: the dependency closure of make deps' packages plus what a
# new system has. A word that is neither on PATH nor a function is listed
# as a diagnostic count (it may be data the heuristic took for a command).
set -u
cd "$(dirname "$0")/../.."
. selftests/lib/tap.sh

# (fresh-root.sh runs on the machine that builds the fresh root, not in it)
mapfile -t scripts < <(find selftests deploy -name '*.sh' -type f ! -name fresh-root.sh | sort)
deps=$(make -s --no-print-directory print-deps) || { tap_fail "make print-deps"; tap_done; }

# words in command position, one per line: "word file"
command_words() {
	local f
	for f in "$@"; do
		inq=""
		awk -v file="$f" '
		function emit(w) { if (w ~ /^[A-Za-z_][A-Za-z0-9_.+-]*$/) print w, file }
		# a quote left open at the end of a line (a jq or awk program, a
		# heredoc-like string) is data until it closes
		function close_quote(q,   k) {
			k = index(line, q)
			if (!k) { line = ""; return 0 }
			line = substr(line, k + 1); return 1
		}
		{
			line = $0
			cont = prev_cont; prev_cont = (line ~ /\\$/)
			if (inq != "" && !close_quote(inq)) next
			if (inq != "") { inq = ""; cont = 1 }
			if (line ~ /^[ \t]*#/) next
			gsub(/\\"/, "", line)
			gsub(/"[^"]*"/, " ", line)		# quoted text is data
			gsub(/\047[^\047]*\047/, " ", line)
			if (index(line, "\047")) { inq = "\047"; sub(/\047.*/, "", line) }
			else if (index(line, "\"")) { inq = "\""; sub(/".*/, "", line) }
			sub(/[ \t]#[ \t].*$/, "", line)		# trailing comment
			sub(/^[ \t]*[][A-Za-z0-9_.*?|$ -]+\)/, "", line)	# a case pattern
			gsub(/\$\(/, " ; ", line)
			gsub(/[|;&(){}`!]/, " ; ", line)
			n = split(line, t, /[ \t]+/)
			want = !cont; skipnum = 0; skipword = 0
			for (i = 1; i <= n; i++) {
				w = t[i]
				if (w == "") continue
				if (w == ";") { want = 1; skipnum = 0; skipword = 0; continue }
				if (!want) continue
				if (w ~ /^[A-Za-z_][A-Za-z0-9_]*=/) continue	# VAR=value cmd
				if (w ~ /^(then|do|else|elif|if|while|until|time|exec|command|builtin|sudo|setsid|nice|xargs|check)$/) continue
				if (w ~ /^-/) continue				# a wrapper option
				if (skipnum && w ~ /^[0-9.]+[smh]?$/) { skipnum = 0; continue }
				if (skipword) { skipword--; continue }
				if (w ~ /^(timeout|vm_wait_until)$/) { skipnum = 1; continue }
				if (w ~ /^(nsenter|env|stdbuf|unshare|strace|valgrind|rn_in_node)$/) { emit(w); continue }
				if (w == "rn_in" || w == "chroot") { skipword = 1; continue }
				if (w == "ip" && t[i + 1] == "netns" && t[i + 2] == "exec") { emit(w); i += 3; continue }
				emit(w); want = 0
			}
		}' "$f"
	done
}

# shell functions the scripts define themselves
functions=$(grep -hoE '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*\(\)' "${scripts[@]}" | tr -d ' \t()' | sort -u)

# Packages a new system has, and the dependency closure of those and make deps'.
allowed_packages() {	# allowed_packages DEPS...
	# shellcheck disable=SC2046
	apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances --installed apt make git ca-certificates mawk \
		$(dpkg-query -W -f='${Package} ${Essential}\n' | awk '$2 == "yes" { print $1 }') "$@" \
		2>/dev/null | grep -v '^ ' | sed 's/:.*//' | sort -u
}

# The Debian package that ships an executable path (merged /usr aware).
owner() {
	local p=$1 r alt
	r=$(readlink -f "$p")
	for alt in "$p" "$r" "${p/#\/usr\/bin//bin}" "${p/#\/usr\/sbin//sbin}" \
		"${p/#\/bin//usr/bin}" "${p/#\/sbin//usr/sbin}" "${r/#\/usr\/bin//bin}" "${r/#\/usr\/sbin//sbin}"; do
		dpkg -S "$alt" 2>/dev/null | grep -v '^diversion' | head -n 1 | sed 's/:.*//; s/, .*//' |
			grep . && return 0
	done
	return 1
}

# check_commands ALLOWED_FILE: one TAP line per command, in $words
check_commands() {
	local allowed=$1 w files path pkg
	while read -r w; do
		files=$(awk -v w="$w" '$1 == w { print $2 }' "$tmp/words" | sort -u | head -n 3 | tr '\n' ' ')
		if grep -qx "$w" <<<"$functions" || [ "$(type -t "$w" 2>/dev/null)" = builtin ] ||
			[ "$(type -t "$w" 2>/dev/null)" = keyword ]; then
			continue
		fi
		case "$w" in rdmanetd|rdmanetctl|rdmanet) continue ;; esac	# ours, built
		# where a Debian system finds it, not where this machine's PATH
		# (pyenv shims, /usr/local) happens to find it first
		if ! path=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin type -P "$w"); then
			path=$(type -P "$w") || { echo "$w" >>"$tmp/unfound"; continue; }	# not a command here: data the heuristic took for one
			tap_fail "$w ($path, used in $files) is not in Debian's /usr/bin, /usr/sbin, /bin or /sbin: make deps cannot install it"
			continue
		fi
		if ! pkg=$(owner "$path"); then
			tap_fail "$w ($path, used in $files) comes from no Debian package: make deps cannot install it"
			continue
		fi
		if grep -qx "$pkg" "$allowed"; then
			tap_ok "$w: $pkg"
		else
			tap_fail "$w ($path, used in $files) comes from $pkg, which make deps does not install"
		fi
	done < <(awk '{ print $1 }' "$tmp/words" | sort -u)
}

tmp=$(mktemp -d /tmp/rn-deps-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
command_words "${scripts[@]}" >"$tmp/words"
check_range "command words found in ${#scripts[@]} scripts" "$(awk '{ print $1 }' "$tmp/words" | sort -u | wc -l)" 20 100000

# The check itself can fail: without xdp-tools in the list, xdp-loader (used
# by the VM tests) must be flagged.
if type -P xdp-loader >/dev/null && grep -q '^xdp-loader ' "$tmp/words"; then
	# shellcheck disable=SC2046
	allowed_packages $(tr ' ' '\n' <<<"$deps" | grep -vx xdp-tools) >"$tmp/allowed-less"
	if grep -qx xdp-tools "$tmp/allowed-less"; then
		tap_skip "a package missing from make deps is caught" "xdp-tools is pulled in by another package"
	else
		out=$(check_commands "$tmp/allowed-less")
		check "a package missing from make deps is caught (xdp-tools dropped: xdp-loader flagged)" \
			grep -q '^not ok .*xdp-loader.*xdp-tools' <<<"$out"
	fi
else
	tap_skip "a package missing from make deps is caught" "xdp-loader is not installed or not used"
fi

# Python modules the tests' Python scripts import (and those run with
# `python3 -m`), with everything they import in turn (grpc_tools.protoc
# needs pkg_resources, which Debian ships apart): every file Debian's
# python3 loads for them must come from an allowed package.
py_module_files() {	# the files, one per line
	/usr/bin/python3 - "$@" <<'PY'
import ast, importlib, sys
startup = set(sys.modules)	# what the interpreter loads for itself (site, .pth hooks)
mods = set()
for path in sys.argv[1:]:
    tree = ast.parse(open(path).read(), path)
    for node in tree.body:	# top level: what runs before the script's own code
        if isinstance(node, ast.Import):
            mods.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            mods.add(node.module)
    for node in ast.walk(tree):
        if isinstance(node, ast.List):
            vals = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            mods.update(v for k, v in zip(vals, vals[1:]) if k == '-m' and isinstance(v, str))
for m in sorted(mods):
    try:
        importlib.import_module(m)
    except Exception as e:
        print("import-failed:%s:%s" % (m, e))
for name, m in list(sys.modules.items()):
    f = getattr(m, '__file__', None)
    if f and name not in startup:
        print(f)
PY
}

check_python() {	# check_python ALLOWED_FILE: a TAP line per offending file, or one ok
	local allowed=$1 f pkg bad=0
	py_module_files "${pyscripts[@]}" | sort -u >"$tmp/pyfiles"
	grep '^import-failed:' "$tmp/pyfiles" | while read -r f; do
		tap_fail "python3 cannot import ${f#import-failed:}"
	done
	grep -q '^import-failed:' "$tmp/pyfiles" && bad=1
	# one dpkg -S for all of them: "package: path"
	# shellcheck disable=SC2046
	dpkg -S $(grep -v '^import-failed:' "$tmp/pyfiles") 2>/dev/null | grep -v '^diversion' |
		sed 's/, [^:]*:/:/' | awk -F': ' '{ p = $1; sub(/:[a-z0-9]+$/, "", p); print $2, p }' >"$tmp/pyowners"
	while read -r f; do
		pkg=$(awk -v f="$f" '$1 == f { print $2; exit }' "$tmp/pyowners")
		if [ -z "$pkg" ]; then
			tap_fail "python module file $f comes from no Debian package: make deps cannot install it"
			bad=1
		elif ! grep -qx "$pkg" "$allowed"; then
			tap_fail "python module file $f comes from $pkg, which make deps does not install"
			bad=1
		fi
	done < <(grep -v '^import-failed:' "$tmp/pyfiles")
	[ $bad = 0 ] && tap_ok "every module file the tests' Python loads ($(wc -l <"$tmp/pyfiles")) comes from a package make deps installs"
}

mapfile -t pyscripts < <(find selftests deploy -name '*.py' -type f | sort)
# the check can fail: without python3-pkg-resources, grpc_tools' pkg_resources is flagged
# shellcheck disable=SC2046
allowed_packages $(tr ' ' '\n' <<<"$deps" | grep -vx python3-pkg-resources) >"$tmp/allowed-less"
if grep -qx python3-pkg-resources "$tmp/allowed-less"; then
	tap_skip "a Python module missing from make deps is caught" "python3-pkg-resources is pulled in by another package"
else
	out=$(check_python "$tmp/allowed-less")
	check "a Python module missing from make deps is caught (python3-pkg-resources dropped: pkg_resources flagged)" \
		grep -q '^not ok .*pkg_resources.*python3-pkg-resources' <<<"$out"
fi

# shellcheck disable=SC2086
allowed_packages $deps >"$tmp/allowed"
: >"$tmp/unfound"
check_commands "$tmp/allowed"
tap_diag "words in command position that are no command here (data to the heuristic): $(sort -u "$tmp/unfound" | tr '\n' ' ')"
check_python "$tmp/allowed"
tap_done

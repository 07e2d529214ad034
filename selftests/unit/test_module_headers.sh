#!/bin/bash
# One public header per module of user/lib: outside user/lib/M, the agent,
# the CLI, the CNI plugin and the other modules include only "M/M.h". The
# headers still included from outside are in module_headers.known, each
# group with why; any other fails. The check itself is tested on a tree.
. "$RN_SRC/selftests/lib/tap.sh"
HEADERS="$RN_SRC/selftests/lib/module_headers.py"
KNOWN="$RN_SRC/selftests/unit/module_headers.known"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$(python3 "$HEADERS" "$RN_SRC/user" --known "$KNOWN")
check_eq "user/: outside a module, only its public header (or a known one)" "$?" 0
while read -r line; do [ -n "$line" ] && tap_diag "$line"; done <<<"$out"

# a tree: module a (a.h public, inner.h private), module b, the agent
mkdir -p "$tmp/u/lib/a" "$tmp/u/lib/b" "$tmp/u/agent"
touch "$tmp/u/lib/a/a.h" "$tmp/u/lib/a/inner.h" "$tmp/u/lib/b/b.h"
printf '#include "a/a.h"\n#include "a/inner.h"\n' >"$tmp/u/lib/a/a.c"
echo '#include "a/a.h"' >"$tmp/u/lib/b/b.c"
echo '#include "b/b.h"' >"$tmp/u/agent/main.c"
: >"$tmp/none"
out=$(python3 "$HEADERS" "$tmp/u" --known "$tmp/none")
check_eq "public headers only, and a module's own private one: passes" "$?" 0
check_eq "... and prints nothing" "$out" ""

echo '#include "a/inner.h"' >>"$tmp/u/lib/b/b.c"
out=$(python3 "$HEADERS" "$tmp/u" --known "$tmp/none")
check_eq "another module includes a private header: fails" "$?" 1
check "... and names it with the file" grep -qx 'NEW a/inner.h (lib/b/b.c)' <<<"$out"
echo 'a/inner.h  # why' >"$tmp/known"
python3 "$HEADERS" "$tmp/u" --known "$tmp/known" >/dev/null
check_eq "the same include written down as known passes" "$?" 0

printf '#include "a/a.h"\n' >"$tmp/u/lib/b/b.c"
echo '#include "a/inner.h"' >"$tmp/u/agent/main.c"
out=$(python3 "$HEADERS" "$tmp/u" --known "$tmp/none")
check_eq "the agent includes a private header: fails too" "$?" 1
check "... named" grep -qx 'NEW a/inner.h (agent/main.c)' <<<"$out"

echo '#include "b/b.h"' >"$tmp/u/agent/main.c"
out=$(python3 "$HEADERS" "$tmp/u" --known "$tmp/known")
check_eq "a known header nobody includes any more: not a failure" "$?" 0
check "... but said, to be deleted from the list" grep -qx 'stale a/inner.h' <<<"$out"
# a header generated from a module's api/*.proto is that module's own
mkdir -p "$tmp/u/lib/a/api"
touch "$tmp/u/lib/a/api/msg.proto"
echo '#include "a/msg.pb-c.h"' >"$tmp/u/lib/a/inner.c"
out=$(python3 "$HEADERS" "$tmp/u" --known "$tmp/none")
check_eq "a module includes its own generated header: passes" "$?" 0
echo '#include "a/msg.pb-c.h"' >"$tmp/u/lib/b/b.c"
out=$(python3 "$HEADERS" "$tmp/u" --known "$tmp/none")
check_eq "another module includes it (the .pb-c.h is not in the tree): fails" "$?" 1
check "... named" grep -qx 'NEW a/msg.pb-c.h (lib/b/b.c)' <<<"$out"
tap_done

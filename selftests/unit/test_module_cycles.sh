#!/bin/bash
# No include cycle between the modules of user/lib (none is tolerated:
# the last ones went with issue 22), and the check itself fires on a cycle
# and passes a tree without one.
. "$RN_SRC/selftests/lib/tap.sh"
CYCLES="$RN_SRC/selftests/lib/module_cycles.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$(python3 "$CYCLES" "$RN_SRC/user/lib")
rc=$?
check_eq "user/lib: no include cycle between modules" "$rc" 0
grep '^NEW' <<<"$out" | while read -r line; do tap_diag "$line"; done

# a small tree: a -> b -> a through a bare include resolved at the root
mkdir -p "$tmp/t/a" "$tmp/t/b"
echo '#include "b/b.h"' >"$tmp/t/a/a.c"
echo '#include "a/a.h"' >"$tmp/t/b/b.c"
touch "$tmp/t/a/a.h" "$tmp/t/b/b.h" "$tmp/t/base.h"
: >"$tmp/none"
out=$(python3 "$CYCLES" "$tmp/t" --known "$tmp/none")
check_eq "a cycle a -> b -> a fails the check" "$?" 1
check "... and names both edges with the file" \
	grep -q '^NEW a -> b (a/a.c includes b/b.h)' <<<"$out"
check "... the other way too" grep -q '^NEW b -> a (b/b.c includes a/a.h)' <<<"$out"
printf 'a b\nb a\n' >"$tmp/known"
python3 "$CYCLES" "$tmp/t" --known "$tmp/known" >/dev/null
check_eq "the same cycle written down as known passes" "$?" 0
# b depends on a and on the root's files, nothing depends back: no cycle
echo '#include "base.h"' >"$tmp/t/b/b.c"
echo '#include "base.h"' >"$tmp/t/a/a.c"
echo '#include "a/a.h"' >>"$tmp/t/b/b.c"
out=$(python3 "$CYCLES" "$tmp/t" --known "$tmp/none")
check_eq "a tree without a cycle passes" "$?" 0
check_eq "... and prints nothing" "$out" ""
# a header in the includer's own folder is its own module's, not the
# root's: the root includes a, a includes its own base.h (as the compiler
# finds it), no cycle; without a/base.h, a -> root -> a is one
: >"$tmp/t/b/b.c"
echo '#include "base.h"' >"$tmp/t/a/a.c"
echo '#include "a/a.h"' >"$tmp/t/base.h"
python3 "$CYCLES" "$tmp/t" --known "$tmp/none" >/dev/null
check_eq "a bare include of the root's header: a cycle a -> lib -> a" "$?" 1
touch "$tmp/t/a/base.h"
python3 "$CYCLES" "$tmp/t" --known "$tmp/none" >/dev/null
check_eq "the same include with a/base.h there: a's own, no cycle" "$?" 0
tap_done

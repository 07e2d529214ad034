#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""One public header per module of user/lib: outside a folder M (a module),
files include only "M/M.h"; M's other headers are private to it.

Checks every .c/.h under ROOT (user/: the library, the agent, the CLI, the
CNI plugin). An include "M/x.h" of an existing user/lib/M/x.h from outside
M, with x != M, breaks the rule unless "M/x.h" is in the known list
(a header generated from M's api/X.proto, "M/X.pb-c.h", is M's too)
(--known FILE: one header a line, # comments). Tests are not checked: a
module's unit tests may include its private headers.
Prints "NEW M/x.h (FILE)" for each break (exit 1), and "stale M/x.h" for a
known header nobody outside includes any more: a line to delete, not a
failure (several engineers change the tree at once; an include that went
away in one change must not fail another's tests).

usage: module_headers.py ROOT [--known FILE]"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def modules(lib):
    return {d for d in os.listdir(lib) if os.path.isdir(os.path.join(lib, d))}


def generated(lib, parts):
    """"M/X.pb-c.h", generated from M's own api/X.proto: private to M"""
    stem = parts[1][:-len('.pb-c.h')] if parts[1].endswith('.pb-c.h') else None
    return stem is not None and os.path.exists(os.path.join(lib, parts[0], 'api', stem + '.proto'))


def outside_includes(root):
    """{ "M/x.h": first file outside M that includes it } for x != M."""
    lib = os.path.join(root, 'lib')
    mods = modules(lib)
    out = {}
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            src = os.path.join(d, f)
            rel = os.path.relpath(src, lib)
            own = rel.split(os.sep)[0] if not rel.startswith('..') and os.sep in rel else None
            with open(src, errors='replace') as fh:
                text = fh.read()
            for h in INCLUDE.findall(text):
                parts = h.split('/')
                if len(parts) != 2 or parts[0] not in mods or parts[0] == own:
                    continue
                if not os.path.exists(os.path.join(lib, h)) and not generated(lib, parts):
                    continue	# not a module's
                if parts[1] == parts[0] + '.h':
                    continue
                out.setdefault(h, os.path.relpath(src, root))
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    known = set()
    if len(argv) == 4 and argv[2] == '--known':
        with open(argv[3]) as fh:
            for line in fh:
                line = line.split('#')[0].split()
                if len(line) == 1:
                    known.add(line[0])
    found = outside_includes(argv[1])
    bad = 0
    for h in sorted(found):
        if h not in known:
            print('NEW %s (%s)' % (h, found[h]))
            bad += 1
    for h in sorted(known - set(found)):
        print('stale %s' % h)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

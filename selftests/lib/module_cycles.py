#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Include cycles between the modules of user/lib (each folder a module; the
files directly in user/lib are the module "lib").

An edge A -> B: a file of A includes a header of B (#include "B/x.h", or a
bare "x.h" that is not in the file's folder and resolves to user/lib/x.h).
Every edge on a cycle is printed; the run fails (exit 1) when a cycle uses an
edge that is not in the known list (--known FILE: lines "A B", # comments;
without it, any cycle fails: user/lib has none).

usage: module_cycles.py ROOT [--known FILE]"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(root, path):
    rel = os.path.relpath(path, root)
    return 'lib' if os.sep not in rel else rel.split(os.sep)[0]


def edges(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            if not f.endswith(('.c', '.h')):
                continue
            src = os.path.join(d, f)
            a = module_of(root, src)
            with open(src, errors='replace') as fh:
                text = fh.read()
            for h in INCLUDE.findall(text):
                for cand in (os.path.join(d, h), os.path.join(root, h)):
                    cand = os.path.normpath(cand)
                    if os.path.exists(cand):
                        break
                else:
                    continue	# a generated or outside header
                if not cand.startswith(os.path.normpath(root) + os.sep):
                    continue
                b = module_of(root, cand)
                if a != b:
                    out.setdefault((a, b), os.path.relpath(src, root) + ' includes ' + h)
    return out


def on_cycles(graph):
    """The edges that lie on a cycle: A -> B where B reaches A."""
    succ = {}
    for a, b in graph:
        succ.setdefault(a, set()).add(b)

    def reaches(x, goal):
        seen, todo = set(), [x]
        while todo:
            n = todo.pop()
            if n == goal:
                return True
            if n not in seen:
                seen.add(n)
                todo.extend(succ.get(n, ()))
        return False

    return sorted(e for e in graph if reaches(e[1], e[0]))


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    known = set()
    if len(argv) == 4 and argv[2] == '--known':
        with open(argv[3]) as fh:
            for line in fh:
                line = line.split('#')[0].split()
                if len(line) == 2:
                    known.add(tuple(line))
    graph = edges(argv[1])
    bad = 0
    for e in on_cycles(graph):
        new = e not in known
        bad += new
        print('%s %s -> %s (%s)' % ('NEW' if new else 'known', e[0], e[1], graph[e]))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

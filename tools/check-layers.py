#!/usr/bin/env python3
"""Checks the layer order written in engine/LAYERS (`make layers`, in CI).

Two rules, no exceptions:

1. Includes go down or sideways: a file in folder F may include (#include
   "...", resolved relative to the file) only files in F or in a folder
   listed before F. Each offending include is named as FILE:LINE.
2. No circles among files: from the built objects (nm), file A depends on
   file B when A uses a symbol that B defines. A set of files that depend
   on each other in a circle is named with the symbols that close it. This
   also catches a call into a higher layer made through an extern
   declaration rather than a header, so calls are held to rule 1 as well.

usage: check-layers.py LAYERS BUILD_DIR
Exit status 0 when both hold, 1 with one line per violation otherwise, 2 on
a usage or setup error.
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def read_layers(path):
    order = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                order.append(line.split()[0].rstrip('/'))
    return order


def folder_of(path, order):
    """The listed folder a repository path belongs to (longest match)."""
    best = None
    for folder in order:
        if path == folder or path.startswith(folder + '/'):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def sources(order):
    for folder in order:
        for root, _dirs, files in os.walk(folder):
            for name in sorted(files):
                if name.endswith(('.c', '.h')):
                    yield os.path.normpath(os.path.join(root, name))


def check_includes(order, rank, problems):
    for src in sources(order):
        me = folder_of(src, order)
        with open(src, encoding='utf-8', errors='replace') as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = os.path.normpath(os.path.join(os.path.dirname(src), m.group(1)))
                if not os.path.exists(target):
                    continue  # generated at build time, or a system header by mistake
                them = folder_of(target, order)
                if them is None:
                    problems.append(f'{src}:{lineno}: includes {target}, which is in no '
                                    f'folder of engine/LAYERS')
                elif rank[them] > rank[me]:
                    problems.append(f'{src}:{lineno}: includes {target}: {them} is above '
                                    f'{me} in engine/LAYERS')


def symbols(obj):
    out = subprocess.run(['nm', '-P', obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == 'U':
            used.add(name)
        elif kind in 'TDBRCGSVW':
            defined.add(name)
    return defined, used


def check_calls(order, rank, build, problems):
    defined_in = {}
    uses = {}
    for src in sources(order):
        if not src.endswith('.c'):
            continue
        obj = os.path.join(build, src[:-2] + '.o')
        if not os.path.exists(obj):
            problems.append(f'{src}: no object {obj} (build first: make layers builds it)')
            continue
        defined, used = symbols(obj)
        for name in defined:
            defined_in[name] = src
        uses[src] = used
    edges = {}
    for src, used in uses.items():
        for name in sorted(used):
            dst = defined_in.get(name)
            if dst and dst != src:
                edges.setdefault(src, {}).setdefault(dst, []).append(name)
    # Rule 1 for calls: a use of a symbol defined in a higher folder.
    for src, dsts in sorted(edges.items()):
        me = folder_of(src, order)
        for dst, names in sorted(dsts.items()):
            them = folder_of(dst, order)
            if rank[them] > rank[me]:
                problems.append(f'{src}: uses {", ".join(names[:3])} from {dst}: {them} is '
                                f'above {me} in engine/LAYERS')
    # Rule 2: strongly connected components of more than one file (Tarjan).
    index, low, stack, on_stack, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(edges.get(v, {}))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    advanced = True
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))

    for v in sorted(uses):
        if v not in index:
            visit(v)
    for comp in comps:
        links = []
        for a in comp:
            for b, names in sorted(edges.get(a, {}).items()):
                if b in comp:
                    links.append(f'{a} -> {b} ({", ".join(names[:3])})')
        problems.append('circle among ' + ', '.join(comp) + ':\n    ' + '\n    '.join(links))


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-4], file=sys.stderr)
        return 2
    layers, build = argv[1], argv[2]
    try:
        order = read_layers(layers)
    except OSError as e:
        print(f'check-layers: {layers}: {e.strerror}', file=sys.stderr)
        return 2
    rank = {folder: i for i, folder in enumerate(order)}
    for folder in order:
        if not os.path.isdir(folder):
            print(f'check-layers: {layers}: no folder {folder}', file=sys.stderr)
            return 2
    problems = []
    check_includes(order, rank, problems)
    check_calls(order, rank, build, problems)
    for p in problems:
        print(p)
    if problems:
        print(f'layers: {len(problems)} violation(s) of {layers}', file=sys.stderr)
        return 1
    print(f'layers: {len(order)} folders in order, no upward include or call, no circle')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

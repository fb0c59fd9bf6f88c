#!/bin/sh
# tools/check-layers.py must fail where the layer order is broken, or a
# passing `make layers` proves nothing. Builds three small trees in a
# temporary directory, each with its own engine/LAYERS (lower: low, then
# high), and checks the verdict and the message of each:
#   1. an include from the lower folder into the higher one: named FILE:LINE;
#   2. two files of one folder that call each other: the circle and its symbols;
#   3. a call into the higher folder through an extern declaration, no header;
# and that the same tree without them passes.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
check="$here/tools/check-layers.py"
cc=${CC:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check-layers self-test: FAIL: $*" >&2; exit 1; }

# tree DIR: a clean two-layer tree, built.
tree() {
	mkdir -p "$1/engine" "$1/low" "$1/high" "$1/build/low" "$1/build/high"
	printf 'low\nhigh\n' >"$1/engine/LAYERS"
	printf 'int low_fn(void);\n' >"$1/low/low.h"
	printf '#include "low.h"\nint low_fn(void) { return 1; }\n' >"$1/low/low.c"
	printf 'int high_fn(void);\n' >"$1/high/high.h"
	printf '#include "high.h"\n#include "../low/low.h"\nint high_fn(void) { return low_fn(); }\n' \
		>"$1/high/high.c"
}
build() {
	for c in "$1"/low/*.c "$1"/high/*.c; do
		rel=${c#"$1"/}
		"$cc" -c -o "$1/build/${rel%.c}.o" "$c" || fail "cannot compile $rel"
	done
}
run() { (cd "$1" && python3 "$check" engine/LAYERS build) >"$1/out" 2>&1; }

tree "$work/ok"; build "$work/ok"
run "$work/ok" || fail "a clean tree was refused: $(cat "$work/ok/out")"

tree "$work/up"
printf '#include "../high/high.h"\n#include "low.h"\nint low_fn(void) { return 1; }\n' \
	>"$work/up/low/low.c"
build "$work/up"
run "$work/up" && fail "an upward include passed"
grep -q '^low/low.c:1: includes high/high.h: high is above low' "$work/up/out" ||
	fail "upward include not named: $(cat "$work/up/out")"

tree "$work/circle"
printf 'int b(void);\nint a(void) { return b(); }\n' >"$work/circle/high/a.c"
printf 'int a(void);\nint b(void) { return a() + 1; }\n' >"$work/circle/high/b.c"
build "$work/circle"
run "$work/circle" && fail "a circle passed"
grep -q '^circle among high/a.c, high/b.c' "$work/circle/out" &&
	grep -q 'high/a.c -> high/b.c (b)' "$work/circle/out" ||
	fail "circle not named: $(cat "$work/circle/out")"

tree "$work/call"
printf 'int high_fn(void);\nint low_fn(void) { return high_fn(); }\n' >"$work/call/low/low.c"
build "$work/call"
run "$work/call" && fail "an upward call through an extern declaration passed"
grep -q '^low/low.c: uses high_fn from high/high.c: high is above low' "$work/call/out" ||
	fail "upward call not named: $(cat "$work/call/out")"

echo "check-layers self-test: 4 passed, 0 failed"

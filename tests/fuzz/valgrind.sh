#!/bin/sh
# Replays each fuzz target's inputs under valgrind (make fuzz-valgrind):
#   sh tests/fuzz/valgrind.sh BUILD FUZZBUILD TARGET...
# BUILD/fuzz-replay/fuzz-TARGET is the target built without sanitizers
# around tests/fuzz/replay.c; it runs once over the regression inputs, the
# seeds and (up to FUZZ_VALGRIND_MAX files, 300 by default) what the fuzzer
# kept in FUZZBUILD/fuzz/corpus/TARGET. ASan does not see accesses inside
# libjansson and libyaml (not instrumented); valgrind does. An invalid
# access, an uninitialised value used, or a definite leak fails the target
# (log: FUZZBUILD/fuzz/logs/TARGET.valgrind). Prints one line per target,
# then "fuzz-valgrind: N passed, N failed".
set -u
build=$1 fbuild=$2
shift 2
max=${FUZZ_VALGRIND_MAX:-300}
here=$(cd "$(dirname "$0")" && pwd)
work=$fbuild/fuzz
mkdir -p "$work/logs"
command -v valgrind >/dev/null || { echo "fuzz-valgrind: valgrind not installed (tools/install-deps.sh)" >&2; exit 1; }

pass=0 fail=0
for t in "$@"; do
	bin=$build/fuzz-replay/fuzz-$t
	log=$work/logs/$t.valgrind
	list=$work/valgrind-$t.list
	: > "$list"
	# the parse target's regression inputs get their parser byte from run.sh
	if [ "$t" = parse ] && [ -d "$work/regress-parse" ]; then
		find "$work/regress-parse" -type f >> "$list"
	elif [ -d "$here/regress/$t" ]; then
		find "$here/regress/$t" -type f ! -name '*.md' >> "$list"
	fi
	s=$t
	[ "$t" = tuimodel ] && s=eventlog # the same files (run.sh's seed)
	for d in "$work/seeds/$t" "$here/seeds/$s"; do
		[ -d "$d" ] && find "$d" -type f >> "$list"
	done
	[ -d "$work/corpus/$t" ] && find "$work/corpus/$t" -type f | sort | head -n "$max" >> "$list"
	n=$(wc -l < "$list")
	# shellcheck disable=SC2046
	if [ "$n" -eq 0 ] || tr '\n' '\0' < "$list" | xargs -0 valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --show-leak-kinds=definite "$bin" > "$log" 2>&1; then
		pass=$((pass + 1))
		echo "fuzz-valgrind: $t: ok ($n inputs)"
	else
		fail=$((fail + 1))
		echo "fuzz-valgrind: $t: FINDING (log: $log)"
		grep -E "^==[0-9]+== (Invalid|Conditional|Use of|.*definitely lost)" "$log" | head -5
	fi
done
echo "fuzz-valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

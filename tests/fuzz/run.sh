#!/bin/sh
# Runs the libFuzzer targets built in BUILD (make fuzz-build):
#   sh tests/fuzz/run.sh BUILD TARGET...
# For each target: replays every file of tests/fuzz/regress/TARGET/ once (a
# plain run, so the fixed defects stay fixed), then fuzzes FUZZ_SECONDS
# (0: replay only) from seeds copied out of tests/fixtures and
# tests/fuzz/seeds/, keeping what it learns in BUILD/fuzz/corpus/TARGET.
# A crash, leak, timeout (FUZZ_TIMEOUT s per input) or memory blow-up
# (FUZZ_RSS_MB) is a finding: the input goes to BUILD/fuzz/findings/ and
# the run fails. Prints one line per target, then "fuzz: N passed, N failed".
set -u
build=$1
shift
secs=${FUZZ_SECONDS:-60}
timeout=${FUZZ_TIMEOUT:-10}
rss=${FUZZ_RSS_MB:-2048}
maxlen=${FUZZ_MAX_LEN:-16384}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$build/fuzz
mkdir -p "$work/findings" "$work/logs"

# parser_names: engine/facts/parse.c's table, in order (the parse target's first
# input byte is an index into it).
parser_names() {
	sed -n 's/^	{ "\([^"]*\)", ".*/\1/p' "$root/engine/facts/parse.c"
}

# regress_dir TARGET: the regression inputs to replay. A parse input is
# named PARSER--WHAT.bin and its first byte is set here to PARSER's index,
# so that it still reaches its parser when the table grows.
regress_dir() {
	if [ "$1" != parse ]; then
		echo "$here/regress/$1"
		return
	fi
	rm -rf "$work/regress-parse"
	mkdir -p "$work/regress-parse"
	for f in "$here/regress/parse"/*; do
		b=$(basename "$f")
		i=$(parser_names | awk -v n="${b%%--*}" '$0 == n { print NR - 1; exit }')
		[ -n "$i" ] || { echo "fuzz: $b names no parser" >&2; return 1; }
		{ printf "\\$(printf %03o "$i")"; tail -c +2 "$f"; } >"$work/regress-parse/$b"
	done
	echo "$work/regress-parse"
}

# Seeds are rebuilt each run from the fixtures, so they follow the tree.
seed() {
	t=$1 dir=$work/seeds/$1
	rm -rf "$dir"
	mkdir -p "$dir"
	case $t in
	yamltree)
		cp "$root"/tests/fixtures/inventory/*.yaml "$root"/tests/fixtures/playbooks/*.yaml \
			"$root"/playbooks/*.yaml "$dir"/ ;;
	inventory)
		cp "$root"/tests/fixtures/inventory/*.yaml "$dir"/
		for f in "$root"/inventory/*.yaml; do [ -f "$f" ] && cp "$f" "$dir"/; done ;;
	playbook)
		cp "$root"/tests/fixtures/playbooks/*.yaml "$root"/playbooks/*.yaml "$dir"/ ;;
	tuimodel)
		cp "$here"/seeds/eventlog/* "$dir"/ ;;
	tmpl)
		for f in "$root"/templates/openshift/*.yaml; do [ -f "$f" ] && cp "$f" "$dir"/; done ;;
	parse)
		# first byte: the parser's index in engine/facts/parse.c's sorted table
		i=0
		for name in $(parser_names); do
			for f in "$root/tests/fixtures/tools/$name"/*; do
				[ -f "$f" ] || continue
				{ printf "\\$(printf %03o "$i")"; cat "$f"; } > "$dir/$name-$(basename "$f")"
			done
			i=$((i + 1))
		done ;;
	esac
	[ -d "$here/seeds/$t" ] && cp "$here/seeds/$t"/* "$dir"/
	return 0
}

pass=0 fail=0
for t in "$@"; do
	bin=$build/fuzz-bin/fuzz-$t
	log=$work/logs/$t.log
	opts="-rss_limit_mb=$rss -malloc_limit_mb=$rss -artifact_prefix=$work/findings/$t-"
	: > "$log"
	ok=1
	if [ -d "$here/regress/$t" ]; then
		# some are large on purpose (65,536 hosts): a looser limit, on a
		# loaded machine; the unit tests time the fixed paths themselves
		rdir=$(regress_dir "$t") || ok=0
		# shellcheck disable=SC2086
		[ "$ok" = 0 ] || "$bin" $opts -timeout=$((timeout * 6)) "$rdir"/* >> "$log" 2>&1 || ok=0
	fi
	runs=0
	if [ "$ok" = 1 ] && [ "$secs" -gt 0 ]; then
		seed "$t"
		mkdir -p "$work/corpus/$t"
		# shellcheck disable=SC2086
		"$bin" $opts -timeout="$timeout" -max_len="$maxlen" -max_total_time="$secs" -print_final_stats=1 \
			"$work/corpus/$t" "$work/seeds/$t" >> "$log" 2>&1 || ok=0
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	fi
	if [ "$ok" = 1 ]; then
		pass=$((pass + 1))
		echo "fuzz: $t: ok (regress replayed, ${runs:-0} runs in ${secs}s)"
	else
		fail=$((fail + 1))
		echo "fuzz: $t: FINDING (log: $log)"
		grep -E "^(==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written)" "$log" | head -8
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

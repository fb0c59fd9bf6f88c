#!/bin/sh
# Runs every tests/integration/tNNNN-*.sh against the simulated cluster.
# A test exits 0 (pass), 77 (skip: its last line must name the missing
# optional tool, as lib.sh's skip prints it; any other skip is a failure) or
# anything else (fail).
# INTEGRATION_JOBS=N runs N tests at a time (each has its own cluster and directory);
# the default is two: most of a test's time is spent waiting on its simulated
# nodes, but three at a time saturated two cores when the long tests met
# (load 20-70) and a precheck's 60 s facts limit ran out. Results print as
# tests end.
# Last line: "integration: N passed, N failed, N skipped".
here=$(cd "$(dirname "$0")" && pwd)
: "${BRINGUP:?set BRINGUP to the bringup binary}"
export BRINGUP
jobs=${INTEGRATION_JOBS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run_one TEST: runs it, prints its result (one block, so that parallel
# queues do not interleave lines) and records it in $work/results.
# INTEGRATION_RETRIES=N (CI sets 1) runs a failed test again up to N times:
# a test that passes only on a retry is printed with its first failure and
# counted as flaky in the last line, so it is seen and fixed, not hidden.
retries=${INTEGRATION_RETRIES:-0}
run_one() {
	t=$1
	name=$(basename "$t" .sh)
	log="$work/$name.log"
	tries=0 first=
	while :; do
		start=$(date +%s)
		sh "$t" >"$log" 2>&1
		rc=$?
		secs=$(( $(date +%s) - start ))
		case $rc in 0|77) break;; esac
		[ "$tries" -lt "$retries" ] || break
		tries=$((tries + 1))
		first="$first
    FAILED first (exit $rc, ${secs}s), passed on retry $tries:
$(sed 's/^/    | /' "$log" | tail -n 30)"
	done
	if [ -n "$first" ] && [ $rc -eq 0 ]; then
		printf 'ok   %s (%ss) FLAKY%s\n' "$name" "$secs" "$first"
		printf 'flaky %s\n' "$name" >>"$work/results"
		printf 'pass %s\n' "$name" >>"$work/results"
		rm -f "$log"
		return
	fi
	case $rc in
	0) res=pass; out="ok   $name (${secs}s)";;
	77)
		why=$(tail -n 1 "$log")
		case $why in
		"missing optional tool: "*) res=skip; out="skip $name: $why";;
		*) res=fail; out="FAIL $name (skipped without naming a missing tool: $why)";;
		esac;;
	*) res=fail; out="FAIL $name (exit $rc, ${secs}s)
$(sed 's/^/    | /' "$log" | tail -n 60)";;
	esac
	printf '%s\n' "$out"
	printf '%s %s %s\n' "$res" "$name" "$why" >>"$work/results"
	rm -f "$log"
}

# One queue that every worker takes its next test from, the longest tests
# first (their names in slow-first, measured on CI's 2 cores): a fixed
# share per worker left one worker running the 16-node upgrade while the
# other had finished. flock(1) (util-linux) makes the take atomic.
: >"$work/queue"
for name in $(grep -v '^#' "$here/slow-first"); do
	t="$here/$name.sh"
	[ -e "$t" ] && echo "$t" >>"$work/queue"
done
for t in "$here"/t[0-9]*.sh; do
	[ -e "$t" ] || continue
	grep -qxF "$t" "$work/queue" || echo "$t" >>"$work/queue"
done
if [ -n "${TESTS-}" ]; then
	while read -r t; do
		case " $TESTS " in *" $(basename "$t" .sh) "*) echo "$t";; esac
	done <"$work/queue" >"$work/queue.sel"
	mv "$work/queue.sel" "$work/queue"
fi
echo 0 >"$work/next"
# take: prints the next test's path, or nothing when the queue is empty.
take() {
	flock "$work/next" sh -c 'i=$(($(cat "$1") + 1)); echo $i >"$1"; sed -n "${i}p" "$2"' \
		sh "$work/next" "$work/queue"
}
: >"$work/results"
# How busy the machine was while the suite ran (all CPUs, /proc/stat): the
# number that says whether more tests at a time would finish sooner.
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6; exit }' /proc/stat 2>/dev/null; }
suite_start=$(date +%s)
ticks0=$(cpu_ticks)
k=0
while [ $k -lt "$jobs" ]; do
	( while t=$(take) && [ -n "$t" ]; do why=; run_one "$t" </dev/null; done ) &
	k=$((k + 1))
done
wait

pass=$(grep -c '^pass ' "$work/results")
fail=$(grep -c '^fail ' "$work/results")
skip=$(grep -c '^skip ' "$work/results")
if [ "$skip" -gt 0 ]; then
	echo "skipped:"
	grep '^skip ' "$work/results" | sed 's/^skip \([^ ]*\) \(.*\)/  \1: \2/'
fi
ticks1=$(cpu_ticks)
if [ -n "$ticks0" ] && [ -n "$ticks1" ]; then
	set -- $ticks0 $ticks1
	busy=$(( $3 - $1 )) idle=$(( $4 - $2 ))
	[ $((busy + idle)) -gt 0 ] &&
		echo "integration: $(( $(date +%s) - suite_start )) s, $jobs at a time, CPU busy $(( 100 * busy / (busy + idle) ))% of $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cores"
fi
flaky=$(grep -c '^flaky ' "$work/results")
if [ "$flaky" -gt 0 ]; then
	echo "flaky (failed, then passed on a retry):"
	grep '^flaky ' "$work/results" | sed 's/^flaky /  /'
fi
echo "integration: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

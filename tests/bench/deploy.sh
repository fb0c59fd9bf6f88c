#!/bin/sh
# make bench (deploy): the time of an idempotent re-deploy -- the built-in
# playbook on hosts it has already converged, so every stage only checks --
# against `bringup precheck` on the same hosts. Target: at most 2x precheck.
# Results go to stdout and build/bench/deploy.txt.
#
#   BENCH_DEPLOY_SIZES="64 256"   host counts (default)
#   BENCH_RUNS=3                  runs per measurement; the median is reported
set -u
: "${BRINGUP:?set BRINGUP to the bringup binary}"
SIZES=${BENCH_DEPLOY_SIZES:-64 256}
RUNS=${BENCH_RUNS:-3}
out_dir=$(pwd)/build/bench
mkdir -p "$out_dir"
results="$out_dir/deploy.txt"
export BRINGUP_SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/bringup-bench-deploy.XXXXXX")
state=$BRINGUP_SIM_DIR/deploy-state
trap '"$BRINGUP" sim down >/dev/null 2>&1; rm -rf "$BRINGUP_SIM_DIR"' EXIT INT TERM

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure CMD...: "WALL RSS", the median wall seconds and the largest peak
# RSS (MB) over RUNS (exit status ignored: a bare cluster fails precheck's
# OFED checks, which costs precheck nothing less).
measure() {
	walls="" rss=0
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%e %M' -o "$out_dir/time.$$" "$@" >/dev/null 2>&1
		read -r w kb <<-EOF
		$(tail -n 1 "$out_dir/time.$$")
		EOF
		walls="$walls $w"
		[ "$kb" -gt "$rss" ] && rss=$kb
	done
	echo "$(echo $walls | tr ' ' '\n' | median) $((rss / 1024))"
}

printf '%-6s %-28s %10s %10s\n' hosts what wall_s max_rss_mb | tee "$results"
for n in $SIZES; do
	"$BRINGUP" sim down >/dev/null 2>&1
	rm -rf "$state"
	inv=$("$BRINGUP" sim up -n "$n" --state bare | sed -n 's/^inventory: //p')
	[ -f "$inv" ] || { echo "sim up -n $n failed" >&2; exit 1; }
	"$BRINGUP" deploy -i "$inv" --state-dir "$state" -f "${BENCH_FORKS:-64}" >"$out_dir/converge.$$" 2>&1 ||
		{ echo "deploy on $n hosts did not converge:" >&2; tail -n 20 "$out_dir/converge.$$" >&2; exit 1; }
	set -- $(measure "$BRINGUP" precheck -i "$inv" -f "${BENCH_FORKS:-64}")
	pre=$1 pre_rss=$2
	set -- $(measure "$BRINGUP" deploy -i "$inv" --state-dir "$state" -f "${BENCH_FORKS:-64}")
	dep=$1 dep_rss=$2
	"$BRINGUP" deploy -i "$inv" --state-dir "$state" -f "${BENCH_FORKS:-64}" | grep -q "changed=0 failed=0" ||
		echo "warning: the re-deploy on $n hosts was not idempotent" >&2
	printf '%-6s %-28s %10s %10s\n' "$n" "precheck" "$pre" "$pre_rss" | tee -a "$results"
	printf '%-6s %-28s %10s %10s\n' "$n" "deploy (converged, no-op)" "$dep" "$dep_rss" |
		tee -a "$results"
	printf '%-6s %-28s %10s  (target <= 2.00)\n' "$n" "ratio deploy/precheck" \
		"$(awk "BEGIN{printf \"%.2f\", $dep/$pre}")" | tee -a "$results"
done
rm -f "$out_dir"/*.$$
echo "results: $results"

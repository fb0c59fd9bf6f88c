#!/bin/sh
# make bench (validate): the rdma stage's scheduling on a healthy cluster.
# N nodes meet in N-1 rounds of disjoint pairs, every compute port at once;
# the stage's wall time against rounds x the per-test duration says what
# bringup (and, here, the simulator's stand-ins on this machine's cores)
# adds per round. Target: within 15% at 16 nodes (issue 12).
# Results: stdout and build/bench/validate.txt.
#
#   BENCH_VALIDATE_SIZES="16"   node counts
#   BENCH_RUNS=3                runs per size (median)
set -u
: "${BRINGUP:?set BRINGUP to the bringup binary}"
SIZES=${BENCH_VALIDATE_SIZES:-16}
RUNS=${BENCH_RUNS:-3}
out_dir=$(pwd)/build/bench
mkdir -p "$out_dir"
results="$out_dir/validate.txt"
export BRINGUP_SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/bringup-bench-validate.XXXXXX")
trap '"$BRINGUP" sim down >/dev/null 2>&1; rm -rf "$BRINGUP_SIM_DIR"' EXIT INT TERM

printf '%-6s %-6s %-6s %-10s %-10s %s\n' nodes rounds ports wall_s ideal_s "over ideal (target <= 15%)" |
	tee "$results"
for n in $SIZES; do
	"$BRINGUP" sim down >/dev/null 2>&1
	inv=$("$BRINGUP" sim up -n "$n" --state ready | sed -n 's/^inventory: //p')
	[ -f "$inv" ] || { echo "sim up -n $n failed" >&2; exit 1; }
	printf '\nvalidate:\n  tries: 1\n' >>"$inv"
	: >"$out_dir/validate.$$"
	for _ in $(seq "$RUNS"); do
		"$BRINGUP" validate --no-baseline -i "$inv" --stage rdma -o json \
			--output "$out_dir/validate.json" >/dev/null 2>&1 ||
			{ echo "validate on $n nodes failed" >&2; exit 1; }
		python3 - "$out_dir/validate.json" >>"$out_dir/validate.$$" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
ports = len({(r["hca"], r["port"]) for r in s["results"]})
print(s["wall_s"], s["round_count"], ports, s["round_count"] * s["duration_s"])
PY
	done
	sort -n "$out_dir/validate.$$" | awk -v n="$n" '{ a[NR] = $0 } END {
		split(a[int((NR + 1) / 2)], m, " ")
		printf "%-6s %-6s %-6s %-10s %-10s %.1f%%\n", n, m[2], m[3], m[1], m[4], (m[1] / m[4] - 1) * 100 }' |
		tee -a "$results"
done
rm -f "$out_dir/validate.$$"

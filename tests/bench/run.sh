#!/bin/sh
# make bench: wall time and peak memory of bringup's fan-out against plain
# OpenSSH fanned out with xargs -P, on the same simulated hosts running the
# same probe. Results go to stdout and build/bench/results.txt.
#
#   BENCH_SIZES="16 64 256"   host counts (default)
#   BENCH_RUNS=3              runs per measurement; the median is reported
set -u
: "${BRINGUP:?set BRINGUP to the bringup binary}"
SIZES=${BENCH_SIZES:-16 64 256}
RUNS=${BENCH_RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
out_dir=$(pwd)/build/bench
mkdir -p "$out_dir"
results="$out_dir/results.txt"
export BRINGUP_SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/bringup-bench.XXXXXX")
trap '"$BRINGUP" sim down >/dev/null 2>&1; rm -rf "$BRINGUP_SIM_DIR"' EXIT INT TERM
PROBE=${BENCH_PROBE:-'hostname; uname -r; ofed_info -s; cat /etc/os-release >/dev/null'}

# median of numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure LABEL CMD...: prints "wall_s peak_kb" (median wall, max rss)
measure() {
	label=$1; shift
	walls="" peak=0
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%e %M' -o "$out_dir/time.$$" "$@" >/dev/null 2>"$out_dir/err.$$"
		read -r w m <"$out_dir/time.$$"
		walls="$walls $w"
		[ "$m" -gt "$peak" ] && peak=$m
	done
	echo "$(echo $walls | tr ' ' '\n' | median) $peak"
}

printf '%-6s %-26s %10s %12s\n' hosts tool wall_s peak_rss_MB | tee "$results"
for n in $SIZES; do
	"$BRINGUP" sim down >/dev/null 2>&1
	inv=$("$BRINGUP" sim up -n "$n" --state ready | sed -n 's/^inventory: //p')
	[ -f "$inv" ] || { echo "sim up -n $n failed" >&2; exit 1; }
	field() { sed -n "s/^ *$1: *//p" "$inv" | head -n 1 | tr -d '"'; }
	key=$(field key) kh=$(field known_hosts) port=$(field port) user=$(field user)
	# Warm-up: every node answers before anything is timed.
	"$BRINGUP" exec -i "$inv" -- true >/dev/null || { echo "cluster of $n not healthy" >&2; exit 1; }
	"$BRINGUP" inventory show -i "$inv" -o json | python3 -c \
		'import json,sys; [print(h["ssh"]["address"]) for h in json.load(sys.stdin)["hosts"]]' \
		>"$out_dir/addrs.$$"

	set -- $(measure bringup "$BRINGUP" exec -i "$inv" -f 256 -- "$PROBE")
	b_wall=$1 b_mem=$2
	set -- $(measure ssh xargs -P 256 -I{} ssh -n -i "$key" -p "$port" -l "$user" \
		-o UserKnownHostsFile="$kh" -o StrictHostKeyChecking=yes -o BatchMode=yes \
		{} "$PROBE" <"$out_dir/addrs.$$")
	s_wall=$1 s_mem=$2
	printf '%-6s %-26s %10s %12s\n' "$n" "bringup exec" "$b_wall" \
		"$(awk "BEGIN{printf \"%.1f\", $b_mem/1024}")" | tee -a "$results"
	printf '%-6s %-26s %10s %12s\n' "$n" "xargs -P + OpenSSH ssh" "$s_wall" \
		"$(awk "BEGIN{printf \"%.1f\", $s_mem/1024}")  (largest single ssh)" | tee -a "$results"
	printf '%-6s %-26s %10s\n' "$n" "ratio bringup/ssh" \
		"$(awk "BEGIN{printf \"%.2f\", $b_wall/$s_wall}")" | tee -a "$results"
done
rm -f "$out_dir"/*.$$
echo "results: $results"

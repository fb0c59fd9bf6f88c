#!/bin/sh
# make bench: wall time and peak memory of bringup against plain OpenSSH fanned
# out with `xargs -P` (one ssh process per host), on the same simulated hosts
# running the same remote work:
#   exec      bringup exec -- PROBE         vs  ssh HOST PROBE
#   precheck  bringup precheck (facts, parsers, every check, report)
#                                            vs  ssh HOST ENV sh -s < the same facts script,
#             ENV what bringup gives that host (tests/bench/probe-env.py);
#             the two sides' runs alternate (measure_pair)
#   precheck-mem  peak memory of bringup precheck at BENCH_MEM_SIZES hosts
#             (default "256 1000"), one run each (at the default -f, what
#             users run, or -f BENCH_MEM_FORKS; --timeout
#             300 and a connect limit of 300 s so that no host drops out
#             for being slow on a loaded box),
#             and the growth per host between the first and the last size.
#             Targets: under 40 MB at 256 hosts, under 20 KB a host.
#   output    peak memory of bringup exec (default -f) when every host prints
#             4 MiB: the same bytes (one group) and distinct bytes (one group
#             each, spilled to $TMPDIR). Target: under 150 MB at 256 hosts.
#   deploy    idempotent re-deploy on a converged cluster against precheck on
#             the same hosts (tests/bench/deploy.sh)
#   copy      a 256 MiB file to 8 hosts against scp to the same hosts, 8 at
#             once (tests/bench/copy.sh)
#   tui       key press to changed screen, 1,000-host replay (tests/bench/tui.sh)
#   validate  the rdma stage's rounds on 16 nodes against rounds x duration
#             (tests/bench/validate.sh)
#   scale     GPFS administration commands of the Scale stages from bare, per
#             cluster size (tests/bench/scale.sh, run last)
# Results: stdout and build/bench/results.txt.
#   BENCH_SIZES="16 64 256"   host counts
#   BENCH_RUNS=3              runs per measurement (median wall, max RSS)
#   BENCH_FORKS=64            hosts at once, for bringup -f and xargs -P alike
#   BENCH_WHAT="exec precheck precheck-mem output deploy copy validate scale tui"   which parts to run
set -u
: "${BRINGUP:?set BRINGUP to the bringup binary}"
SIZES=${BENCH_SIZES:-16 64 256}
RUNS=${BENCH_RUNS:-3}
# The same parallelism for bringup (-f) and for xargs (-P): 256 logins at
# once would measure the 2-core box's sshd key exchanges, not the tools.
FORKS=${BENCH_FORKS:-64}
WHAT=" ${BENCH_WHAT:-exec precheck precheck-mem output deploy copy validate scale tui} "
want() { case $WHAT in *" $1 "*) return 0;; esac; return 1; }
here=$(cd "$(dirname "$0")" && pwd)
out_dir=$(pwd)/build/bench
mkdir -p "$out_dir"
results="$out_dir/results.txt"
export BRINGUP_SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/bringup-bench.XXXXXX")
trap '"$BRINGUP" sim down >/dev/null 2>&1; rm -rf "$BRINGUP_SIM_DIR"' EXIT INT TERM
PROBE=${BENCH_PROBE:-'hostname; uname -r; ofed_info -s; cat /etc/os-release >/dev/null'}
"$BRINGUP" precheck --print-probe >"$out_dir/facts.sh"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# timed_once CMD...: prints "wall_s max_rss_kb" of one run of CMD. A run
# that fails is reported on stderr (its time would not be comparable).
timed_once() {
	/usr/bin/time -f '%e %M' -o "$out_dir/time.$$" "$@" >/dev/null 2>"$out_dir/err.$$" ||
		{ echo "bench: failed: $*" >&2; tail -n 5 "$out_dir/err.$$" >&2; }
	tail -n 1 "$out_dir/time.$$"
}

# measure CMD...: prints "median_wall_s max_rss_kb" over $RUNS runs.
measure() {
	walls="" peak=0
	for _ in $(seq "$RUNS"); do
		read -r w m <<-EOF
		$(timed_once "$@")
		EOF
		walls="$walls $w"
		[ "$m" -gt "$peak" ] && peak=$m
	done
	echo "$(echo $walls | tr ' ' '\n' | median) $peak"
}

# measure_pair A B: the scripts A and B (`sh -c`: sh execs a last simple
# command, so RSS is a lone command's own) run in turn, A B A B ...,
# $RUNS times each, so that a machine whose speed drifts over the minutes a
# part takes (a shared or throttled VM) slows both sides alike; prints
# "median_wall_A max_rss_A median_wall_B max_rss_B".
measure_pair() {
	_wa="" _wb="" _pa=0 _pb=0
	for _ in $(seq "$RUNS"); do
		read -r _w _m <<-EOF
		$(timed_once sh -c "$1")
		EOF
		_wa="$_wa $_w"
		[ "$_m" -gt "$_pa" ] && _pa=$_m
		read -r _w _m <<-EOF
		$(timed_once sh -c "$2")
		EOF
		_wb="$_wb $_w"
		[ "$_m" -gt "$_pb" ] && _pb=$_m
	done
	echo "$(echo $_wa | tr ' ' '\n' | median) $_pa $(echo $_wb | tr ' ' '\n' | median) $_pb"
}

row() { # hosts what tool wall rss_kb [note]
	printf '%-6s %-9s %-24s %8s %10s %s\n' "$1" "$2" "$3" "$4" \
		"$(awk "BEGIN{printf \"%.1f\", $5/1024}")" "${6-}" | tee -a "$results"
}
ratio() { awk "BEGIN{printf \"%.2f\", $1/$2}"; }

printf '%-6s %-9s %-24s %8s %10s\n' hosts what tool wall_s rss_MB | tee "$results"
for n in $SIZES; do
	want exec || want precheck || want output || break
	"$BRINGUP" sim down >/dev/null 2>&1
	inv=$("$BRINGUP" sim up -n "$n" --state ready | sed -n 's/^inventory: //p')
	[ -f "$inv" ] || { echo "sim up -n $n failed" >&2; exit 1; }
	field() { sed -n "s/^ *$1: *//p" "$inv" | head -n 1 | tr -d '"'; }
	key=$(field key) kh=$(field known_hosts) port=$(field port) user=$(field user)
	"$BRINGUP" inventory show -i "$inv" -o json | python3 -c \
		'import json,sys; [print(h["ssh"]["address"]) for h in json.load(sys.stdin)["hosts"]]' \
		>"$out_dir/addrs.$$"
	# -n only where stdin is not the probe: ssh would otherwise eat xargs' list.
	SSH="ssh -i $key -p $port -l $user -o UserKnownHostsFile=$kh -o StrictHostKeyChecking=yes -o BatchMode=yes"
	# Warm-up: every node answers before anything is timed.
	"$BRINGUP" exec -i "$inv" -- true >/dev/null || { echo "cluster of $n not healthy" >&2; exit 1; }

	if want exec; then
	set -- $(measure "$BRINGUP" exec -i "$inv" -f "$FORKS" -- "$PROBE"); bw=$1; bm=$2
	set -- $(measure xargs -a "$out_dir/addrs.$$" -P "$FORKS" -I{} $SSH -n {} "$PROBE"); sw=$1; sm=$2
	row "$n" exec "bringup exec" "$bw" "$bm"
	row "$n" exec "xargs -P + ssh" "$sw" "$sm" "(largest single ssh)"
	row "$n" exec "ratio" "$(ratio "$bw" "$sw")" 0
	fi

	if want precheck; then
	# the same script with the environment bringup gives each host (the
	# ports whose counters it reads, the fabric reader, mpirun's launcher)
	"$BRINGUP" inventory show -i "$inv" -o json >"$out_dir/inv.$$"
	nh=$(python3 "$here/probe-env.py" "$out_dir/inv.$$" "$out_dir")
	BENCH_IDX=$out_dir/idx.$$
	seq "$nh" >"$BENCH_IDX"
	export SSH out_dir BRINGUP FORKS BENCH_IDX BENCH_INV="$inv"
	# shellcheck disable=SC2016 # expanded by timed_once's sh
	set -- $(measure_pair \
		'exec "$BRINGUP" precheck -i "$BENCH_INV" -f "$FORKS" -o json --output /dev/null' \
		'exec xargs -a "$BENCH_IDX" -P "$FORKS" -I{} sh -c '\''read -r a e <"$out_dir/host.$1"; $SSH "$a" "$e sh -s" <"$out_dir/facts.sh" >/dev/null'\'' sh {}')
	pw=$1 pm=$2 qw=$3 qm=$4
	rm -f "$out_dir"/host.*
	row "$n" precheck "bringup precheck" "$pw" "$pm"
	row "$n" precheck "xargs -P + ssh (probe)" "$qw" "$qm" "(largest single ssh)"
	row "$n" precheck "ratio (target <= 0.8)" "$(ratio "$pw" "$qw")" 0
	fi

	if want output; then
	set -- $(measure "$BRINGUP" exec -i "$inv" -- "head -c 4194304 /dev/zero"); ow=$1; om=$2
	row "$n" output "exec 4 MiB, same" "$ow" "$om" "(target < 150 MB at 256)"
	set -- $(measure "$BRINGUP" exec -i "$inv" -- "hostname; head -c 4194000 /dev/zero"); ow=$1; om=$2
	row "$n" output "exec 4 MiB, distinct" "$ow" "$om" "(target < 150 MB at 256)"
	fi

done

# Memory per host: one run per size, what every host gathered and judged.
# A size the machine cannot start (sim up fails, or hosts do not answer) is
# said so and left out; the growth needs two sizes.
if want precheck-mem; then
	first="" last="" first_m="" last_m=""
	for n in ${BENCH_MEM_SIZES:-256 1000}; do
		"$BRINGUP" sim down >/dev/null 2>&1
		inv=$("$BRINGUP" sim up -n "$n" --state ready 2>"$out_dir/err.$$" | sed -n 's/^inventory: //p')
		# 256 logins at once on a 2-core box that also runs the nodes take
		# longer than the sim's 10 s connect limit: a host dropped for that
		# holds no facts and would flatter the figure.
		[ -f "$inv" ] &&
			sed 's/^    connect_timeout: .*/    connect_timeout: 300/' "$inv" >"$out_dir/mem-inventory.yaml"
		if [ ! -f "$inv" ] || ! "$BRINGUP" exec -i "$out_dir/mem-inventory.yaml" -- true >/dev/null 2>&1; then
			echo "precheck-mem: $n simulated nodes could not be started here, not measured" |
				tee -a "$results"
			tail -n 3 "$out_dir/err.$$" >&2
			continue
		fi
		# A login the loaded box's sshd drops past its LoginGraceTime (30 s,
		# as configured) loses a host too: such a run is done again, up to
		# three times.
		for try in 1 2 3; do
			# shellcheck disable=SC2086
			/usr/bin/time -f '%e %M' -o "$out_dir/time.$$" "$BRINGUP" precheck \
				-i "$out_dir/mem-inventory.yaml" ${BENCH_MEM_FORKS:+-f "$BENCH_MEM_FORKS"} \
				-t 300 -o json --output "$out_dir/precheck-mem.json" >/dev/null 2>"$out_dir/err.$$"
			read -r w m <<-EOF
			$(tail -n 1 "$out_dir/time.$$")
			EOF
			# hosts without facts hold none: a run with any is not comparable
			gone=$(sed -n 's/.*"unreachable":\([0-9]*\).*/\1/p' "$out_dir/precheck-mem.json" | head -n 1)
			[ "${gone:-1}" = 0 ] && break
			echo "precheck-mem: $n hosts, try $try: ${gone:-?} hosts without facts, again" >&2
		done
		verdict=""
		[ "$n" = 256 ] && verdict=$(awk "BEGIN{print ($m < 40 * 1024) ? \": met\" : \": NOT met\"}")
		row "$n" prec-mem "bringup precheck" "$w" "$m" \
			"(${gone:-?} hosts without facts; target < 40 MB at 256$verdict)"
		[ "${gone:-1}" = 0 ] || continue
		[ -n "$first" ] || { first=$n first_m=$m; }
		last=$n last_m=$m
	done
	if [ -n "$first" ] && [ "$last" != "$first" ]; then
		per=$(awk "BEGIN{printf \"%.1f\", ($last_m - $first_m) / ($last - $first)}")
		verdict=$(awk "BEGIN{print ($per < 20) ? \"met\" : \"NOT met\"}")
		echo "precheck-mem: growth ($last_m - $first_m KB) / ($last - $first hosts) = $per KB a host (target < 20: $verdict)" |
			tee -a "$results"
	else
		echo "precheck-mem: growth per host not measured (needs two sizes whose every host answered)" |
			tee -a "$results"
	fi
fi
rm -f "$out_dir"/*.$$
"$BRINGUP" sim down >/dev/null 2>&1
echo "results: $results"
# The parts below bring their own clusters; a part that fails fails the
# bench, one left out of BENCH_WHAT does not.
status=0
# The re-deploy benchmark brings its own cluster (bare, converged once).
if want deploy && [ -f "$here/deploy.sh" ]; then sh "$here/deploy.sh" || status=1; fi
# ... and the copy benchmark its own (256 MiB to 8 hosts against scp).
if want copy && [ -f "$here/copy.sh" ]; then sh "$here/copy.sh" || status=1; fi
# validate's rdma stage: its rounds against rounds x duration.
if want validate && [ -f "$here/validate.sh" ]; then sh "$here/validate.sh" || status=1; fi
# The Spectrum Scale stages from bare: admin commands per size.
if want scale && [ -f "$here/scale.sh" ]; then sh "$here/scale.sh" || status=1; fi
# The TUI at 1,000 hosts: a replayed run, key press to changed screen (tests/bench/tui.sh).
if want tui && [ -f "$here/tui.sh" ]; then
	sh "$here/tui.sh" >"$out_dir/tui.$$" || status=1
	tee -a "$results" <"$out_dir/tui.$$"
	rm -f "$out_dir/tui.$$"
fi
exit $status

#!/bin/sh
# make bench (scale): the Spectrum Scale stages of a deploy from a bare
# cluster, at several sizes. GPFS administration commands (those that change
# the cluster: mmcrcluster, mmaddnode, mmchlicense, mm*nodeclass, mmchconfig,
# mmstartup, mmshutdown, mmauth, mmremotecluster, mmremotefs, mmmount) must
# grow with node classes, not with nodes: they are counted from the run's
# command logs (every host's), beside the read-only mm queries, the per-node
# commands (rpm, mmbuildgpl, mmdiag) and the scale stages' wall time from
# the journal. Results: stdout and build/bench/scale.txt.
#
#   BENCH_SCALE_SIZES="8 64"   host counts (default)
set -u
: "${BRINGUP:?set BRINGUP to the bringup binary}"
SIZES=${BENCH_SCALE_SIZES:-8 64}
out_dir=$(pwd)/build/bench
mkdir -p "$out_dir"
results="$out_dir/scale.txt"
export BRINGUP_SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/bringup-bench-scale.XXXXXX")
state=$BRINGUP_SIM_DIR/deploy-state
trap '"$BRINGUP" sim down >/dev/null 2>&1; rm -rf "$BRINGUP_SIM_DIR"' EXIT INT TERM
ADMIN='mmcrcluster|mmaddnode|mmchlicense|mmcrnodeclass|mmchnodeclass|mmchconfig|mmstartup|mmshutdown|mmauth|mmremotecluster|mmremotefs|mmmount'

printf '%-6s %-7s %-7s %-8s %-9s %-8s %s\n' hosts classes admin queries per-node scale_s \
	"admin commands by name" | tee "$results"
for n in $SIZES; do
	"$BRINGUP" sim down >/dev/null 2>&1
	rm -rf "$state"
	inv=$("$BRINGUP" sim up -n "$n" --state bare | sed -n 's/^inventory: //p')
	[ -f "$inv" ] || { echo "sim up -n $n failed" >&2; exit 1; }
	"$BRINGUP" deploy -i "$inv" --state-dir "$state" -f "${BENCH_FORKS:-64}" >"$out_dir/scale.$$" 2>&1 ||
		{ echo "deploy on $n hosts did not converge:" >&2; tail -n 20 "$out_dir/scale.$$" >&2; exit 1; }
	run=$state/$(readlink "$state/last")
	# the scale stages' entries of the logs: commands under "=== TIME scale_* HOST"
	awk '/^=== [0-9][0-9][0-9][0-9]-/ { s = ($3 ~ /^scale_/) } s && /^\$ / { print }' "$run"/hosts/*.log >"$out_dir/cmds.$$"
	# "show" subcommands (mmauth show, mmremotecluster show...) only read
	grep -E "^\\\$ '/usr/lpp/mmfs/bin/($ADMIN)'" "$out_dir/cmds.$$" | grep -v "' 'show'" >"$out_dir/admin.$$"
	admin=$(wc -l <"$out_dir/admin.$$")
	byname=$(grep -Eo "^\\\$ '/usr/lpp/mmfs/bin/($ADMIN)'" "$out_dir/admin.$$" | sed "s|.*/||; s|'||" |
		sort | uniq -c | awk '{ printf "%s%s=%s", (NR > 1 ? " " : ""), $2, $1 }')
	queries=$(grep -Ec "^\\\$ '/usr/lpp/mmfs/bin/mm(ls|getstate)|' 'show'" "$out_dir/cmds.$$")
	pernode=$(grep -Ec "mmbuildgpl|templates/scale_install/install.sh|templates/scale_rdma" "$out_dir/cmds.$$")
	classes=$(sed -n 's/^ *gpfs_nodeclass: *//p' "$inv" | sort -u | wc -l)
	secs=$(python3 - "$run/journal.json" <<'PY'
import json, sys
from datetime import datetime
j = json.load(open(sys.argv[1]))
t = lambda s: datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")
starts, ends = [], []
for st in j["stages"]:
    if st["name"].startswith("scale_"):
        for h in st["hosts"].values():
            if "started" in h and "finished" in h:
                starts.append(t(h["started"])); ends.append(t(h["finished"]))
print(int((max(ends) - min(starts)).total_seconds()) if starts else 0)
PY
)
	printf '%-6s %-7s %-7s %-8s %-9s %-8s %s\n' "$n" "$classes" "$admin" "$queries" "$pernode" \
		"$secs" "$byname" | tee -a "$results"
done
rm -f "$out_dir"/*.$$
echo "results: $results"

#!/bin/sh
# make soak-validate: no false alarm. On a healthy simulated cluster of
# SOAK_NODES (8) nodes, `bringup validate` (rdma, nccl, resnet) must pass
# SOAK_RUNS (20) times in a row: any fail or warn finding fails the soak.
# Also checks the RDMA stage's rounds (N-1) and prints each run's wall time
# against rounds x duration. Not part of `make check` (minutes, not seconds).
set -u
: "${BRINGUP:?set BRINGUP to the bringup binary}"
RUNS=${SOAK_RUNS:-20} NODES=${SOAK_NODES:-8} DUR=${SOAK_RDMA_DURATION:-2}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/bringup-soak-validate.XXXXXX")
export BRINGUP_SIM_DIR="$DIR/sim"
trap '"$BRINGUP" sim down >/dev/null 2>&1; rm -rf "$DIR"' EXIT INT TERM

INV=$("$BRINGUP" sim up -n "$NODES" --state ready | sed -n 's/^inventory: //p')
[ -f "$INV" ] || { echo "soak: sim up failed" >&2; exit 1; }
# /tmp stands in for the GPFS mount, which a "ready" simulated node lacks.
printf '\nvalidate:\n  rdma:\n    duration: %s\n  storage:\n    directory: /tmp\n    runtime: 2\n' \
	"$DUR" >>"$INV"
i=1
while [ "$i" -le "$RUNS" ]; do
	"$BRINGUP" validate -i "$INV" --no-baseline -o json --output "$DIR/run.json"
	rc=$?
	python3 - "$DIR/run.json" "$i" "$NODES" "$DUR" "$rc" <<'PY' || { cp "$DIR/run.json" "${TMPDIR:-/tmp}/soak-validate-failed.json"; echo "soak: run $i raised an alarm (report kept in ${TMPDIR:-/tmp}/soak-validate-failed.json)" >&2; exit 1; }
import json, sys
path, run, nodes, dur, rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
d = json.load(open(path))
alarms = [(s["stage"], f) for s in d["stages"] for f in s["findings"]]
rdma = [s for s in d["stages"] if s["stage"] == "rdma"][0]
rounds = rdma["round_count"]
want = nodes - 1 if nodes % 2 == 0 else nodes
ideal = rounds * dur
print("run %d: %s; rdma %d rounds in %.1f s (rounds x duration %.0f s, +%.0f%%); %s" % (
    run, d["status"], rounds, rdma["wall_s"], ideal, (rdma["wall_s"] - ideal) * 100 / ideal,
    "; ".join("%s %.1f s" % (s["stage"], s["wall_s"]) for s in d["stages"][1:])))
assert rc == 0 and d["status"] == "pass" and not alarms, alarms
assert rounds == want and len(rdma["rounds"]) == want
PY
	i=$((i + 1))
done
echo "soak: $RUNS runs on $NODES nodes, no alarm"

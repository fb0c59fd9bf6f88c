#!/bin/sh
# Every fault the simulator injects, on one node, makes precheck fail naming
# exactly that host and that check (and the port or device), and no other;
# clearing it makes precheck pass again.
. "$(dirname "$0")/lib.sh"
sim_up -n 6 --state ready
expect_status 0 "$BRINGUP" precheck -i "$INV" -o json --output "$TEST_DIR/base.json"

# fault  node   check              exit  subject (substring, or -)
cases='
unreachable        dgx03 ssh.reachable     3 -
hang               dgx03 ssh.reachable     3 -
slow               dgx03 ssh.latency       1 -
port-down          dgx03 ib.port_state     1 mlx5_0/1
link-degraded      dgx03 ib.port_rate      1 mlx5_0/1
ofed-drift         dgx03 ofed.version      1 -
module-missing     dgx03 peermem.loaded    1 -
gpu-throttle       dgx03 gpu.throttle      1 GPU
row-remap-pending  dgx03 gpu.row_remap     1 GPU
pcie-degraded      dgx03 pcie.link         1 GPU
xid                dgx03 gpu.xid           1 -
nouveau-loaded     dgx03 nouveau.absent    1 -
memlock-limited    dgx03 memlock.unlimited 1 login
no-kernel-headers  dgx03 kernel.headers    1 -
clock-skew         dgx03 time.skew         1 -
no-sm              dgx01 sm.master         1 -
two-sm-masters     dgx03 sm.master         1 -
'
echo "$cases" | while read -r kind node check want subject; do
	[ -n "$kind" ] || continue
	"$BRINGUP" sim fault "$node" "$kind" || fail "sim fault $node $kind"
	"$BRINGUP" precheck -i "$INV" --timeout 8 -o json --output "$TEST_DIR/$kind.json"
	rc=$?
	"$BRINGUP" sim fault "$node" clear || fail "clear $node"
	[ $rc -eq "$want" ] || fail "$kind: precheck exited $rc, want $want"
	python3 - "$TEST_DIR/$kind.json" "$node" "$check" "$subject" <<'PY' || fail "$kind: wrong findings"
import json, sys
path, node, check, subject = sys.argv[1:]
d = json.load(open(path))
bad = [r for r in d["results"] if r["status"] == "fail"]
assert bad, "no failure at all"
wrong = [(r["host"], r["check"], r["subject"]) for r in bad
         if r["host"] != node or r["check"] != check]
assert not wrong, "other findings: %s" % wrong
if subject != "-":
    assert all(r["subject"] and subject in r["subject"] for r in bad), bad
PY
done || exit 1
expect_status 0 "$BRINGUP" precheck -i "$INV" -o json --output "$TEST_DIR/after.json"
exit 0

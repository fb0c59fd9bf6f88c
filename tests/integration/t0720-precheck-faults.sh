#!/bin/sh
# Every fault the simulator injects makes precheck fail naming exactly the
# faulted host and that check (and the port or device), and nothing else;
# clearing it makes precheck pass again. Faults that stay on their host run
# five at a time on five nodes (one precheck per round, so the test also
# shows that faults on several hosts do not blur each other's findings); the
# subnet-manager faults, which change the whole fabric, run alone.
. "$(dirname "$0")/lib.sh"
sim_up -n 6 --state ready
expect_status 0 "$BRINGUP" precheck -i "$INV" -o json --output "$TEST_DIR/base.json"

# round exit | fault node check(s, comma-separated) subject (substring, or -) ...
# The subject is that of the first check's findings. A port down is also
# GPFS's verbs port gone: mmhealth's NETWORK component (scale.health).
# Round A waits out the hung host: its limit is the only one the test
# waits for, and must still cover a healthy host's facts on a loaded
# machine. The other rounds give every host ample room.
rounds='
A 3 unreachable dgx02 ssh.reachable - hang dgx03 ssh.reachable - port-down dgx04 ib.port_state,scale.health mlx5_0/1 ofed-drift dgx05 ofed.version - nouveau-loaded dgx06 nouveau.absent -
B 1 slow dgx02 ssh.latency - link-degraded dgx03 ib.port_rate,ib.fabric_links mlx5_0/1 module-missing dgx04 peermem.loaded - gpu-throttle dgx05 gpu.throttle GPU row-remap-pending dgx06 gpu.row_remap GPU
C 1 pcie-degraded dgx02 pcie.link GPU xid dgx03 gpu.xid - memlock-limited dgx04 memlock.unlimited login no-kernel-headers dgx05 kernel.headers - clock-skew dgx06 time.skew -
D 1 no-sm dgx01 sm.master -
E 1 two-sm-masters dgx03 sm.master -
'
echo "$rounds" | while read -r round want rest; do
	[ -n "$round" ] || continue
	set -- $rest
	nodes=
	while [ $# -ge 4 ]; do
		"$BRINGUP" sim fault "$2" "$1" >/dev/null || fail "$round: sim fault $2 $1"
		nodes="$nodes $2"
		shift 4
	done
	to=120
	[ "$round" = A ] && to=$(slow 30)
	t0=$(date +%s)
	"$BRINGUP" precheck -i "$INV" --timeout $to -o json --output "$TEST_DIR/$round.json"
	rc=$?
	echo "round $round: $(($(date +%s) - t0)) s" >&2
	for n in $nodes; do "$BRINGUP" sim fault "$n" clear >/dev/null || fail "clear $n"; done
	[ $rc -eq "$want" ] || fail "round $round: precheck exited $rc, want $want"
	python3 - "$TEST_DIR/$round.json" $rest <<'PY' || fail "round $round: wrong findings"
import json, sys
d = json.load(open(sys.argv[1]))
want = {}
checks_in_order = {}
a = sys.argv[2:]
for i in range(0, len(a), 4):
    kind, node, checks, subject = a[i:i + 4]
    want[node] = (kind, set(checks.split(",")), subject)
    checks_in_order[node] = checks.split(",")
bad = [r for r in d["results"] if r["status"] == "fail"]
wrong = [(r["host"], r["check"], r["subject"]) for r in bad
         if r["host"] not in want or r["check"] not in want[r["host"]][1]]
assert not wrong, "findings beyond the faults: %s" % wrong
for node, (kind, checks, subject) in want.items():
    mine = [r for r in bad if r["host"] == node]
    assert mine, "%s on %s: no failure at all" % (kind, node)
    first = checks_in_order[node][0]
    if subject != "-":
        assert all(r["subject"] and subject in r["subject"] for r in mine if r["check"] == first), (kind, mine)
PY
done || exit 1
expect_status 0 "$BRINGUP" precheck -i "$INV" -o json --output "$TEST_DIR/after.json"
exit 0

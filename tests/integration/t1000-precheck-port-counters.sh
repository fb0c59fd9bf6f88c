#!/bin/sh
# ib.port_counters reads each expected port's perfquery -x twice, a second
# apart: a counter that rises between the reads fails exactly that host and
# port; counts left from a past incident (steady) pass and are named; clear
# turns it green. A RoCE port's MAD failure is "not applicable", not an error.
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state ready

# check FILE NODE SUBJECT: what ib.port_counters said, one line per result.
results() {
	python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["check"] == "ib.port_counters":
        print(r["host"], r["subject"], r["status"], r.get("found") or r.get("detail") or "")
PY
}
pre() {
	"$BRINGUP" precheck -i "$INV" --checks 'ib.*' --timeout 30 -o json --output "$TEST_DIR/$1.json"
}

expect_status 0 pre healthy
results "$TEST_DIR/healthy.json" >"$TEST_DIR/healthy.txt"
grep -q ' pass steady, all zero$' "$TEST_DIR/healthy.txt" || fail "no passing port: $(cat "$TEST_DIR/healthy.txt")"
grep -q ' fail ' "$TEST_DIR/healthy.txt" && fail "healthy cluster fails: $(cat "$TEST_DIR/healthy.txt")"
# the sim's Ethernet (RoCE) HCAs, if any, are not applicable
if grep -q 'not applicable' "$TEST_DIR/healthy.txt"; then
	grep 'not applicable' "$TEST_DIR/healthy.txt" | grep -qv ' skip ' && fail "RoCE port not skipped"
fi

"$BRINGUP" sim fault dgx02 port-errors mlx5_1 || fail "sim fault port-errors"
pre rising; rc=$?
[ $rc -eq 1 ] || fail "rising counters: precheck exited $rc, want 1"
results "$TEST_DIR/rising.json" >"$TEST_DIR/rising.txt"
bad=$(grep ' fail ' "$TEST_DIR/rising.txt")
[ "$(printf '%s\n' "$bad" | wc -l)" -eq 1 ] || fail "want one failing port: $bad"
case $bad in
"dgx02 mlx5_1/1 fail "*"SymbolErrorCounter +"*"PortRcvErrors +"*) ;;
*) fail "wrong finding: $bad";;
esac
python3 - "$TEST_DIR/rising.json" <<'PY' || fail "findings besides dgx02 mlx5_1/1"
import json, sys
bad = [(r["host"], r["check"], r["subject"]) for r in json.load(open(sys.argv[1]))["results"]
       if r["status"] == "fail"]
assert bad == [("dgx02", "ib.port_counters", "mlx5_1/1")], bad
PY

"$BRINGUP" sim fault dgx02 clear port-errors || fail "clear"
"$BRINGUP" sim fault dgx02 port-errors mlx5_1:old || fail "sim fault port-errors :old"
expect_status 0 pre old
results "$TEST_DIR/old.json" | grep -q '^dgx02 mlx5_1/1 pass steady (old counts: SymbolErrorCounter 4127, LinkDownedCounter 2, PortRcvErrors 52)$' ||
	fail "old counts not passed and named: $(results "$TEST_DIR/old.json")"

"$BRINGUP" sim fault dgx02 clear || fail "clear"
expect_status 0 pre cleared
results "$TEST_DIR/cleared.json" | grep -q '^dgx02 mlx5_1/1 pass steady, all zero$' || fail "not green after clear"
exit 0

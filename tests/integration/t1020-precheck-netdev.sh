#!/bin/sh
# ib.netdev reads ibdev2netdev: every expected HCA port must drive a network
# device that is Up. An IPoIB interface set down while its port is Active
# fails exactly that host and port, naming the interface; clear turns it
# green.
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state ready

pre() {
	"$BRINGUP" precheck -i "$INV" --checks 'ib.*' --timeout 30 -o json --output "$TEST_DIR/$1.json"
}
results() {
	python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["status"] == "fail" or r["check"] == "ib.netdev":
        print("|".join([r["host"], r["check"], r["subject"] or "", r["status"], r.get("found") or ""]))
PY
}

expect_status 0 pre healthy
results "$TEST_DIR/healthy.json" >"$TEST_DIR/healthy.txt"
[ "$(grep -c '|ib.netdev|mlx5_[0-3]/1|pass|ib[0-3] (Up)$' "$TEST_DIR/healthy.txt")" -eq 8 ] ||
	fail "want 8 ports Up: $(cat "$TEST_DIR/healthy.txt")"

"$BRINGUP" sim fault dgx02 netdev-down mlx5_2 || fail "sim fault netdev-down"
pre down; rc=$?
[ $rc -eq 1 ] || fail "netdev down: precheck exited $rc, want 1"
bad=$(results "$TEST_DIR/down.json" | grep '|fail|')
[ "$bad" = "dgx02|ib.netdev|mlx5_2/1|fail|ib2 (Down)" ] || fail "wrong findings: $bad"

"$BRINGUP" sim fault dgx02 clear || fail "clear"
expect_status 0 pre cleared
[ "$(results "$TEST_DIR/cleared.json" | grep -c '|ib.netdev|.*|pass|')" -eq 8 ] || fail "not green after clear"
exit 0

#!/bin/sh
# ib.fabric_links reads iblinkinfo once (from the first host) and checks every
# expected IB port is in the fabric at its width and speed: a link trained at
# 1X fails exactly that host and port, named by both ends (HCA port and leaf
# switch port) with what each end reports; clear turns it green. (Without a
# subnet manager the links show Initialize and nothing fails here: t0720's
# no-sm case, which allows only sm.master findings.)
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state ready

pre() {
	"$BRINGUP" precheck -i "$INV" --checks 'ib.*' --timeout 30 -o json --output "$TEST_DIR/$1.json"
}
# results FILE: "host|check|subject|status|found" for the failures and for
# every ib.fabric_links result.
results() {
	python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["status"] == "fail" or r["check"] == "ib.fabric_links":
        print("|".join([r["host"], r["check"], r["subject"] or "", r["status"], r.get("found") or ""]))
PY
}

expect_status 0 pre healthy
results "$TEST_DIR/healthy.json" >"$TEST_DIR/healthy.txt"
[ "$(grep -c '|ib.fabric_links|.*|pass|4X 25.78125 Gbps here, 4X 25.78125 Gbps at the switch$' "$TEST_DIR/healthy.txt")" -eq 8 ] ||
	fail "want 8 passing links: $(cat "$TEST_DIR/healthy.txt")"
grep -q '^dgx02|ib.fabric_links|mlx5_3/1 <-> MF0;sim-leaf01:MSB7700/U1 port 8|pass|' "$TEST_DIR/healthy.txt" ||
	fail "dgx02 mlx5_3 not on leaf port 8: $(cat "$TEST_DIR/healthy.txt")"

"$BRINGUP" sim fault dgx02 link-degraded mlx5_1 || fail "sim fault link-degraded"
pre degraded; rc=$?
[ $rc -eq 1 ] || fail "degraded link: precheck exited $rc, want 1"
results "$TEST_DIR/degraded.json" | grep '|fail|' >"$TEST_DIR/bad.txt"
cat >"$TEST_DIR/want.txt" <<'W'
dgx02|ib.port_rate|mlx5_1/1|fail|25 Gb/s 1X EDR
dgx02|ib.fabric_links|mlx5_1/1 <-> MF0;sim-leaf01:MSB7700/U1 port 6|fail|1X 25.78125 Gbps here, 1X 25.78125 Gbps at the switch
W
diff "$TEST_DIR/want.txt" "$TEST_DIR/bad.txt" || fail "wrong findings for the degraded link"

"$BRINGUP" sim fault dgx02 clear || fail "clear"
expect_status 0 pre cleared
[ "$(results "$TEST_DIR/cleared.json" | grep -c '|ib.fabric_links|.*|pass|')" -eq 8 ] || fail "not green after clear"
exit 0

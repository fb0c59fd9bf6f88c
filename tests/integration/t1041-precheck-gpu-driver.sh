#!/bin/sh
# gpu.driver: one GPU driver on every GPU node, the inventory's gpu_driver
# or else the one most nodes run. A node on another driver (driver-drift)
# fails alone, naming both versions; clear turns it green. While `bringup
# upgrade --to driver=` has not finished (its mark in the state directory),
# the old and the new driver are the upgrade's window: warnings, not drift.
. "$(dirname "$0")/lib.sh"
sim_up -n 3 --state ready
STATE=$TEST_DIR/state
mkdir -p "$STATE"

pre() {
	"$BRINGUP" precheck -i "${2:-$INV}" --state-dir "$STATE" --checks gpu.driver --timeout 30 \
		-o json --output "$TEST_DIR/$1.json"
}
# results FILE: "host status expected found detail", one line a host.
results() {
	python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["check"] == "gpu.driver":
        print(r["host"], r["status"], r.get("expected") or "", r.get("found") or "", r.get("detail") or "")
PY
}
IMAGE=$(sim_ssh 127.0.1.1 nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)
[ -n "$IMAGE" ] || fail "no driver on dgx01"

expect_status 0 pre healthy
results "$TEST_DIR/healthy.json" >"$TEST_DIR/healthy.txt"
[ "$(grep -c " pass $IMAGE $IMAGE" "$TEST_DIR/healthy.txt")" -eq 3 ] ||
	fail "healthy: $(cat "$TEST_DIR/healthy.txt")"

"$BRINGUP" sim fault dgx02 driver-drift || fail "sim fault driver-drift"
DRIFT=$(sim_ssh 127.0.1.2 nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)
[ -n "$DRIFT" ] && [ "$DRIFT" != "$IMAGE" ] || fail "driver-drift: dgx02 runs '$DRIFT'"
expect_status 1 pre drift
results "$TEST_DIR/drift.json" >"$TEST_DIR/drift.txt"
grep ' fail ' "$TEST_DIR/drift.txt" >"$TEST_DIR/bad.txt"
[ "$(wc -l <"$TEST_DIR/bad.txt")" -eq 1 ] && grep -q "^dgx02 fail $IMAGE $DRIFT " "$TEST_DIR/bad.txt" ||
	fail "drift must fail dgx02 alone: $(cat "$TEST_DIR/drift.txt")"

# without gpu_driver in the inventory, the driver most nodes run is wanted
grep -q '^    gpu_driver: ' "$INV" || fail "the sim's inventory names no gpu_driver"
sed '/^    gpu_driver: /d' "$INV" >"$TEST_DIR/none.yaml"
expect_status 1 pre majority "$TEST_DIR/none.yaml"
results "$TEST_DIR/majority.json" | grep ' fail ' >"$TEST_DIR/bad.txt"
[ "$(wc -l <"$TEST_DIR/bad.txt")" -eq 1 ] && grep -q "^dgx02 fail $IMAGE $DRIFT " "$TEST_DIR/bad.txt" ||
	fail "majority: $(results "$TEST_DIR/majority.json")"

# the inventory names the drifted driver: now the other two are off it
sed "s/^    gpu_driver: .*/    gpu_driver: \"$DRIFT\"/" "$INV" >"$TEST_DIR/want.yaml"
grep -q "gpu_driver: \"$DRIFT\"" "$TEST_DIR/want.yaml" || fail "could not set gpu_driver"
expect_status 1 pre wanted "$TEST_DIR/want.yaml"
results "$TEST_DIR/wanted.json" | grep -c "fail $DRIFT $IMAGE" | grep -qx 2 ||
	fail "gpu_driver $DRIFT: $(results "$TEST_DIR/wanted.json")"

# an unfinished upgrade to that driver: the window, not drift
mkdir -p "$STATE/upgrade" && printf 'driver=%s\n' "$DRIFT" >"$STATE/upgrade/in-progress" || fail "mark"
expect_status 0 pre window
results "$TEST_DIR/window.json" >"$TEST_DIR/window.txt"
grep -q "^dgx02 warn .*this node runs the new release" "$TEST_DIR/window.txt" &&
	[ "$(grep -c "warn .*this node is not upgraded yet" "$TEST_DIR/window.txt")" -eq 2 ] ||
	fail "upgrade window: $(cat "$TEST_DIR/window.txt")"
rm -f "$STATE/upgrade/in-progress"

"$BRINGUP" sim fault dgx02 clear driver-drift || fail "clear driver-drift"
expect_status 0 pre cleared
results "$TEST_DIR/cleared.json" | grep -c " pass $IMAGE $IMAGE" | grep -qx 3 ||
	fail "clear: $(results "$TEST_DIR/cleared.json")"
exit 0

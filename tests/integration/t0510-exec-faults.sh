#!/bin/sh
# On 64 nodes, one unreachable and one hung host are reported as such, and
# delay the other 62 by nothing: each of those finishes long before the hung
# host's timeout (half of it is the bound, so that a loaded 2-core machine
# cannot fail it, while waiting for the hung host would).
. "$(dirname "$0")/lib.sh"
sim_up -n 64 --state ready
"$BRINGUP" sim fault dgx05 unreachable || fail "fault unreachable"
"$BRINGUP" sim fault dgx09 hang || fail "fault hang"

to=$(slow 40)
start=$(date +%s)
"$BRINGUP" exec -i "$INV" --timeout $to -o json -- 'ofed_info -s' >"$TEST_DIR/out.json"
rc=$?
elapsed=$(( $(date +%s) - start ))
[ $rc -eq 3 ] || fail "exit status $rc, want 3 (a host unreachable)"
[ $elapsed -lt $((to * 3)) ] || fail "run took ${elapsed}s"
python3 - "$TEST_DIR/out.json" "$to" <<'PY' || fail "per-host results wrong"
import json, sys
d = {h["host"]: h for h in json.load(open(sys.argv[1]))["hosts"]}
to = float(sys.argv[2])
assert len(d) == 64, len(d)
assert d["dgx05"]["status"] == "unreachable", d["dgx05"]
assert d["dgx09"]["status"] == "timed out", d["dgx09"]
assert d["dgx09"]["duration_s"] >= to - 0.5, d["dgx09"]
others = [h for n, h in d.items() if n not in ("dgx05", "dgx09")]
assert all(h["status"] == "ok" for h in others), [h for h in others if h["status"] != "ok"]
outs = {h["stdout"] for h in others}
assert len(outs) == 1 and outs.pop().startswith("MLNX_OFED_LINUX-"), outs
slow = [(h["host"], h["duration_s"]) for h in others if h["duration_s"] > to / 2]
assert not slow, slow
PY

# The text view names both.
out=$("$BRINGUP" exec -i "$INV" --timeout 20 -- true)
echo "$out" | grep -q '^unreachable: dgx05: ' || fail "dgx05 not named unreachable: $out"
# The hang fault sleeps before the command could report its process group:
# bringup cannot kill it there, and says so rather than claim it did.
echo "$out" | grep -qx 'timed out (after 20 s): dgx09; its remote process group is unknown: it may still run' ||
	fail "dgx09 not named timed out: $out"
echo "$out" | grep -qx 'exit 0: dgx\[01-04,06-08,10-64\]' || fail "the 62 not folded: $out"

# Cleared, everything answers again.
"$BRINGUP" sim fault dgx05 clear && "$BRINGUP" sim fault dgx09 clear || fail "clear"
# (a limit for healthy hosts only: 64 logins at once on a loaded machine)
out=$("$BRINGUP" exec -i "$INV" --timeout "$(slow 60)" -- true 2>&1) || fail "not healthy after clear: $out"
exit 0

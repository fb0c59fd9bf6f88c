#!/bin/sh
# A host that never answers TCP (no SYN-ACK: powered off, black-holed) is
# unreachable, exactly like one that refuses the port: exit 3 and
# "unreachable" in exec, ssh.reachable failed in precheck (exit 3), and in
# deploy a state of its own (not a failed check), its later stages skipped
# and --resume trying it again. The black hole is tests/tools/blackhole.py on
# the stopped node's loopback address.
. "$(dirname "$0")/lib.sh"
TOOLS=$(cd "$(dirname "$0")/../tools" && pwd)
OS_STAGES=$(cd "$(dirname "$0")/../fixtures/playbooks" && pwd)/os-stages.yaml
sim_up -n 2 --state bare
"$BRINGUP" sim fault dgx02 unreachable >/dev/null || fail "fault unreachable"
python3 "$TOOLS/blackhole.py" 127.0.1.2 "$PORT" >"$TEST_DIR/bh.out" 2>&1 &
bh=$!
trap 'kill $bh 2>/dev/null; cleanup' EXIT INT TERM
wait_ready "$TEST_DIR/bh.out" $bh
# Three seconds of no answer make the point; keep the test short.
sed -i 's/^    connect_timeout: .*/    connect_timeout: 3/' "$INV"

out=$("$BRINGUP" exec -i "$INV" -- true)
rc=$?
[ $rc -eq 3 ] || fail "exec: exit $rc, want 3: $out"
echo "$out" | grep -q '^unreachable: dgx02: .*unreachable: no answer within 3 s' ||
	fail "exec: dgx02 not unreachable: $out"
echo "$out" | grep -qx 'exit 0: dgx01' || fail "exec: dgx01: $out"

out=$("$BRINGUP" precheck -i "$INV" --checks ssh.reachable -o json)
rc=$?
[ $rc -eq 3 ] || fail "precheck: exit $rc, want 3: $out"
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = {(x["host"], x["check"]): x for x in d["results"]}
x = r[("dgx02", "ssh.reachable")]
assert x["status"] == "fail" and x["found"] == "unreachable", x
assert d["summary"]["unreachable"] == 1, d["summary"]
' || fail "precheck: $out"

out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$TEST_DIR/state" -o json)
rc=$?
[ $rc -eq 3 ] || fail "deploy: exit $rc, want 3: $out"
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
st = {s["name"]: s["hosts"] for s in d["stages"]}
first = d["stages"][0]["name"]
x = st[first]["dgx02"]
assert x["status"] == "unreachable", x
assert x["reason"].startswith("host dgx02") and "no answer within 3 s" in x["reason"], x
for s in d["stages"][1:]:
    y = s["hosts"]["dgx02"]
    assert y["status"] == "skipped" and y["reason"] == "unreachable at stage " + first, y
assert all(s["hosts"]["dgx01"]["status"] == "changed" for s in d["stages"]), d["stages"]
assert d["totals"]["unreachable"] == 1 and d["totals"]["failed"] == 0, d["totals"]
' || fail "deploy: $out"
journal=$TEST_DIR/state/$(readlink "$TEST_DIR/state/last")/journal.json
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["stages"][0]["hosts"]["dgx02"]["status"] == "unreachable", j["stages"][0]
' "$journal" || fail "journal: $(cat "$journal")"

out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$TEST_DIR/state")
echo "$out" | grep -Eq '^  [a-z_]+ +unreachable +dgx02: host dgx02 .*no answer within 3 s' ||
	fail "deploy text summary: $out"
echo "$out" | grep -q '^total: .* unreachable=1$' || fail "deploy totals: $out"

# Back up, --resume finishes the unreachable host and nothing else.
kill $bh
wait $bh 2>/dev/null
"$BRINGUP" sim fault dgx02 clear >/dev/null || fail "clear"
out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$TEST_DIR/state" --resume -o json)
rc=$?
[ $rc -eq 0 ] || fail "resume: exit $rc: $out"
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for s in d["stages"]:
    assert s["hosts"]["dgx02"]["status"] == "changed", s
    assert s["hosts"]["dgx01"]["status"] == "skipped", s
' || fail "resume: $out"
exit 0

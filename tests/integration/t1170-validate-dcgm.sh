#!/bin/sh
# bringup validate's dcgm stage (dcgmi diag -r 3 on every node at once):
# the stand-in prints DCGM 3.3.9's -r 3 table line for line as the real
# capture has it; a healthy cluster passes with every node's 16 tests; a
# GPU with row remappings pending (row-remap-pending 2 on dgx02) fails
# that host and GPU alone, in DCGM's words, in json, text and junit; a
# node without dcgmi fails by name; clearing the fault turns it green.
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/tools/dcgmi-diag" && pwd)
sim_up -n 3 --state ready

# The -r 3 layout: every line of the real capture, in its order and at its
# width; only the Metadata values (driver, device id) are the node's own.
shape() { sed -E 's/^(\| (Driver Version Detected|GPU Device IDs Detected) +\|).*/\1 V/'; }
sim_ssh 127.0.1.1 dcgmi diag -r 3 >"$TEST_DIR/r3.txt" || fail "healthy dcgmi diag -r 3 failed"
shape <"$FIX/diag_r3_dcgm_3_3_9_v100_all_pass_eud_skip.txt" >"$TEST_DIR/want"
shape <"$TEST_DIR/r3.txt" | diff -u "$TEST_DIR/want" - || fail "-r 3 differs from the real capture's lines"
awk 'NR > 1 && length($0) != 78 { print NR": "$0; bad = 1 } END { exit bad }' "$TEST_DIR/r3.txt" ||
	fail "-r 3 rows not 78 columns wide as the capture's"

# dcgm_run NAME ARGS...: the dcgm stage as JSON in $TEST_DIR/NAME.json
dcgm_run() {
	_n=$1
	shift
	"$BRINGUP" validate --no-baseline -i "$INV" --stage dcgm -o json --output "$TEST_DIR/$_n.json" "$@"
}
# findings NAME: "status host subject message" per finding
findings() {
	python3 - "$TEST_DIR/$1.json" <<'PY'
import json, sys
for s in json.load(open(sys.argv[1]))["stages"]:
    assert s["stage"] == "dcgm", s["stage"]
    for f in s["findings"]:
        print(f["status"], f["host"] or "-", f["subject"] or "-", f["message"])
PY
}

expect_status 0 dcgm_run ok
[ -z "$(findings ok)" ] || fail "healthy: $(findings ok)"
python3 - "$TEST_DIR/ok.json" <<'PY' || fail "healthy report"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
assert s["status"] == "pass" and s["level"] == 3, s
rows = [(r["host"], r["tests"], r["passed"], r["skipped"], r["status"]) for r in s["results"]]
assert rows == [(h, 16, 15, 1, "pass") for h in ("dgx01", "dgx02", "dgx03")], rows
PY

"$BRINGUP" sim fault dgx02 row-remap-pending 2 >/dev/null || fail "fault"
expect_status 1 dcgm_run bad
f=$(findings bad)
[ "$f" = "fail dgx02 GPU 2 dcgmi diag: Error: GPU 2 has uncorrectable memory errors and row remappings are pending" ] ||
	fail "not dgx02's GPU 2 alone: $f"
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage dcgm --output "$TEST_DIR/bad.txt"
grep -q 'dgx02.*GPU 2.*row remappings are pending' "$TEST_DIR/bad.txt" || fail "text: $(cat "$TEST_DIR/bad.txt")"
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage dcgm -o junit --output "$TEST_DIR/bad.xml"
python3 - "$TEST_DIR/bad.xml" <<'PY' || fail "junit: $(cat "$TEST_DIR/bad.xml")"
import sys, xml.etree.ElementTree as ET
suites = ET.parse(sys.argv[1]).getroot().iter("testsuite")
s = [x for x in suites if x.get("name") == "validate.dcgm"]
assert len(s) == 1, "no dcgm testsuite"
failed = [c.get("name") for c in s[0].iter("testcase") if c.find("failure") is not None]
assert failed == ["dgx02 GPU 2"], failed
PY
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage dcgm -o html --output "$TEST_DIR/bad.html"
grep -q '<td>dgx02</td><td>3</td>' "$TEST_DIR/bad.html" || fail "html has no dcgm table"

# no dcgmi where the inventory says: every node fails, named
cat "$INV" >"$TEST_DIR/nodcgm.yaml"
printf '\nvalidate:\n  dcgm: { command: dcgmi-missing, level: 3, timeout: 60 }\n' >>"$TEST_DIR/nodcgm.yaml"
expect_status 1 "$BRINGUP" validate --no-baseline -i "$TEST_DIR/nodcgm.yaml" --stage dcgm -o json \
	--output "$TEST_DIR/missing.json"
[ "$(findings missing | grep -c '^fail dgx0[1-3] - dcgmi-missing not found')" -eq 3 ] ||
	fail "missing dcgmi: $(findings missing)"

"$BRINGUP" sim fault dgx02 clear >/dev/null || fail "clear"
expect_status 0 dcgm_run clear
[ -z "$(findings clear)" ] || fail "cleared: $(findings clear)"

# Not over Kubernetes: asked for there, it is refused before anything runs.
out=$("$BRINGUP" validate --no-baseline -i "$INV" --via kubernetes --stage dcgm 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q 'stage dcgm does not run --via kubernetes' ||
	fail "dcgm via kubernetes: exit $rc: $out"
# Not a default stage (half an hour on real GPUs): a plain run has today's
# four (each kept short here: only which stages ran is looked at).
cat "$INV" >"$TEST_DIR/short.yaml"
cat >>"$TEST_DIR/short.yaml" <<'YAML'

validate:
  tries: 1
  rdma: { duration: 1 }
  nccl: { mpirun: false, max_bytes: 1M }
  resnet: { mpirun: false, num_batches: 10 }
  storage: { directory: /tmp, runtime: 1, size: 64M }
YAML
"$BRINGUP" validate --no-baseline -i "$TEST_DIR/short.yaml" -o json --output "$TEST_DIR/all.json" >/dev/null 2>&1
python3 - "$TEST_DIR/all.json" <<'PY' || fail "default stages"
import json, sys
st = [s["stage"] for s in json.load(open(sys.argv[1]))["stages"]]
assert st == ["rdma", "nccl", "resnet", "storage"], st
PY
exit 0

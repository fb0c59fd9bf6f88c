#!/bin/sh
# precheck --deep runs DCGM's quick diagnostic (dcgmi diag -r 1) on every GPU
# node and judges its table (gpu.dcgm_diag): a healthy cluster passes; a
# GPU with row remappings pending fails that host and GPU alone, in DCGM's
# own words (the stand-in prints the real capture's rows); persistence mode
# off fails the "Persistence Mode" test of that host alone; clearing turns
# it green. Without --deep nothing of it runs.
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/tools/dcgmi-diag" && pwd)
sim_up -n 3 --state ready

# dcgm_report ARGS...: precheck --deep of gpu.dcgm_diag as JSON in $TEST_DIR/r.json
dcgm_report() {
	"$BRINGUP" precheck -i "$INV" --deep --checks gpu.dcgm_diag -o json --output "$TEST_DIR/r.json" "$@"
}
# findings: "status host subject found" per result, sorted
findings() {
	python3 - "$TEST_DIR/r.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["check"] == "gpu.dcgm_diag":
        print(r["status"], r["host"], r["subject"] or "-", r["found"] or "")
PY
}

expect_status 0 dcgm_report
[ "$(findings | grep -c '^pass dgx0[1-3] - 9 tests passed$')" -eq 3 ] || fail "healthy: $(findings)"

# The stand-in prints the real capture's Error rows, wrapped as DCGM wraps.
"$BRINGUP" sim fault dgx02 row-remap-pending 3 >/dev/null || fail "fault"
sim_ssh 127.0.1.2 dcgmi diag -r 1 >"$TEST_DIR/diag.txt" && fail "dcgmi diag passed with a remap pending"
grep -v '^Successfully' "$FIX/diag_r3_excerpt_deployment_error_gpu3_row_remap_pending.txt" |
	while IFS= read -r l; do grep -qxF -- "$l" "$TEST_DIR/diag.txt" || echo "$l"; done >"$TEST_DIR/missing"
[ ! -s "$TEST_DIR/missing" ] || fail "rows of the real capture missing: $(cat "$TEST_DIR/missing")"
# ... and a healthy node the capture's deployment rows (DCGM 3.3.9)
sim_ssh 127.0.1.1 dcgmi diag -r 1 | sed -n '/Deployment/,/Inforom/p' >"$TEST_DIR/dep.txt" || fail "healthy diag"
sed -n '/Deployment/,/Inforom/p' "$FIX/diag_r3_dcgm_3_3_9_v100_all_pass_eud_skip.txt" | diff -u - "$TEST_DIR/dep.txt" ||
	fail "deployment rows differ from the capture"

expect_status 1 dcgm_report
f=$(findings)
echo "$f" | grep -q '^fail dgx02 GPU 3 Error: GPU 3 has uncorrectable memory errors and row remappings are pending$' ||
	fail "remap: $f"
[ "$(echo "$f" | grep -vc '^pass ')" -eq 1 ] || fail "not dgx02's GPU 3 alone: $f"

# persistence mode off on dgx03 (with dgx02's fault still there)
sim_ssh 127.0.1.3 nvidia-smi -pm 0 >/dev/null || fail "nvidia-smi -pm 0"
expect_status 1 dcgm_report
f=$(findings)
echo "$f" | grep -q '^fail dgx03 Persistence Mode Persistence Mode: Fail$' || fail "persistence: $f"
[ "$(echo "$f" | grep -vc '^pass ')" -eq 2 ] || fail "more than dgx02 and dgx03 failed: $f"

"$BRINGUP" sim fault dgx02 clear >/dev/null || fail "clear"
sim_ssh 127.0.1.3 nvidia-smi -pm 1 >/dev/null || fail "nvidia-smi -pm 1"
expect_status 0 dcgm_report

# no --deep, no diagnostic
"$BRINGUP" precheck -i "$INV" --checks 'gpu.*' -o json --output "$TEST_DIR/r.json" || fail "precheck"
[ -z "$(findings)" ] || fail "gpu.dcgm_diag ran without --deep: $(findings)"
exit 0

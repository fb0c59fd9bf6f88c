#!/bin/sh
# make demo (tools/demo.sh) runs the whole mission on three simulated nodes
# (two cannot tell which end of a slow pair is at fault):
# bare nodes, deploy with the openshift stage applied to the stand-in API
# server, validate with the seeded fault named in the text report and in
# the HTML report whose path it prints, and the replay hint for the TUI.
. "$(dirname "$0")/lib.sh"
python3 -c 'import yaml' 2>/dev/null || skip python3-yaml "tools/install-deps.sh"
command -v openssl >/dev/null || skip openssl "the stand-in API server's certificate"
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(BRINGUP="$BRINGUP" DEMO_NODES=3 DEMO_TUI=0 DEMO_DIR="$TEST_DIR/demo" BRINGUP_SIM_DIR="$TEST_DIR/demo-sim" \
	sh "$top/tools/demo.sh" </dev/null 2>&1) || fail "demo.sh: $out"
echo "$out" | grep -Eq '^  openshift +changed +localhost' || fail "no openshift stage applied: $out"
echo "$out" | grep -q 'dgx03 mlx5_1/1: below 90% of the link rate' || fail "the text report does not name the fault: $out"
html=$(echo "$out" | sed -n 's/^HTML report: //p')
[ -s "$html" ] || fail "no HTML report at '$html': $out"
grep -q "dgx03" "$html" && grep -q "mlx5_1" "$html" || fail "the HTML report does not name dgx03 mlx5_1"
echo "$out" | grep -Eq "^\\\$ .*bringup tui --replay $TEST_DIR/demo/state/runs/[^ ]+ --speed 20$" ||
	fail "no replay hint: $out"
"$BRINGUP" tui --replay "$(echo "$out" | sed -n 's/^\$ .*tui --replay \([^ ]*\) .*/\1/p')" </dev/null 2>&1 |
	grep -q 'needs a terminal' || fail "the replay hint names no recorded run"
echo "$out" | grep -Eq '^== done: bringup sim down  \[[0-9]+s\]$' || fail "the demo did not finish: $out"
exit 0

#!/bin/sh
# validate --tui: a column per stage, a row per host and one for the
# cluster's own figures; the host with a degraded port fails its rdma cell,
# whose reason is the report's finding (port named); no other host fails;
# q gives the terminal back, the text report follows and the exit status is
# validate's (1: a stage failed). Without a terminal --tui prints the report
# as plain validate does.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
sim_up -n 3 --state ready
sed -i 's/^    compute_hcas: .*/    compute_hcas: [mlx5_0, mlx5_1]/' "$INV"
cat >>"$INV" <<'YAML'

validate:
  tries: 1
  rdma:
    duration: 1
YAML
"$BRINGUP" sim fault dgx02 link-degraded mlx5_1 >/dev/null || fail "fault"

tui_start 100 30 "\$BRINGUP validate --tui --no-baseline --stage rdma -i '$INV'"
wait_screen '^bringup sim  validate .*\[DONE\]' 120
screen | grep -Eq '^HOST +rdma' || { screen; fail "no rdma column"; }
row dgx02 | grep -q '✗' || { screen; fail "dgx02 shows no failure"; }
for h in dgx01 dgx03 cluster; do
	row $h | grep -q '✗' && { screen; fail "$h shows a failure"; }
done
keys Down
wait_screen 'dgx02 · rdma · failed'
screen | grep -Eq 'reason: fail mlx5_1/1: ' || { screen; fail "the finding as the reason"; }
keys q
expect_restored 1
screen | grep -Eq '^rdma +fail' || { screen; fail "no text report after the TUI"; }
T kill-server

# no terminal: the report alone; the run recorded for tui --replay/--attach
"$BRINGUP" validate --tui --no-baseline --stage rdma -i "$INV" --state-dir "$TEST_DIR/state" \
	>"$TEST_DIR/plain.txt" 2>&1 </dev/null
[ $? = 1 ] || fail "plain validate --tui: status"
grep -Eq '^rdma +fail' "$TEST_DIR/plain.txt" || { cat "$TEST_DIR/plain.txt"; fail "plain report"; }
grep -q "$(printf '\033')\[" "$TEST_DIR/plain.txt" && fail "escapes without a terminal"
RUN=$(ls -d "$TEST_DIR"/state/runs/*-validate/ | head -n 1)
[ -s "$RUN/events.jsonl" ] || fail "validate recorded no events"
tui_start 100 30 "\$BRINGUP tui --replay '$RUN' --speed 0"
wait_screen '^bringup .*validate .*\[DONE\]' 30
row dgx02 | grep -q '✗' || { screen; fail "replay: dgx02 shows no failure"; }
row dgx01 | grep -q '✗' && { screen; fail "replay: dgx01 shows a failure"; }
keys q
expect_restored 0
exit 0

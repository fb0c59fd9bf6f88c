#!/bin/sh
# `bringup tui --attach RUN_DIR` watches a deploy that another process runs,
# through the run's event log: the same matrix as it goes, read-only (p and
# r say so, q leaves at once without asking, and the run goes on); attached
# again, it follows the run to its end, and the header's hosts per state are
# the run's own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
sim_up -n 3 --state bare
SERIAL=1 tui_playbook
break_memlock dgx03
STATE=$TEST_DIR/state

"$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" >"$TEST_DIR/deploy.out" 2>&1 &
DEPLOY=$!
i=0; until ls "$STATE"/runs/*/events.jsonl >/dev/null 2>&1; do
	i=$((i+1)); [ $i -lt 300 ] || fail "the deploy wrote no events"; sleep 0.1; done
RUN=$(ls -d "$STATE"/runs/*/ | head -n 1)

tui_start 80 24 "\$BRINGUP tui --attach '$RUN'"
wait_screen '^bringup attached sim  deploy  .* 3 hosts, stages [0-2]/2'
wait_screen '^dgx0[1-3] +[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]' 60
matrix_ok
screen | tail -n 1 | grep -Eq ' (p pause|r retry) ' && { screen; fail "attached: keys for control"; }
keys p
wait_screen 'nothing to pause'
keys q
expect_restored 0
kill -0 "$DEPLOY" 2>/dev/null || fail "the deploy ended with the attached view (or before it)"
T kill-server

tui_start 80 24 "\$BRINGUP tui --attach '$RUN'"
wait_screen '\[DONE\]' 120
matrix_ok "$RUN/events.jsonl"
expect_row dgx03 '✗ +»'
expect_row dgx02 '^dgx02 +● '
keys q
expect_restored 0
wait "$DEPLOY"
[ $? = 1 ] || fail "the deploy's exit status: $(cat "$TEST_DIR/deploy.out")"
grep -Eq '^  memlock +failed +dgx03' "$TEST_DIR/deploy.out" || fail "the deploy's summary: $(cat "$TEST_DIR/deploy.out")"

# not a run directory: said, exit 2 (ERR_NOTFOUND is a usage error)
tui_start 80 24 "\$BRINGUP tui --attach '$TEST_DIR/nowhere'"
wait_screen STTY-DONE 30
screen | grep -q "nowhere/events.jsonl: No such file" || { screen; fail "no message for a missing run"; }
exit 0

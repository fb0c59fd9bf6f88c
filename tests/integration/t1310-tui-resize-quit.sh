#!/bin/sh
# The TUI redraws for a resize at any moment (80x24 -> 132x40 -> 80x24);
# q while work runs asks first (n: the run goes on), then y stops it as
# SIGINT does: running commands finish, the terminal is given back, and
# `deploy --resume` completes the run. ^C does the same. Without a terminal
# --tui prints deploy's plain lines. NO_COLOR: the glyphs still tell states.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
sim_up -n 2 --state bare
tui_playbook
STATE=$TEST_DIR/state

NO_COLOR=1 tui_start 80 24 "\$BRINGUP tui -i '$INV' -p '$TEST_DIR/pb.yaml' --state-dir '$STATE'"
wait_screen '^dgx01 +[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]' 30
T resize-window -x 132 -y 40
wait_screen '^─ dgx01 · memlock · running [0-9:]+(/[0-9:]+)? · stage [0-2]/2 ─{60,} row 1/2 ─$'
[ "$(screen | wc -l)" -ge 39 ] || fail "not redrawn for 40 lines"
row dgx02 >/dev/null || fail "rows lost on resize"
T resize-window -x 80 -y 24
wait_screen '^─ dgx01 · memlock · running [0-9:]+(/[0-9:]+)? · stage [0-2]/2 ─{10,40} row 1/2 ─$'
screen | grep -Eq '─{61}' && { screen; fail "still drawn for 132 columns"; }

# q: asked; n goes on
keys q
wait_screen 'Stop the run\? running commands finish; `bringup deploy --resume` goes on \[y/N\]'
keys n
wait_screen 'not stopped'
screen | grep -q STOPPING && fail "n stopped the run"
# q, y: stops; what was running finishes, the rest is not started
keys q
wait_screen 'Stop the run\?'
keys y
expect_restored 1
screen | grep -q 'interrupted; `bringup deploy --resume` goes on' || { screen; fail "no resume hint"; }
grep -q '"state": "interrupted"' "$STATE"/runs/*/journal.json || fail "journal not interrupted"
T kill-server

# ^C in the TUI (the resumed run): the same clean stop
tui_start 80 24 "\$BRINGUP tui --resume -i '$INV' -p '$TEST_DIR/pb.yaml' --state-dir '$STATE'"
wait_screen '^dgx0[12] +.*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]' 30
keys C-c
expect_restored 1
screen | grep -q 'interrupted; `bringup deploy --resume` goes on' || { screen; fail "^C: no resume hint"; }
T kill-server

# no terminal: --tui prints the plain lines, and --resume completes the run
out=$("$BRINGUP" deploy --tui --resume -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" </dev/null | cat)
echo "$out" | grep -Eq '^nouveau dgx0[12] (changed|ok) ' || fail "--tui on a pipe: $out"
echo "$out" | grep -Eq '^  nouveau +changed +dgx\[01-02\]' || fail "resume did not complete: $out"
grep -q '"state": "completed"' "$STATE"/runs/*/journal.json || fail "journal not completed"
exit 0

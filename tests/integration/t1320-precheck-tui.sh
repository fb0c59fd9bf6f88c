#!/bin/sh
# precheck --tui: a column for facts and one per group of checks; a host's
# failed group shows the check, what it found and the hint; q gives the
# terminal back and the report follows. Without --tui on a terminal: the
# live status lines, then the report.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
sim_up -n 2 --state ready
"$BRINGUP" sim fault dgx02 port-down >/dev/null || fail "fault port-down"

tui_start 100 30 "\$BRINGUP precheck --tui -i '$INV'"
wait_screen '^bringup sim  precheck .*\[DONE\]' 50
screen | grep -Eq '^HOST +fact +ssh ' || { screen; fail "no facts/ssh columns"; }
row dgx01 | grep -q '✗' && { screen; fail "dgx01 shows a failure"; }
row dgx02 | grep -q '✗' || { screen; fail "dgx02 shows no failure"; }
keys Down
wait_screen 'dgx02 · facts · ok'
i=0
until screen | grep -q '^─ dgx02 · [a-z]* · failed'; do
	i=$((i + 1)); [ $i -le 25 ] || { screen; fail "no failed cell on dgx02's row"; }
	keys Right; sleep 0.2
done
screen | grep -Eq '^ reason: ib\.[a-z_]+ .*expected .*found' || { screen; fail "reason"; }
screen | grep -q '^ hint: ' || { screen; fail "hint"; }
keys q
expect_restored 1
screen | grep -q '^FAIL ib\.' || { screen; fail "no report after the TUI"; }
T kill-server

tui_start 100 70 "\$BRINGUP precheck -i '$INV'"
wait_screen 'STTY-DONE' 50
screen | grep -Eq '^facts +\[#{24}\] 2/2 ok=2$' || { screen; fail "facts status line"; }
screen | grep -Eq '^ib +\[#{24}\] 2/2 ok=1 failed=1$' || { screen; fail "ib status line"; }
screen | grep -Eq '^ib dgx02 failed: ib\.' || { screen; fail "failure line"; }
exit 0

#!/bin/sh
# deploy on a terminal without --tui: one line per stage (bar, done/total,
# counts) rewritten in place, each failure on a line of its own as it
# happens, then the summary; no line per host and event. On a pipe the
# line-per-event form stays.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
sim_up -n 3 --state bare
tui_playbook
break_memlock dgx02
STATE=$TEST_DIR/state

tui_start 100 30 "\$BRINGUP deploy -i '$INV' -p '$TEST_DIR/pb.yaml' --state-dir '$STATE'"
# while it runs: the stage's line with a bar
wait_screen '^memlock +\[[#.]{24}\] [0-3]/3( |$)' 30
wait_screen 'STTY-DONE' 60
s=$(screen)
echo "$s" | grep -Eq '^memlock dgx02 failed: apply: cannot write /etc/security/limits.d' ||
	fail "the failure is not on its own line: $s"
echo "$s" | grep -Eq '^memlock +\[#{24}\] 3/3 changed=2 failed=1$' || fail "memlock line: $s"
echo "$s" | grep -Eq '^nouveau +\[#{24}\] 3/3 changed=2 skipped=1$' || fail "nouveau line: $s"
[ "$(echo "$s" | grep -c '^memlock ')" = 2 ] || fail "the stage line was not rewritten in place: $s"
echo "$s" | grep -Eq ' (started|output) ' && fail "per-event lines on a terminal: $s"
echo "$s" | grep -q '^total: ok=0 changed=4 failed=1 skipped=1' || fail "summary: $s"
echo "$s" | grep -q 'EXIT=1' || fail "exit status: $s"
exit 0

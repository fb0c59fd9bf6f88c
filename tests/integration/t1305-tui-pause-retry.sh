#!/bin/sh
# p pauses the scheduling of new work (the host working finishes, the next
# ones stay pending) and p again resumes; r re-runs the failed hosts of the
# chosen stage (and the stages their failure skipped) once the cause is mended,
# and the journal ends "completed".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
sim_up -n 3 --state bare
SERIAL=2 tui_playbook
break_memlock dgx02
STATE=$TEST_DIR/state

tui_start 80 24 "\$BRINGUP tui -i '$INV' -p '$TEST_DIR/pb.yaml' --state-dir '$STATE'"
# serial 2: dgx01 and dgx02 work first; pause while they do
wait_screen '^dgx01 +[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]' 30
keys p
wait_screen '\[PAUSED\]'
# they finish what they began; dgx03 does not start
wait_screen '^dgx01 +●' 40
wait_screen '^dgx02 +✗' 40
for i in 1 2 3 4 5 6 7 8 9 10; do
	expect_row dgx03 '^dgx03 +· *$'
	sleep 0.2
done
screen | grep -q 'running 0' || { screen; fail "work started while paused"; }
keys p
wait_screen 'resumed'
wait_screen '\[DONE\]' 60
expect_row dgx02 '✗ +»'
expect_row dgx03 '● +●'

# mend dgx02, retry memlock's failed hosts: dgx02 runs memlock, then nouveau
mend_memlock dgx02
keys r
wait_screen 'retry: the 1 failed host\(s\) of memlock'
wait_screen '^dgx02 +● +●' 60
wait_screen '\[DONE\]' 30
screen | grep -q '✗failed 0' || { screen; fail "failures left after the retry"; }
# nothing failed any more: r says so
keys r
wait_screen 'retry: no host failed stage memlock'
keys q
expect_restored 0
grep -q '"state": "completed"' "$STATE"/runs/*/journal.json || fail "journal not completed"
exit 0

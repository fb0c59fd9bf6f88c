#!/bin/sh
# What the screen must not hide (issue 27): `tui --check` says DRY RUN in its
# header, counts "would change" and lists the plan under c, and so does its
# replay; ^L draws a garbled screen again; ^Z gives the terminal back and the
# TUI comes back whole on SIGCONT (fg); LANG=C draws ASCII glyphs, never '?';
# TERM=dumb gets plain lines with no cursor escapes, with or without --tui.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
sim_up -n 3 --state bare
tui_playbook
STATE=$TEST_DIR/state

tui_start 100 30 "\$BRINGUP tui --check -i '$INV' -p '$TEST_DIR/pb.yaml' --state-dir '$STATE'"
wait_screen '^bringup sim  deploy .*\[DRY RUN\]' 30
wait_screen '\[DONE\]' 60
screen | grep -q '^✓ok 0 ●would change 3 ✗failed 0 ' || { screen; fail "dry-run header counts"; }
keys c
wait_screen '^\[DRY RUN\] DRY RUN: what would change \(nothing was changed\)'
screen | grep -q '^memlock: 3 hosts would change$' || { screen; fail "the plan's stage line"; }
screen | grep -Eq '^  dgx01: .*limits\.d/99-bringup-memlock\.conf' || { screen; fail "the plan's changes"; }
keys q
wait_screen '^HOST '
keys q
wait_screen STTY-DONE 60
RUN=$(ls -d "$STATE"/runs/*/ | head -n 1)
[ -s "$RUN/events.jsonl" ] || fail "the dry run recorded no events"
T kill-server

# the replay of a dry run is one too; ^L and ^Z/fg
tui_start 80 24 "\$BRINGUP tui --replay '$RUN' --speed 0"
wait_screen '^bringup replay sim  deploy .*\[DRY RUN\].*\[DONE\]'
printf '\033[12;5HXXGARBAGEXX' >"$(T display -p '#{pane_tty}')"
wait_screen XXGARBAGEXX 5
keys C-l
i=0; while screen | grep -q XXGARBAGEXX; do i=$((i+1)); [ $i -lt 30 ] || fail "^L did not repaint"; sleep 0.1; done
matrix_ok
keys q
expect_restored 0
T kill-server

# ^Z and fg in an interactive shell, as an admin has them (a pane's own
# process group is orphaned: the kernel drops ^Z there, as it should)
if command -v bash >/dev/null; then
	TMUX_N=$((TMUX_N + 1))
	TMUX_SOCK="bringup-$TEST_NAME-$$-$TMUX_N"
	T new-session -d -x 80 -y 24 -e LANG=C.UTF-8 -e LC_ALL=C.UTF-8 \
		"bash --norc --noprofile -i" || fail "tmux cannot start"
	keys "'$BRINGUP' tui --replay '$RUN' --speed 0" Enter
	wait_screen '^bringup replay sim  deploy .*\[DONE\]'
	keys C-z
	wait_screen 'Stopped'
	[ "$(T display -p '#{alternate_on}')" = 0 ] || fail "^Z kept the alternate screen"
	keys fg Enter
	i=0; until [ "$(T display -p '#{alternate_on}')" = 1 ]; do
		i=$((i+1)); [ $i -lt 50 ] || fail "fg did not take the screen again"; sleep 0.1; done
	wait_screen '^bringup replay sim  deploy'
	matrix_ok
	keys q
	i=0; until [ "$(T display -p '#{alternate_on}')" = 0 ]; do
		i=$((i+1)); [ $i -lt 50 ] || fail "q after fg did not leave"; sleep 0.1; done
	T kill-server
else
	echo "# ^Z/fg not checked: no bash for an interactive shell with job control" >&2
fi

# LANG=C: ASCII glyphs and lines, not '?'
tui_start 80 24 "LANG=C LC_ALL=C \$BRINGUP tui --replay '$RUN' --speed 0"
wait_screen '^bringup replay sim  deploy .*\[DONE\]'
expect_row dgx01 '^dgx01 +\+ +\+ *$'
# the names do not fit 80 columns with "would change": glyphs and numbers
screen | grep -Eq '^o0 \+3 X0 U0 >0 [-|/\\]0 \.0$' || { screen; fail "ASCII header"; }
screen | grep -q '^- dgx01 - memlock - would change' || { screen; fail "ASCII detail line"; }
screen | grep -v '? help' | grep -q '?' && { screen; fail "a '?' glyph under LANG=C"; }
keys q
expect_restored 0
T kill-server

# TERM=dumb: no TUI, no cursor movement: the stage lines once each, plain
STATE2=$TEST_DIR/state2
tui_start 100 30 "TERM=dumb \$BRINGUP tui -i '$INV' -p '$TEST_DIR/pb.yaml' --state-dir '$STATE2'"
T pipe-pane -o "cat >>'$TEST_DIR/raw.out'"
wait_screen STTY-DONE 90
screen | grep -Eq '^memlock +\[#{24}\] 3/3 changed=3$' || { screen; fail "TERM=dumb: no plain stage line"; }
[ "$(screen | grep -c '^memlock ')" = 1 ] || { screen; fail "TERM=dumb: the stage line is repeated"; }
screen | grep -q 'EXIT=0' || { screen; fail "TERM=dumb: exit status"; }
[ "$(T display -p '#{alternate_on}')" = 0 ] || fail "TERM=dumb took the alternate screen"
grep -q "$(printf '\033')\[" "$TEST_DIR/raw.out" && fail "TERM=dumb: escape sequences were sent"
exit 0

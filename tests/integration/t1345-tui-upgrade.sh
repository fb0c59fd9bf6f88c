#!/bin/sh
# `bringup upgrade --tui`: the rolling upgrade's batches in the full-screen
# view (its stages b1-..., b2-... by host), to the end, with the header's
# hosts per state the run's own; without a terminal, --tui keeps the plain
# lines (t1510 and the others run without it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
command -v slow >/dev/null || slow() { echo $(($1 * ${BRINGUP_TEST_SLOW:-1})); }
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
sim_up -n 3 --state ready
STATE=$TEST_DIR/state
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/ofed" 5.0-2.1.8.0 rhel7.6 x86_64 3.10.0-957.el7.x86_64) ||
	fail "make-bundle"

tui_start 120 40 "\$BRINGUP upgrade -i '$INV' --state-dir '$STATE' --timeout $(slow 120) --to ofed=5.0-2.1.8.0 --ofed-tarball '$TGZ' --batch 1 --tui"
wait_screen '^bringup sim  upgrade  ' 60
wait_screen '^─ dgx0[1-3] · b1-[a-z-]+ · ' 5
wait_screen '\[DONE\]' 400
EV=$(ls "$STATE"/runs/*/events.jsonl | tail -n 1)
matrix_ok "$EV"
screen | grep -q '✗failed 0' || { screen; fail "a host failed the upgrade"; }
keys q
expect_restored 0
exit 0

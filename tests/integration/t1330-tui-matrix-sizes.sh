#!/bin/sh
# The matrix never lies (issue 27): a 16-node deploy with two failed hosts
# and a run-once stage, at 200x50, 80x24, 120x40 and 40x10, with keys (End,
# Home, Enter, Down, Esc, G, g, ^L) and resizes between: after every step the
# rows drawn are a contiguous window holding the chosen row (matrix_ok), and
# once the run is done the header's hosts per state are the run's own and
# no host reads pending (the run-once stage's other hosts read "not here").
# The chosen host stays chosen while it folds into a node set and back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
sim_up -n 16 --state bare
cat >"$TEST_DIR/pb.yaml" <<YAML
name: deploy
stages:
  - name: node_memlock
    module: memlock
    hosts: gpu_worker
  - name: node_nouveau
    module: nouveau
    hosts: gpu_worker
  - name: node_nouveau_once
    module: nouveau
    hosts: gpu_worker
    run_once: true
YAML
break_memlock dgx03
break_memlock dgx11
STATE=$TEST_DIR/state

tui_start 200 50 "\$BRINGUP tui -i '$INV' -p '$TEST_DIR/pb.yaml' --state-dir '$STATE'"
wait_screen '^dgx0[1-9] +[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]' 60
matrix_ok
# resized while it runs: folded into node sets, then unfolded
T resize-window -x 80 -y 24
matrix_ok
T resize-window -x 40 -y 10
matrix_ok
T resize-window -x 200 -y 50
matrix_ok
wait_screen '\[DONE\]' 180
EV=$(ls "$STATE"/runs/*/events.jsonl)
matrix_ok "$EV"
# the run-once stage: one host ran it, the others read "not here" (–)
screen | grep -Eq '^dgx01 +● +● +✓ *$' || { screen; fail "dgx01 ran every stage (the second nouveau: ok)"; }
screen | grep -Eq '^dgx05 +● +● +– *$' || { screen; fail "dgx05 is not marked 'not here' for the run-once stage"; }
screen | grep -Eq '^dgx03 +✗ +» +» *$' || { screen; fail "dgx03's row"; }
# unique stage names where they do not fit
screen | grep -Eq '^HOST +node_memlock +node_nouveau +node_nouveau_once' || { screen; fail "whole stage names at 200 columns"; }

# the chosen host stays chosen as it folds into a node set and back
keys g Down Down Down Down Down Down
wait_screen '^─ dgx07 · node_memlock · changed'
T resize-window -x 80 -y 24
wait_screen '^─ dgx\[[-0-9,]+\] \(13 hosts, showing dgx07\)'
matrix_ok "$EV"
T resize-window -x 200 -y 50
wait_screen '^─ dgx07 · node_memlock · changed'

for size in "80 24" "120 40" "200 50" "40 10" "80 24"; do
	set -- $size
	T resize-window -x "$1" -y "$2"
	matrix_ok "$EV"
	for k in End Home Enter Down Down Enter Escape G g C-l Up; do
		keys "$k"
		matrix_ok "$EV"
	done
	# the keys line keeps help and quit in sight
	screen | tail -n 1 | grep -q '? help  q quit$' || { screen; fail "hints at ${1}x$2 lose ? help / q quit"; }
	# scrolled to the end before the next size: a larger screen must not keep
	# the offset (rows hidden above, empty lines below)
	keys End
	matrix_ok "$EV"
done
# at 40 columns the three stage names are cut to three distinct names
T resize-window -x 40 -y 10
matrix_ok "$EV"
head=$(screen | sed -n 3p)
n=$(echo "$head" | tr -s ' ' '\n' | sed 1d | grep -c .)
u=$(echo "$head" | tr -s ' ' '\n' | sed 1d | grep . | sort -u | wc -l)
[ "$n" -ge 2 ] && [ "$n" = "$u" ] || { screen; fail "stage heads not distinct: $head"; }
keys q
expect_restored 1
exit 0

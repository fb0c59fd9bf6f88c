#!/bin/sh
# The quorum invariant with a quorum node lost in the middle of a rolling
# upgrade (issue 28). 7 nodes; the admin makes dgx04 and dgx05 quorum nodes
# too (mmchlicense, mmchnode: 5 quorum nodes), while the inventory still
# says dgx[01-03]: the plan must come from mmlscluster (drift named) and
# hold one quorum node a batch (GPFS needs 3 of 5, bringup keeps 4). Then
# `upgrade --to scale=NEW --batch 3` runs while a quorum node is stopped at
# a random moment (sim fault gpfs-stop-at 1+S: S seconds after the first
# mmshutdown; seed printed, T1550_SEED=N replays it) and a sampler reads
# `mmgetstate -a` every 0.2 s: fewer than 3 active quorum nodes in any
# sample fails the test. The next batch's quorum node is refused (named,
# with the lost node) and the upgrade exits 1, never 0; with the lost node
# started again, --resume finishes, quorum kept again. Last, the Redpaper's
# single quorum node: its clients are planned, it is left out with a remedy
# naming real nodes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scale-lib.sh"
SEED=${T1550_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "t1550: seed $SEED (T1550_SEED=$SEED replays this run)"
sim_up -n 7 --state ready
STATE=$TEST_DIR/state
SCALE=$("$BRINGUP_SIM_DIR/bin/sim-scale-bundle" "$TEST_DIR/scale" 5.1.2.1 dm x86_64) ||
	fail "sim-scale-bundle"
up() {
	"$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" \
		--scale-installer "$SCALE" "$@"
}
mm() { sim_ssh 127.0.1.1 "/usr/lpp/mmfs/bin/$*"; }
QUORUM="dgx01 dgx02 dgx03 dgx04 dgx05"

mm "mmchlicense server --accept -N dgx04,dgx05" >/dev/null || fail "mmchlicense"
mm "mmchnode --quorum -N dgx04,dgx05" >/dev/null || fail "mmchnode"

out=$(up --to scale=5.1.2.1 --batch 3 --check 2>&1) || fail "check: $out"
for h in dgx04 dgx05; do
	echo "$out" | grep -q "^drift: $h is quorum in mmlscluster, client in the inventory" ||
		fail "no drift reported for $h: $out"
done
echo "$out" | grep -q "^  quorum   at most 1: 5 of 5 quorum nodes active (dgx\[01-05\]), GPFS needs 3, bringup keeps 4" ||
	fail "quorum cap: $out"
echo "$out" | sed -n 's/^batch \([0-9]*\): \([^ ]*\) .*/\2/p' >"$TEST_DIR/batches"
[ "$(wc -l <"$TEST_DIR/batches")" -eq 5 ] || fail "batches: $out"

# the cluster's states, and the quorum sampler, from outside the nodes (scale-lib.sh)
states() { quorum_states dgx07; }
# Every sample kept 3 quorum nodes active, and some saw one down (else the
# sampler proved nothing).
check_samples() {
	awk -v what="$1" '
		{ n++ } $1 < 3 { print "quorum lost in sample " n " (" what "): " $0; bad = 1 }
		$1 < 5 { down++ }
		END {
			if (n < 10) { print "only " n " samples (" what ")"; bad = 1 }
			if (!down) { print "no sample saw a quorum node down (" what ")"; bad = 1 }
			exit bad
		}' "$TEST_DIR/samples" || fail "samples: $(grep -c . "$TEST_DIR/samples") taken; seed $SEED"
}

# The issue's reproduction, at a random moment: the plan made with all
# five active, then a quorum node of a later batch (dgx03..dgx05) lost S
# seconds (0-2, random) after batch 1's first mmshutdown (dgx01's). Batch 1
# holds one quorum node, so quorum holds (3 of 5) even then; batch 2's
# quorum node (dgx02) must then stay up: the live check refuses it, names
# the lost node, and the upgrade exits 1 at the batch's end.
rnd() { awk -v s="$SEED" -v i="$1" -v n="$2" 'BEGIN { srand(s * 7 + i); print int(rand() * n) }'; }
S=$(rnd 1 20 | awk '{ printf "%.1f", $1 / 10 }')
LOST=dgx0$(( $(rnd 2 3) + 3 ))
echo "t1550: $LOST stops ${S}s after the first mmshutdown"
"$BRINGUP" sim fault $LOST gpfs-stop-at "1+$S" >/dev/null || fail "sim fault gpfs-stop-at"

quorum_sampler_start dgx07
out=$(up --to scale=5.1.2.1 --batch 3 2>&1); rc=$?
quorum_sampler_stop
[ -z "${T1550_LOG:-}" ] || { echo "$out"; cat "$TEST_DIR/samples"; } >"$T1550_LOG"
# the fault fired: some sample saw the lost node down
grep -q " $LOST=down" "$TEST_DIR/samples" || fail "no sample saw $LOST down: the fault did not fire: $out"
check_samples "the run with $LOST lost"
[ $rc -eq 1 ] || fail "upgrade after losing $LOST: exit $rc, want 1 (seed $SEED): $out"
echo "$out" | grep -q "b2-scale-stop dgx02 failed .*refusing to stop GPFS on dgx02: 4 of 5 quorum nodes are active and stopping dgx02 (quorum node) would leave 3" ||
	fail "dgx02's stop not refused (seed $SEED): $out"
echo "$out" | grep -q "not active: $LOST (down); start GPFS on $LOST first (mmstartup -N $LOST)" ||
	fail "the refusal does not name $LOST (seed $SEED): $out"
echo "$out" | grep -Eq "^  dgx0[167] +upgraded$" || fail "batch 1 not upgraded: $out"
states | grep -q " dgx02  *active" || fail "dgx02 was stopped: $(states)"
sim_ssh 127.0.1.2 rpm -q gpfs.base | grep -q "^gpfs.base-5.1.2-1" && fail "dgx02 upgraded while left out"

# The lost node back, as its admin would; --resume finishes, quorum kept.
mm "mmstartup -N $LOST" >/dev/null || fail "mmstartup $LOST"
i=0
until states | grep -q " $LOST  *active"; do
	i=$((i + 1)); [ $i -le 50 ] || fail "$LOST not active again: $(states)"; sleep 0.2
done
quorum_sampler_start dgx07
out=$(up --resume 2>&1); rc=$?
quorum_sampler_stop
[ -z "${T1550_LOG:-}" ] || { echo "$out"; cat "$TEST_DIR/samples"; } >>"$T1550_LOG"
[ $rc -eq 0 ] || fail "resume: exit $rc (seed $SEED): $out"
check_samples "the resume"
for n in 1 2 3 4 5 6 7; do
	echo "$out" | grep -Eq "^  dgx0$n +upgraded$" || fail "dgx0$n not upgraded after resume: $out"
	sim_ssh 127.0.1.$n rpm -q gpfs.base | grep -q "^gpfs.base-5.1.2-1" ||
		fail "dgx0$n's GPFS: $(sim_ssh 127.0.1.$n rpm -q gpfs.base)"
done
[ "$(states | grep -c ' active')" -eq 7 ] || fail "not all active: $(states)"

# The Redpaper's topology: one quorum node (dgx01). Its clients are planned;
# dgx01 is left out with a remedy naming real nodes, and the run exits 1.
mm "mmchnode --nonquorum -N dgx02,dgx03,dgx04,dgx05" >/dev/null || fail "mmchnode --nonquorum"
# --check already says so: the plan cannot take every node (exit 1)
out=$(up --to scale=5.1.2.1 --batch 6 --check 2>&1) && fail "check, one quorum node, exit 0: $out"
echo "$out" | grep -q "^not upgraded: dgx01: upgrading any of dgx01 would leave 0 active quorum nodes, below the 1 bringup keeps (GPFS needs 1, a majority); designate more quorum nodes (for example mmchnode --quorum -N dgx\[02-03\]" ||
	fail "single quorum node: $out"
echo "$out" | grep -q "mmstartup -N none" && fail "a remedy naming no node: $out"
echo "$out" | grep -q "^batch 1: dgx\[02-07\] (6 nodes)" || fail "clients not planned: $out"
exit 0

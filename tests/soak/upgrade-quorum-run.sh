#!/bin/sh
# One run of the quorum soak (tests/soak/upgrade-quorum-soak.sh), issue 28's
# acceptance: 8 nodes, 5 quorum nodes (the admin made dgx04 and dgx05 quorum
# behind the inventory's back, as t1550 does), `upgrade --to scale=NEW
# --batch 3`, and one quorum node chosen at random stopped as a crash at a
# random moment: S seconds (0-3) after the K-th mmshutdown (K random among
# all the run's), which lands in any batch. A sampler reads `mmgetstate -a`
# every 0.2 s for the whole run: fewer than 3 active quorum nodes (GPFS's
# majority of 5) in any sample fails the run. The upgrade ends 0, or 1
# naming the node it left out; the lost node is started again as its admin
# would, and `--resume` finishes: every node upgraded and active, quorum kept
# throughout. QUORUM_SEED=N picks the moment; the same N replays it.
. "$(dirname "$0")/../integration/lib.sh"
SEED=${QUORUM_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "quorum-run: seed $SEED (QUORUM_SEED=$SEED replays it)"
sim_up -n 8 --state ready
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

states() {
	BRINGUP_SIM_NODE="$BRINGUP_SIM_DIR/nodes/dgx08" BRINGUP_SIM_CLUSTER="$BRINGUP_SIM_DIR/cluster" \
		"$BRINGUP_SIM_DIR/bin/mmgetstate" -a
}
: >"$TEST_DIR/samples"
sample() {
	while [ ! -e "$TEST_DIR/stop" ]; do
		states 2>/dev/null | awk -v q=" $QUORUM " '
			$2 ~ /^dgx/ { s = s " " $2 "=" $3; if (index(q, " " $2 " ") && $3 == "active") n++ }
			END { print n + 0 s }' >>"$TEST_DIR/samples"
		sleep 0.2
	done
	rm -f "$TEST_DIR/stop"
}
stop_sampler() { touch "$TEST_DIR/stop"; wait "$SAMPLER"; }
check_samples() {
	awk -v what="$1" '{ n++ } $1 < 3 { print "quorum lost in sample " n " (" what "): " $0; bad = 1 }
		END { if (n < 5) { print "only " n " samples (" what ")"; bad = 1 }; exit bad }' \
		"$TEST_DIR/samples" || fail "quorum lost; seed $SEED"
}
start_down() {
	for n in $QUORUM dgx06 dgx07 dgx08; do
		states | grep -q " $n  *active" && continue
		mm "mmstartup -N $n" >/dev/null || fail "mmstartup $n"
	done
	i=0
	until [ "$(states | grep -c ' active')" -eq 8 ]; do
		i=$((i + 1)); [ $i -le 100 ] || fail "not all active again: $(states)"; sleep 0.2
	done
}

# rnd I N: the seed's I-th number in [0, N); awk's srand gave near seeds the
# same first numbers, a hash does not
rnd() { echo $(( 0x$(printf '%s-%s' "$SEED" "$1" | sha256sum | cut -c1-8) % $2 )); }
LOST=dgx0$(( $(rnd 1 5) + 1 ))
K=$(( $(rnd 2 8) + 1 ))
S=$(rnd 3 30 | awk '{ printf "%.1f", $1 / 10 }')
echo "quorum-run: $LOST stops ${S}s after mmshutdown number $K"
"$BRINGUP" sim fault $LOST gpfs-stop-at "$K+$S" >/dev/null || fail "sim fault gpfs-stop-at"

sample & SAMPLER=$!
out=$(up --to scale=5.1.2.1 --batch 3 2>&1); rc=$?
"$BRINGUP" sim fault $LOST clear >/dev/null || fail "sim fault clear"
case $rc in
0) ;;
1) echo "$out" | grep -Eq "(failed|not upgraded|refusing).*dgx0[1-8]" ||
	fail "exit 1 naming no node (seed $SEED): $out";;
*) fail "upgrade: exit $rc (seed $SEED): $out";;
esac
echo "quorum-run: upgrade exit $rc; $(grep -c ' '"$LOST"'=down' "$TEST_DIR/samples") samples saw $LOST down"
# the admin starts what crashed; --resume goes on (twice at most: a node the
# fault took during the resume's own batches)
start_down
tries=0
while [ $rc -ne 0 ]; do
	tries=$((tries + 1)); [ $tries -le 2 ] || fail "resume did not finish (seed $SEED): $out"
	out=$(up --resume 2>&1); rc=$?
	[ $rc -le 1 ] || fail "resume: exit $rc (seed $SEED): $out"
	start_down
done
stop_sampler
check_samples "the upgrade and its resume"
for n in 1 2 3 4 5 6 7 8; do
	sim_ssh 127.0.1.$n rpm -q gpfs.base | grep -q "^gpfs.base-5.1.2-1" ||
		fail "dgx0$n not upgraded (seed $SEED): $(sim_ssh 127.0.1.$n rpm -q gpfs.base)"
done
echo "quorum-run: ok, $(wc -l <"$TEST_DIR/samples") samples, lowest $(sort -n "$TEST_DIR/samples" | head -n 1 | cut -d' ' -f1) of 5 quorum nodes active"
exit 0

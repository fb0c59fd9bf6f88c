#!/bin/sh
# Deploy's GPFS restarts planned like an upgrade batch (issue 28): a
# configuration change that takes effect at a restart (workerThreads,
# mmchconfig without -i) owes every running daemon a restart. The run's
# journal records what each node owes (scale.restart_owed.NODE, running
# against configured value) before any daemon stops; the run is killed
# (SIGKILL) while a restarted daemon is down; `deploy --resume` starts that
# one, restarts the rest and finishes. A sampler reading `mmgetstate -a`
# the whole time must never see fewer than 2 of the 3 quorum nodes active,
# and must see one down (else it proved nothing). Nothing is kept in a file
# on a node: the resume finds what is owed from mmdiag --config against
# mmlsconfig.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scale-lib.sh"
sim_up -n 4 --state ready
STATE=$TEST_DIR/state
G=$BRINGUP_SIM_DIR/cluster/gpfs
PB=$TEST_DIR/scale.yaml
scale_playbook "$PB"
scale_inventory "$INV" "$TEST_DIR/inv.yaml"
deploy() { "$BRINGUP" deploy -i "$TEST_DIR/inv.yaml" -p "$PB" --state-dir "$STATE" "$@"; }
QUORUM="dgx01 dgx02 dgx03"

out=$(deploy) || fail "first deploy: $out"

# the cluster's states, and the quorum sampler, from outside the nodes (scale-lib.sh)
states() { quorum_states dgx04; }

scale_inventory "$INV" "$TEST_DIR/inv.yaml" '{ workerThreads: 2048 }'
quorum_sampler_start dgx04
"$BRINGUP" deploy -i "$TEST_DIR/inv.yaml" -p "$PB" --state-dir "$STATE" >"$TEST_DIR/out1" 2>&1 & PID=$!
# SIGKILL the moment the first restart's mmshutdown took a daemon down,
# before its mmstartup (the cluster's daemon file says down).
i=0
until grep -qx down "$G"/daemon/dgx0* 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 3000 ] && kill -0 $PID 2>/dev/null ||
		{ kill -KILL $PID 2>/dev/null; quorum_sampler_stop; fail "no daemon went down: $(cat "$TEST_DIR/out1")"; }
	sleep 0.02
done
kill -KILL $PID
wait $PID 2>/dev/null
cut=$(grep -lx down "$G"/daemon/dgx0* | head -1); cut=${cut##*/}
echo "t0960: killed with $cut down"
run=$STATE/$(readlink "$STATE/last")
# what each node owes is in the journal, written before anything stopped
for n in dgx01 dgx02 dgx03 dgx04; do
	grep -q "\"scale.restart_owed.$n\": \"workerThreads configured 2048, running " "$run/journal.json" ||
		{ quorum_sampler_stop; fail "$n's owed restart not in the journal: $(grep restart_owed "$run/journal.json")"; }
done
ls "$BRINGUP_SIM_DIR"/nodes/*/root/var/lib/bringup/scale-restart-pending 2>/dev/null &&
	{ quorum_sampler_stop; fail "restarts kept in a file on a node"; }

out=$(deploy --resume 2>&1); rc=$?
quorum_sampler_stop
[ $rc -eq 0 ] || fail "resume: exit $rc: $out"
echo "$out" | grep -Eq "^  scale_restart +changed +dgx\[01-04\]$" || fail "resume did not finish the restarts ($cut cut): $out"
awk '{ n++ } $1 < 2 { print "quorum lost in sample " n ": " $0; bad = 1 } $1 < 3 { down++ }
	END { if (n < 10) { print "only " n " samples"; bad = 1 }
	      if (!down) { print "no sample saw a quorum node down"; bad = 1 }
	      exit bad }' "$TEST_DIR/samples" || fail "samples"
echo "t0960: $(wc -l <"$TEST_DIR/samples") samples, $(awk '$1 < 3' "$TEST_DIR/samples" | wc -l) with a quorum node down, none below 2 of 3"
for n in 1 2 3 4; do
	sim_ssh 127.0.1.$n /usr/lpp/mmfs/bin/mmdiag --config | grep -q ' workerThreads 2048$' ||
		fail "dgx0$n does not run workerThreads 2048"
done
[ "$(states | grep -c ' active')" -eq 4 ] || fail "not all active: $(states)"
out=$(deploy) || fail "last deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "last deploy changed something: $out"
exit 0

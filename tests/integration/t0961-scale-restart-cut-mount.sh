#!/bin/sh
# A deploy's planned GPFS restart cut between its mmstartup and its mmmount
# (issue 24): the run is killed (SIGKILL) the moment a restarted daemon is
# starting, before scale_node's mmmount all. The resumed deploy finds that
# daemon active and running its configured values (nothing owed any more):
# scale_restart leaves it alone and restarts the others, and
# scale_remote_mount, which follows, mounts it (in its one mmmount -N, not a
# mount a node: t0900); every node ends mounted and a further deploy changes
# nothing. The remote file system is defined with gpfs_automount: no, so
# that no daemon mounts it by itself at its start (IBM: -A yes mounts when
# the daemon starts).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scale-lib.sh"
sim_up -n 4 --state ready
scale_deploy_setup
G=$BRINGUP_SIM_DIR/cluster/gpfs
# inventory CONFIG: the Scale inventory (scale-lib.sh) with gpfs_automount: no
inventory() {
	scale_inventory "$INV" "$TEST_DIR/inv.yaml" "$@"
	sed -i 's/^  vars:$/  vars:\n    gpfs_automount: "no"/' "$TEST_DIR/inv.yaml"
	grep -q '^    gpfs_automount: "no"$' "$TEST_DIR/inv.yaml" || fail "no gpfs_automount in the inventory"
}
inventory
out=$(deploy) || fail "first deploy: $out"
mm mmremotefs show all | grep -Eq '^ess3000_4M .* no +- ' || fail "automount not no: $(mm mmremotefs show all)"

inventory '{ workerThreads: 2048 }'
# bringup itself in the background (not the deploy function's subshell), for the kill
"$BRINGUP" deploy -i "$TEST_DIR/inv.yaml" -p "$PB" --state-dir "$STATE" >"$TEST_DIR/out1" 2>&1 & PID=$!
# the first restart's mmstartup has run: its daemon is starting (it
# arbitrates a second or more before it is active and scale_node mounts)
starting() { grep -lq '^starting' "$G"/daemon/dgx0* 2>/dev/null; }
wait_while_running $PID "$TEST_DIR/out1" 3000 "a restart's mmstartup" starting
kill -KILL $PID
wait $PID 2>/dev/null
cut=$(grep -l '^starting' "$G"/daemon/dgx0* | head -1); cut=${cut##*/}
[ -n "$cut" ] || fail "no daemon starting when killed"
echo "t0961: killed with $cut starting"
# the daemon goes active on its own, with its new values, unmounted (a
# resume while it still arbitrates starts it as a restart cut before its
# mmstartup: another case)
i=0
until quorum_states dgx04 | grep -q " $cut  *active"; do
	i=$((i + 1)); [ $i -le 50 ] || fail "$cut not active: $(quorum_states dgx04)"
	sleep 0.2
done
mm mmlsmount all -L | grep -q " $cut " && fail "$cut mounted without bringup"

out=$(deploy --resume 2>&1) || fail "resume: $out"
# the cut node is restarted already: scale_restart has nothing for it, the
# mount comes from scale_remote_mount
ev=$STATE/$(readlink "$STATE/last")/events.jsonl
grep -q "mount ess3000_4M at /gpfs/ess3000_4M (mmmount -N) on: [^\"]*$cut" "$ev" ||
	fail "scale_remote_mount did not mount $cut: $(grep -i mount "$ev")"
echo "$out" | grep -Eq "^  scale_remote_mount +changed " || fail "scale_remote_mount not changed: $out"
for n in 1 2 3 4; do
	mm mmlsmount ess3000_4M -L | grep -q " dgx0$n " || fail "dgx0$n not mounted: $(mm mmlsmount ess3000_4M -L)"
done
out=$(deploy) || fail "last deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "last deploy changed something: $out"
exit 0

#!/bin/sh
# The quorum guard: a configuration change that needs daemon restarts
# (stage scale_restart) is refused on the quorum nodes while another quorum
# node is down and cannot start (restarting one would leave 1 of 3 quorum
# nodes active), with a message naming the node down and what to do; the
# quorum nodes are not stopped, the client is restarted. Once the node is
# back, the next deploy restarts the quorum nodes still owed, one at a time
# (each after the quorum invariant read mmgetstate -a and tiebreakerDisks),
# and the daemons run the new value.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scale-lib.sh"
sim_up -n 4 --state ready
STATE=$TEST_DIR/state
G=$BRINGUP_SIM_DIR/cluster/gpfs
PB=$TEST_DIR/scale.yaml
scale_playbook "$PB"
scale_inventory "$INV" "$TEST_DIR/inv.yaml"
deploy() { "$BRINGUP" deploy -i "$TEST_DIR/inv.yaml" -p "$PB" --state-dir "$STATE" "$@"; }
mm() { sim_ssh 127.0.1.1 "/usr/lpp/mmfs/bin/$*"; }

# Whatever the ready cluster lacks of bringup's configuration, once.
out=$(deploy) || fail "first deploy: $out"
out=$(deploy) || fail "second deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "second deploy changed something: $out"

# workerThreads takes effect at a restart only. dgx02 (quorum) is down and
# its daemon cannot start (fault gpfs-down): scale_start fails it after
# gpfs_startup_timeout (shortened here).
scale_inventory "$INV" "$TEST_DIR/inv.yaml" '{ workerThreads: 2048 }'
sed -i 's/gpfs_startup_timeout: 30/gpfs_startup_timeout: 4/' "$TEST_DIR/inv.yaml"
mm mmshutdown -N dgx02 >/dev/null || fail "mmshutdown dgx02"
"$BRINGUP" sim fault dgx02 gpfs-down >/dev/null || fail "sim fault gpfs-down"
out=$(deploy --check) || fail "check: $out"
echo "$out" | grep -q 'mmchconfig -N dgx \[dgx\]: workerThreads [^ ]* -> 2048; then restart (stage scale_restart, one at a time through the quorum guard): dgx01,dgx03,dgx04' ||
	fail "restart plan: $out"
out=$(deploy) && fail "a restart that loses quorum was not refused: $out"
echo "$out" | grep -q "scale_restart .*dgx01: apply: refusing to stop GPFS on dgx01: 2 of 3 quorum nodes are active and stopping dgx01 (quorum node) would leave 1 (dgx03), below the 2 bringup keeps (GPFS needs 2, a majority); not active: dgx02 (down); start GPFS on dgx02 first (mmstartup -N dgx02), then run again" ||
	fail "refusal message: $out"
run=$STATE/$(readlink "$STATE/last")
for n in dgx01 dgx03; do
	grep -q "mmshutdown" "$run/hosts/$n.log" && fail "$n was stopped although the guard refused"
	mm mmgetstate -N $n | grep -q " active" || fail "$n is not active after the refusal"
done
grep -q "mmshutdown' '-N' 'dgx04'" "$run/hosts/dgx04.log" || fail "the client dgx04 was not restarted: $out"
# what was owed is in the run's journal, not in a file on a node
grep -q '"scale.restart_owed.dgx01": "workerThreads configured 2048, running ' "$run/journal.json" ||
	fail "no owed restart in the journal: $(grep restart_owed "$run/journal.json")"
ls "$BRINGUP_SIM_DIR"/nodes/*/root/var/lib/bringup/scale-restart-pending 2>/dev/null &&
	fail "restarts kept in a file on a node"

"$BRINGUP" sim fault dgx02 clear gpfs-down >/dev/null || fail "sim fault clear"
mm mmstartup -N dgx02 >/dev/null || fail "mmstartup dgx02"
sleep 3
out=$(deploy) || fail "deploy after dgx02 came back: $out"
echo "$out" | grep -Eq '^  scale_restart +changed +dgx\[01,03\]$' || fail "scale_restart: $out"
run=$STATE/$(readlink "$STATE/last")
# each shutdown comes right after a quorum read (the invariant's last read is
# mmlsconfig tiebreakerDisks), on the node itself, and it is back after
for n in dgx01 dgx03; do
	grep -o "mmlsconfig' 'tiebreakerDisks'\|mmshutdown' '-N' '[a-z0-9]*'\|mmstartup' '-N' '[a-z0-9]*'" \
		"$run/hosts/$n.log" | tr -d "'" | tail -3 | tr '\n' ' ' >"$TEST_DIR/seq"
	[ "$(cat "$TEST_DIR/seq")" = "mmlsconfig tiebreakerDisks mmshutdown -N $n mmstartup -N $n " ] ||
		fail "$n's restart: $(cat "$TEST_DIR/seq")"
done
for n in 1 2 3 4; do
	sim_ssh 127.0.1.$n /usr/lpp/mmfs/bin/mmdiag --config | grep -q ' workerThreads 2048$' ||
		fail "dgx0$n does not run workerThreads 2048"
done
out=$(deploy) || fail "last deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "last deploy changed something: $out"
exit 0

#!/bin/sh
# The quorum guard: a configuration change that needs daemon restarts is
# refused while a quorum node is down (restarting another would leave 1 of
# 3 quorum nodes active), with a message naming the node down and what to
# do; nothing is stopped. Once the node is back, the next deploy restarts
# every node the change is owed to, one at a time (each after the quorum
# invariant read mmgetstate -a and tiebreakerDisks, never two down at once),
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

# workerThreads takes effect at a restart only.
scale_inventory "$INV" "$TEST_DIR/inv.yaml" '{ workerThreads: 2048 }'
mm mmshutdown -N dgx02 >/dev/null || fail "mmshutdown dgx02"
out=$(deploy --check) || fail "check: $out"
echo "$out" | grep -q 'mmchconfig -N dgx \[dgx\]: workerThreads [^ ]* -> 2048; then restart, one at a time through the quorum guard: dgx01,dgx03,dgx04' ||
	fail "restart plan: $out"
out=$(deploy) && fail "a restart that loses quorum was not refused: $out"
echo "$out" | grep -q "scale_tune .*dgx01: apply: refusing to stop GPFS on dgx01: 2 of 3 quorum nodes are active and stopping dgx01 (quorum node) would leave 1 (dgx03), below the 2 bringup keeps (GPFS needs 2, a majority); not active: dgx02 (down); start GPFS on dgx02 first (mmstartup -N dgx02), then run again" ||
	fail "refusal message: $out"
log=$STATE/$(readlink "$STATE/last")/hosts/dgx01.log
grep -q "mmshutdown" "$log" && fail "a daemon was stopped although the guard refused"
for n in dgx01 dgx03 dgx04; do
	mm mmgetstate -N $n | grep -q " active" || fail "$n is not active after the refusal"
done

mm mmstartup -N dgx02 >/dev/null || fail "mmstartup dgx02"
sleep 3
out=$(deploy) || fail "deploy after dgx02 came back: $out"
echo "$out" | grep -Eq '^  scale_tune +changed +dgx01$' || fail "scale_tune: $out"
log=$STATE/$(readlink "$STATE/last")/hosts/dgx01.log
# each shutdown comes right after a quorum read (the invariant's last read is
# mmlsconfig tiebreakerDisks), and its node is back before the next
grep -o "mmlsconfig' 'tiebreakerDisks'\|mmshutdown' '-N' '[a-z0-9]*'\|mmstartup' '-N' '[a-z0-9]*'" "$log" |
	tr -d "'" >"$TEST_DIR/seq"
want="mmlsconfig tiebreakerDisks
mmshutdown -N dgx01
mmstartup -N dgx01
mmlsconfig tiebreakerDisks
mmshutdown -N dgx03
mmstartup -N dgx03
mmlsconfig tiebreakerDisks
mmshutdown -N dgx04
mmstartup -N dgx04"
[ "$(cat "$TEST_DIR/seq")" = "$want" ] || fail "restart order: $(cat "$TEST_DIR/seq")"
for n in 1 2 3 4; do
	sim_ssh 127.0.1.$n /usr/lpp/mmfs/bin/mmdiag --config | grep -q ' workerThreads 2048$' ||
		fail "dgx0$n does not run workerThreads 2048"
done
out=$(deploy) || fail "last deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "last deploy changed something: $out"
exit 0

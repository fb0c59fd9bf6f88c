#!/bin/sh
# `upgrade --resume` after an upgrade cut before its first stage (issue 24,
# item 3; `make chaos` seed 55968 cycle 17: one ^C while the upgrade took
# its cluster lock, and --resume refused with "the last run ran playbook
# 'deploy', not 'upgrade'"). What --resume does is decided by the
# upgrade's record of its run (STATE/upgrade/run, written after the plan):
#  1. cut while it takes the lock, before any plan: no upgrade was begun,
#     said as such (exit 2), nothing changed on a node;
#  2. after a finished upgrade: nothing in progress, said with its run;
#  3. cut after the record and before the run's journal (SIGKILL, and the
#     journal the run had begun removed: the state such a cut leaves):
#     the planned batches start from the first and finish, each node's
#     installer ran once, and a plain deploy after it changes nothing.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
sim_up -n 3 --state ready
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
ofed() { sim_ssh 127.0.1.$1 ofed_info -s; }
deploy() { "$BRINGUP" deploy -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" "$@"; }
# (a background job of sh ignores SIGINT; an admin's ^C reaches a
# foreground one with the default action; exec: $! is the run itself)
upgrade_bg() { # RELEASE TARBALL
	sh -c 'exec env --default-signal=INT "$@"' - "$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" \
		--timeout "$(slow 120)" --to "ofed=MLNX_OFED_LINUX-$1" --ofed-tarball "$2" --batch 1 \
		>"$TEST_DIR/up.out" 2>&1 &
	upid=$!
}
resume() { "$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" --resume; }
lease() { echo "$NODES/$1/root/var/lib/bringup/run.lock"; }

out=$(deploy 2>&1) || fail "first deploy: $out"
old=$(ofed 1)

# 1. ^C while the upgrade takes its lock (dgx02 answers 60 s late)
rel1=5.0-2.1.8.0
tgz1=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/ofed1" "$rel1" rhel7.6 x86_64 3.10.0-957.el7.x86_64) ||
	fail "make-bundle $rel1"
"$BRINGUP" sim fault dgx02 slow 60 >/dev/null || fail "fault slow"
upgrade_bg "$rel1" "$tgz1"
i=0
until grep -qs "run=" "$(lease dgx01)"; do
	kill -0 $upid 2>/dev/null || fail "the upgrade ended before its lease: $(cat "$TEST_DIR/up.out")"
	i=$((i + 1)); [ $i -lt 600 ] || fail "the upgrade never took dgx01's lease"
	sleep 0.05
done
kill -INT $upid
wait $upid; rc=$?
"$BRINGUP" sim fault dgx02 clear >/dev/null || fail "clear slow"
[ $rc != 0 ] || fail "the cut upgrade exited 0: $(cat "$TEST_DIR/up.out")"
[ ! -e "$STATE/upgrade/run" ] || fail "an upgrade cut in its lock recorded a run"
out=$(resume 2>&1); rc=$?
[ $rc = 2 ] || fail "--resume after a cut before the plan: exit $rc (want 2): $out"
echo "$out" | grep -qF "no upgrade was begun in $STATE (one cut while it read the cluster and planned changed nothing)" ||
	fail "--resume does not say no upgrade was begun: $out"
for n in 1 2 3; do [ "$(ofed $n)" = "$old" ] || fail "dgx0$n changed: $(ofed $n)"; done

# 2. a finished upgrade: nothing in progress
out=$("$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" \
	--to "ofed=MLNX_OFED_LINUX-$rel1" --ofed-tarball "$tgz1" --batch 1 2>&1) || fail "upgrade to $rel1: $out"
run1=$(sed -n 1p "$STATE/upgrade/run")
out=$(resume 2>&1); rc=$?
[ $rc = 2 ] || fail "--resume after a finished upgrade: exit $rc (want 2): $out"
echo "$out" | grep -qF "no upgrade is in progress in $STATE: the last one (run $run1) finished" ||
	fail "--resume does not say the last upgrade finished: $out"

# 3. SIGKILL once the run is recorded; its journal removed and STATE/last
# pointed back, as a cut before the journal leaves them
rel2=5.1-2.3.7.1
tgz2=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/ofed2" "$rel2" rhel7.6 x86_64 3.10.0-957.el7.x86_64) ||
	fail "make-bundle $rel2"
last0=$(readlink "$STATE/last")
for n in 1 2 3; do wc -l <"$NODES/dgx0$n/log/installers.log" >"$TEST_DIR/inst.$n"; done
upgrade_bg "$rel2" "$tgz2"
i=0
# (the finished upgrade's record is there until the new plan replaces it)
until [ -s "$STATE/upgrade/run" ] && [ "$(sed -n 1p "$STATE/upgrade/run" 2>/dev/null)" != "$run1" ]; do
	kill -0 $upid 2>/dev/null || fail "the upgrade ended before its record: $(cat "$TEST_DIR/up.out")"
	i=$((i + 1)); [ $i -lt 3000 ] || fail "the upgrade never recorded its run"
	sleep 0.01
done
kill -KILL $upid
wait $upid 2>/dev/null
run2=$(sed -n 1p "$STATE/upgrade/run")
[ -n "$run2" ] && [ "$run2" != "$run1" ] || fail "the new upgrade's record names run '$run2'"
rm -rf "${STATE:?}/runs/$run2"
ln -sfn "$last0" "$STATE/last"
out=$(resume 2>&1) || fail "--resume of an upgrade cut before its journal: exit $?: $out"
echo "$out" | grep -qF "was cut before its first stage: its batches start from the first (run $run2)" ||
	fail "--resume does not say it starts the plan: $out"
for n in 1 2 3; do
	echo "$out" | grep -Eq "^  dgx0$n +upgraded$" || fail "dgx0$n's state after resume: $out"
	ofed $n | grep -qx "MLNX_OFED_LINUX-$rel2:" || fail "dgx0$n not upgraded: $(ofed $n)"
	k=$(tail -n +$(($(cat "$TEST_DIR/inst.$n") + 1)) "$NODES/dgx0$n/log/installers.log" | wc -l)
	[ "$k" -le 1 ] || fail "dgx0$n: $k installer starts: $(cat "$NODES/dgx0$n/log/installers.log")"
done
[ "$(basename "$(readlink "$STATE/last")")" = "$run2" ] || fail "the resumed run is not the last"
[ ! -e "$STATE/upgrade/in-progress" ] || fail "the finished upgrade is still marked in progress"
out=$(deploy 2>&1) || fail "deploy after the resume: $out"
echo "$out" | grep -Eq "^total: ok=[0-9]+ changed=0 failed=0 " || fail "deploy after the resume changed: $out"
exit 0

#!/bin/sh
# R in the deploy TUI retries one failed host at once, as --resume would:
# dgx04 fails scale_install (mmbuildgpl cannot build its portability layer)
# and so misses the GPFS join the manager makes for the others (scale_cluster
# creates the cluster without it; scale_rdma skips it). Once the fault is
# cleared, R on dgx04 runs scale_install there again, the cluster-wide stages
# it missed on their own host, the manager dgx01 (mmaddnode, its node class,
# mmstartup, mmmount), then scale_rdma on it: it converges, GPFS membership
# included (mmlscluster lists it, mmgetstate says active), no command reaches
# dgx02 or dgx03 (the sim's log of every command they ran is unchanged), and
# the event log says who retried.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scale-lib.sh"
. "$(dirname "$0")/tui-lib.sh"
sim_up -n 4 --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
scale_inventory "$INV" "$TEST_DIR/inv.yaml"
{
	echo "name: scale"
	echo "stages:"
	echo "  - name: scale_install"
	echo "    module: scale_install"
	echo "    hosts: scale_manager,scale_quorum,scale_client"
	scale_playbook /dev/stdout | sed 1,2d
} >"$TEST_DIR/pb.yaml"
mm() { sim_ssh 127.0.1.1 "/usr/lpp/mmfs/bin/$*"; }
# the headers mmbuildgpl needs (another stage's work in the full playbook)
for i in 1 2 3 4; do
	sim_ssh 127.0.1.$i yum install -y kernel-devel-3.10.0-957.el7.x86_64 >/dev/null ||
		fail "kernel-devel on dgx0$i"
done
"$BRINGUP" sim fault dgx04 mmbuildgpl-fail >/dev/null || fail "fault mmbuildgpl-fail"

tui_start 120 40 "\$BRINGUP tui -i '$TEST_DIR/inv.yaml' -p '$TEST_DIR/pb.yaml' --state-dir '$STATE'"
wait_screen '\[DONE\]' "$(slow 600)"
# scale_install failed; the cluster-wide stages ran without it; scale_rdma skipped it
# and the per-node stages after it (the restart plan, the restarts) skipped it
# (dgx03 and dgx04 are not hosts of the manager's stages: blank there)
expect_row dgx04 '^dgx04 +✗( +»)+ *$'
expect_row dgx03 '^dgx03 +●( +[●✓])+ *$'
mm mmlscluster | grep -q ' dgx04 ' && fail "dgx04 joined although it failed scale_install"

"$BRINGUP" sim fault dgx04 clear >/dev/null || fail "sim fault clear"
for n in dgx02 dgx03; do
	cp "$NODES/$n/log/commands.log" "$TEST_DIR/$n.before" || fail "no command log of $n"
done
cp "$NODES/dgx01/log/commands.log" "$TEST_DIR/dgx01.before"
# choose dgx04 (the filter leaves its row alone) and retry it
keys / dgx04 Enter
wait_screen 'row 1/1'
keys R
# the run says who retried (the host's detail keeps it)
wait_screen 'retry by [^ ]+ \(tui, pid [0-9]+\): runs again from stage scale_install'
wait_screen '^dgx04 +[●✓]( +[●✓])+ *$' "$(slow 300)"
wait_screen '\[DONE\]' 60
screen | grep -q '✗failed 0' || { screen; fail "failures left after the retry"; }
keys q
expect_restored 0

mm mmlscluster | grep -q ' dgx04 ' || fail "dgx04 is not in the GPFS cluster: $(mm mmlscluster)"
mm mmgetstate -N dgx04 | grep -Eq 'dgx04 +active' || fail "dgx04 not active: $(mm mmgetstate -a)"
mm mmlsmount ess3000_4M -L | grep -q ' dgx04 ' || fail "ess3000_4M not mounted on dgx04"
run=$STATE/$(readlink "$STATE/last")
# what dgx02 and dgx03 ran since: only the run's cluster lock (its lease,
# refreshed on every node each 60 s and given back at the end, names the run)
id=$(basename "$run")
for n in dgx02 dgx03; do
	new=$(diff "$TEST_DIR/$n.before" "$NODES/$n/log/commands.log" | sed -n 's/^> //p' | grep -vF -- "$id")
	[ -z "$new" ] || fail "the retry ran commands on $n: $new"
done
# the manager ran the join for it
new=$(diff "$TEST_DIR/dgx01.before" "$NODES/dgx01/log/commands.log" | sed -n 's/^> //p')
echo "$new" | grep -q "mmaddnode.*dgx04" || fail "no mmaddnode on the manager: $new"
grep -q '"ev":"control",.*"host":"dgx04",.*"msg":"retry by [^"]* (tui, pid [0-9]*): runs again from stage scale_install' \
	"$run/events.jsonl" || fail "the event log does not say who retried: $(grep control "$run/events.jsonl")"
grep -q '"state": "completed"' "$run/journal.json" || fail "journal not completed"
exit 0

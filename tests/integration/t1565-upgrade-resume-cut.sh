#!/bin/sh
# An upgrade cut in a middle batch's scale-start finishes on --resume
# (issue 24, item 3). 4 nodes, `upgrade --to ofed=NEW --batch 2`: batches
# dgx[01,04], dgx02, dgx03. The run is cut (SIGKILL, then in a second
# upgrade one ^C) the moment batch 2's mmstartup has started dgx02's daemon
# (the cluster's daemon file says "starting"), before bringup mounts the
# file system there. The daemon goes active on its own, unmounted; the
# resume must see the half-done start (active is not enough: the start
# mounts), mount /gpfs on dgx02, run batch 3, and a plain deploy after it
# changes nothing. The quorum sampler (scale-lib.sh) runs all through:
# never fewer than 2 of the 3 quorum nodes active. Before the fix the
# resume took "active" for started: dgx02 stayed unmounted, b2-verify-rdma
# failed and batch 3 never ran; and after the ^C the run called dgx03,
# which it had kept from starting, "failed at b3-scale-stop". The remote
# file system is defined with gpfs_automount: no: with yes the daemon
# mounts it when it starts (sim/README.md, issue 28), and no cut leaves
# dgx02 active and unmounted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scale-lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
sim_up -n 4 --state ready
sed 's/^  vars:$/  vars:\n    gpfs_automount: "no"/' "$INV" >"$TEST_DIR/inv.yaml"
grep -q '^    gpfs_automount: "no"$' "$TEST_DIR/inv.yaml" || fail "no gpfs_automount in the inventory"
INV=$TEST_DIR/inv.yaml
STATE=$TEST_DIR/state
G=$BRINGUP_SIM_DIR/cluster/gpfs
QUORUM="dgx01 dgx02 dgx03"
mm() { sim_ssh 127.0.1.$1 "/usr/lpp/mmfs/bin/$2"; }
ofed() { sim_ssh 127.0.1.$1 ofed_info -s; }
deploy() { "$BRINGUP" deploy -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" "$@"; }
states() { quorum_states dgx04; }

# converged on the old release first (the ready sim lacks the OS stages' work)
out=$(deploy 2>&1) || fail "first deploy: $out"

# Every sample kept 2 of the 3 quorum nodes active, and some saw one down
# (else the sampler proved nothing).
check_samples() {
	awk -v what="$1" '
		{ n++ } $1 < 2 { print "quorum lost in sample " n " (" what "): " $0; bad = 1 }
		$1 < 3 { down++ }
		END {
			if (n < 10) { print "only " n " samples (" what ")"; bad = 1 }
			if (!down) { print "no sample saw a quorum node down (" what ")"; bad = 1 }
			exit bad
		}' "$TEST_DIR/samples" || fail "samples ($1): $(cat "$TEST_DIR/samples")"
}

# cut SIGNAL RELEASE: upgrades to OFED RELEASE, sends SIGNAL once batch 2's
# mmstartup has started dgx02's daemon, then resumes; checks what must hold.
cut() {
	sig=$1 rel=$2
	tgz=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/ofed-$rel" "$rel" rhel7.6 x86_64 3.10.0-957.el7.x86_64) ||
		fail "make-bundle $rel"
	log=$BRINGUP_SIM_DIR/nodes/dgx02/log/commands.log
	seen=$(wc -l <"$log")
	quorum_sampler_start dgx04
	"$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" \
		--to "ofed=MLNX_OFED_LINUX-$rel" --ofed-tarball "$tgz" --batch 2 >"$TEST_DIR/cut.out" 2>&1 &
	pid=$!
	# dgx02 down (batch 2's stop), then "starting": mmstartup ran and
	# the daemon arbitrates (1-2 s) while bringup waits for it to be active
	i=0 seen_down=
	until [ -n "$seen_down" ] && grep -q '^starting' "$G/daemon/dgx02" 2>/dev/null; do
		grep -qx down "$G/daemon/dgx02" 2>/dev/null && seen_down=1
		i=$((i + 1))
		[ $i -le 6000 ] && kill -0 $pid 2>/dev/null ||
			{ kill -KILL $pid 2>/dev/null; quorum_sampler_stop; fail "$sig: dgx02 never started: $(cat "$TEST_DIR/cut.out")"; }
		sleep 0.02
	done
	kill -"$sig" $pid
	# (to /dev/null: dash says "Killed" of a SIGKILLed job)
	wait $pid 2>/dev/null; rc=$?
	[ $rc -ne 0 ] || { quorum_sampler_stop; fail "$sig: the cut upgrade exited 0: $(cat "$TEST_DIR/cut.out")"; }
	# (the command's words are quoted in the log)
	tail -n +$((seen + 1)) "$log" | grep -Eq "mmmount[^a-z]+all[^a-z]+-N[^a-z]+dgx02" &&
		{ quorum_sampler_stop; fail "$sig: cut too late, dgx02 was mounted already: $(cat "$TEST_DIR/cut.out")"; }
	ofed 3 | grep -qx "MLNX_OFED_LINUX-$rel:" && { quorum_sampler_stop; fail "$sig: batch 3 ran before the cut"; }
	# one ^C: the run says where each node stands (dgx03 was kept from
	# starting, not failed)
	if [ "$sig" = INT ]; then
		grep -Eq "^  dgx02 +interrupted at b2-scale-start \(--resume goes on from there\)$" "$TEST_DIR/cut.out" &&
			grep -Eq "^  dgx03 +untouched \(its batch did not start\)$" "$TEST_DIR/cut.out" ||
			{ quorum_sampler_stop; fail "$sig: node states: $(cat "$TEST_DIR/cut.out")"; }
	fi
	# the daemon goes active without its mount
	i=0
	until states | grep -q " dgx02  *active"; do
		i=$((i + 1)); [ $i -le 50 ] || { quorum_sampler_stop; fail "$sig: dgx02 not active: $(states)"; }
		sleep 0.2
	done
	mm 1 "mmlsmount all -L" | grep -q ' dgx02 ' && { quorum_sampler_stop; fail "$sig: dgx02 mounted without bringup"; }

	out=$("$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" --resume 2>&1); rc=$?
	quorum_sampler_stop
	[ -z "${T1565_LOG:-}" ] || { cat "$TEST_DIR/cut.out"; echo "$out"; cat "$TEST_DIR/samples"; } >>"$T1565_LOG"
	[ $rc -eq 0 ] || fail "$sig: resume: exit $rc: $out"
	check_samples "$sig"
	echo "$out" | grep -Eq "^  b1-ofed +skipped +dgx\[01,04\]: completed in an earlier attempt" ||
		fail "$sig: resume redid batch 1: $out"
	echo "$out" | grep -Eq "^  b2-scale-start +changed +dgx02$" || fail "$sig: b2-scale-start not restarted: $out"
	echo "$out" | grep -Eq "^  b3-ofed +changed +dgx03$" || fail "$sig: batch 3 did not run: $out"
	for n in 1 2 3 4; do
		echo "$out" | grep -Eq "^  dgx0$n +upgraded$" || fail "$sig: dgx0$n's state after resume: $out"
		ofed $n | grep -qx "MLNX_OFED_LINUX-$rel:" || fail "$sig: dgx0$n not upgraded: $(ofed $n)"
	done
	[ "$(states | grep -c ' active')" -eq 4 ] || fail "$sig: not all active: $(states)"
	mm 1 "mmlsmount all -L" | grep -c ' dgx0[1-4] ' | grep -qx 4 ||
		fail "$sig: not mounted everywhere: $(mm 1 'mmlsmount all -L')"
	[ ! -e "$STATE/upgrade/in-progress" ] || fail "$sig: the finished upgrade is still marked in progress"
	out=$(deploy 2>&1) || fail "$sig: deploy after the resume: $out"
	echo "$out" | grep -Eq "^total: ok=[0-9]+ changed=0 failed=0 " || fail "$sig: deploy after the resume changed: $out"
}

cut KILL 5.0-2.1.8.0
cut INT 5.1-2.3.7.1
exit 0

#!/bin/sh
# The rolling upgrade on a small cluster (4 nodes, 3 quorum; the 16-node
# plan is t1500's): `upgrade --to ofed=NEW --batch 2` moves the nodes a
# batch at a time (dgx[01,04], dgx02, dgx03: never two quorum nodes down),
# the cluster manager role leaves dgx01 before its daemon stops (and the
# manager of a file system the cluster owns, mmchmgr DEVICE NODE), and the
# file system stays mounted on every node outside the batch being upgraded
# (mmlsmount sampled by the test all through the run). A node whose kernel
# headers are missing fails in batch 2 (mmbuildgpl): the run stops there,
# dgx03 is untouched, precheck calls the mixed OFED versions an upgrade in
# progress (not drift), and `--resume` once the headers are back finishes.
. "$(dirname "$0")/lib.sh"
command -v slow >/dev/null || slow() { echo $(($1 * ${BRINGUP_TEST_SLOW:-1})); }
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
sim_up -n 4 --state ready
STATE=$TEST_DIR/state
NEW=MLNX_OFED_LINUX-5.0-2.1.8.0
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/ofed" 5.0-2.1.8.0 rhel7.6 x86_64 3.10.0-957.el7.x86_64) ||
	fail "make-bundle"
up() { "$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" "$@"; }
mm() { sim_ssh 127.0.1.$1 "/usr/lpp/mmfs/bin/$2"; }
ofed() { sim_ssh 127.0.1.$1 ofed_info -s; }

# Samples which nodes have the file system mounted, until told to stop.
sample() {
	: >"$TEST_DIR/samples"
	while [ ! -e "$TEST_DIR/stop" ]; do
		# (a sample that could not be taken, dgx01 rebooting, is left out)
		if l=$(mm 1 "mmlsmount all -L" 2>/dev/null); then
			echo "$l" | awk '$2 ~ /^dgx/ { printf "%s ", $2 } END { print "" }' >>"$TEST_DIR/samples"
		fi
		sleep 0.3
	done
}
# Every sample: the nodes not mounted are within one batch.
check_samples() {
	n=0
	while read -r line; do
		n=$((n + 1))
		missing=
		for h in dgx01 dgx02 dgx03 dgx04; do
			case " $line " in *" $h "*) ;; *) missing="$missing $h";; esac
		done
		case "$missing" in
		'' | ' dgx01' | ' dgx04' | ' dgx01 dgx04' | ' dgx02' | ' dgx03') ;;
		*) fail "sample $n: not mounted on$missing at once (outside one batch): $line";;
		esac
	done <"$TEST_DIR/samples"
	[ "$n" -ge 3 ] || fail "only $n mmlsmount samples were taken"
}

# a file system of the cluster's own, managed by dgx01 (the sim's own file
# system is remote: its manager lives in the storage cluster)
"$BRINGUP_SIM_DIR/bin/sim-gpfs-fsmgr" "$BRINGUP_SIM_DIR/nodes/dgx01" "$BRINGUP_SIM_DIR/cluster" scratch dgx01 ||
	fail "sim-gpfs-fsmgr"
"$BRINGUP" sim fault dgx02 no-kernel-headers >/dev/null || fail "fault no-kernel-headers"
sample & SAMPLER=$!
out=$(up --to ofed=$NEW --ofed-tarball "$TGZ" --batch 2 2>&1); rc=$?
[ -z "${T1510_LOG:-}" ] || echo "$out" >"$T1510_LOG"
[ $rc -eq 1 ] || fail "a failed node should fail the run (exit 1), got $rc: $out"
touch "$TEST_DIR/stop"; wait $SAMPLER; rm -f "$TEST_DIR/stop"
echo "$out" | grep -q '^batch 1: dgx\[01,04\] (2 nodes)' || fail "batch 1: $out"
echo "$out" | grep -q '^batch 2: dgx02 (1 nodes)' || fail "batch 2: $out"
echo "$out" | grep -q '^batch 3: dgx03 (1 nodes)' || fail "batch 3: $out"
echo "$out" | grep -q "b1-scale-stop dgx01 output moving the cluster manager role from dgx01 to dgx02" ||
	fail "cluster manager not moved: $out"
echo "$out" | grep -q "b2-scale-start dgx02 failed .*mmbuildgpl on dgx02 exited 1: Cannot find a valid kernel header file" ||
	fail "dgx02's failure: $out"
echo "$out" | grep -Eq "^  b3-scale-stop +skipped +dgx03: stage b2-verify-rdma: 1 of 1 hosts of a batch failed" ||
	fail "batch 3 not stopped: $out"
echo "$out" | grep -Eq "^  dgx01 +upgraded$" && echo "$out" | grep -Eq "^  dgx04 +upgraded$" &&
	echo "$out" | grep -Eq "^  dgx02 +failed at b2-scale-start " &&
	echo "$out" | grep -Eq "^  dgx03 +untouched \(its batch did not start\)$" ||
	fail "node states: $out"
check_samples
# after the new OFED: peer memory loaded again, verbs RDMA proved on the ports
echo "$out" | grep -Eq "^  b1-peermem +(ok|changed) +dgx\[01,04\]" || fail "b1-peermem: $out"
echo "$out" | grep -q "b1-verify-rdma dgx01 output verbs RDMA on mlx5_0/1 mlx5_1/1 mlx5_2/1 mlx5_3/1" ||
	fail "b1-verify-rdma: $out"
for n in 1 4; do
	ofed $n | grep -qx "$NEW:" || fail "dgx0$n not upgraded: $(ofed $n)"
	mm $n "mmgetstate" | grep -q " active" || fail "dgx0$n not active after its batch"
done
ofed 2 | grep -qx "$NEW:" || fail "dgx02's OFED: $(ofed 2)"
mm 1 "mmgetstate -N dgx02" | grep -q " down" || fail "dgx02 should be left down"
# the rest untouched
ofed 3 | grep -qx "MLNX_OFED_LINUX-4.7-3.2.9.0:" || fail "dgx03 was touched: $(ofed 3)"
mm 3 "mmgetstate" | grep -q " active" || fail "dgx03 not active"
# the role went on from dgx02 when its turn came
echo "$out" | grep -q "b2-scale-stop dgx02 output moving the cluster manager role from dgx02 to dgx01" ||
	fail "cluster manager not moved from dgx02: $out"
mm 1 "mmlsmgr -c" | grep -qx "Cluster manager node: 127.0.1.1 (dgx01)" || fail "cluster manager: $(mm 1 'mmlsmgr -c')"
# the file system manager moved the same way, to a manager node outside the
# batch, before each daemon stopped: GPFS never had to take it over
echo "$out" | grep -q "b1-scale-stop dgx01 output moving the file system manager of scratch from dgx01 to dgx02" &&
	echo "$out" | grep -q "b2-scale-stop dgx02 output moving the file system manager of scratch from dgx02 to dgx01" ||
	fail "file system manager not moved: $out"
mm 3 "mmlsmgr scratch" | grep -q "^scratch  *127.0.1.1 (dgx01)$" || fail "scratch's manager: $(mm 3 mmlsmgr)"
grep -q takeover "$BRINGUP_SIM_DIR/cluster/gpfs/fsmgr.log" && fail "a takeover: $(cat "$BRINGUP_SIM_DIR/cluster/gpfs/fsmgr.log")"

# The mixed-version window: precheck says upgrade in progress, not drift.
out=$("$BRINGUP" precheck -i "$INV" --state-dir "$STATE" --checks ofed.version 2>&1) ||
	fail "precheck during the upgrade failed: $out"
echo "$out" | grep -q "upgrade in progress (bringup upgrade has not finished): this node runs the new release" &&
	echo "$out" | grep -q "upgrade in progress (bringup upgrade has not finished): this node is not upgraded yet" ||
	fail "precheck during the upgrade: $out"

"$BRINGUP" sim fault dgx02 clear no-kernel-headers >/dev/null || fail "clear no-kernel-headers"
sample & SAMPLER=$!
out=$(up --resume 2>&1); rc=$?
[ -z "${T1510_LOG:-}" ] || echo "$out" >>"$T1510_LOG"
[ $rc -eq 0 ] || fail "resume: exit $rc: $out"
touch "$TEST_DIR/stop"; wait $SAMPLER
echo "$out" | grep -Eq "^  b1-ofed +skipped +dgx\[01,04\]: completed in an earlier attempt" ||
	fail "resume redid batch 1: $out"
for n in 1 2 3 4; do
	echo "$out" | grep -Eq "^  dgx0$n +upgraded$" || fail "dgx0$n's state after resume: $out"
done
check_samples
for n in 1 2 3 4; do
	ofed $n | grep -qx "$NEW:" || fail "dgx0$n not upgraded after resume: $(ofed $n)"
	mm $n "mmgetstate" | grep -q " active" || fail "dgx0$n not active after resume"
done
mm 1 "mmlsmount all -L" | grep -c ' dgx0[1-4] ' | grep -qx 4 || fail "not mounted everywhere: $(mm 1 'mmlsmount all -L')"
[ ! -e "$STATE/upgrade/in-progress" ] || fail "a finished upgrade is still marked in progress"
# done: the inventory's ofed_version, moved on by the admin, holds everywhere
sed "s/^    ofed_version: .*/    ofed_version: \"$NEW\"/" "$INV" >"$TEST_DIR/inv-new.yaml"
out=$("$BRINGUP" precheck -i "$TEST_DIR/inv-new.yaml" --state-dir "$STATE" --checks ofed.version 2>&1) ||
	fail "precheck after the upgrade: $out"
echo "$out" | grep -q "upgrade in progress" && fail "precheck after the upgrade: $out"
exit 0

#!/bin/sh
# Spectrum Scale faults fail on the right node and stage, with a message an
# admin can act on, and leave the other nodes done: mmbuildgpl failing
# (scale_install on that node), a daemon that cannot start (scale_start on
# that node), a verbsPorts naming a port that does not exist (precheck
# scale.rdma on that node; deploy takes the node's stanza back and restarts
# it), and a storage cluster that refuses our key (scale_remote_mount).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scale-lib.sh"
sim_up -n 6 --state ready
STATE=$TEST_DIR/state
K=3.10.0-957.el7.x86_64
scale_inventory "$INV" "$TEST_DIR/inv.yaml"
deploy() { "$BRINGUP" deploy -i "$TEST_DIR/inv.yaml" --state-dir "$STATE" --tags scale "$@"; }
mm() { sim_ssh 127.0.1.1 "/usr/lpp/mmfs/bin/$*"; }
fault() { "$BRINGUP" sim fault "$@" >/dev/null || fail "sim fault $*"; }

out=$(deploy) || fail "deploy on the ready cluster: $out"

# dgx05 lost its portability layer and cannot build it again
rm -f "$BRINGUP_SIM_DIR/nodes/dgx05/root/usr/lib/modules/$K/extra/mmfs26.ko" \
	"$BRINGUP_SIM_DIR/nodes/dgx05/root/var/lib/bringup/scale-gpl.kernel"
fault dgx05 mmbuildgpl-fail
fault dgx04 gpfs-down
fault dgx06 verbs-bad-port
out=$("$BRINGUP" precheck -i "$TEST_DIR/inv.yaml" --checks 'scale.*') && fail "precheck passed with faults: $out"
echo "$out" | grep -q '^FAIL scale.state  *dgx04$' || fail "scale.state dgx04: $out"
echo "$out" | grep -q '^FAIL scale.rdma  *dgx06$' || fail "scale.rdma dgx06: $out"
echo "$out" | grep -q "verbsRdma is enabled but the GPFS daemon reports verbs RDMA not started: data goes over TCP. verbsPorts is 'mlx5_4/1'" ||
	fail "scale.rdma message: $out"

out=$(deploy) && fail "deploy passed with faults: $out"
echo "$out" | grep -q '^  scale_install    failed   dgx05: apply: mmbuildgpl failed (exit 1): the GPFS portability layer was not built, so GPFS cannot start here; its output ends: .*Building GPL module failed' ||
	fail "mmbuildgpl: $out"
echo "$out" | grep -Eq '^  scale_install +ok +dgx\[01-04,06\]$' || fail "scale_install on the others: $out"
echo "$out" | grep -q '^  scale_start      failed   dgx04: GPFS did not become active within 30 s after mmstartup (state down)' ||
	fail "gpfs-down: $out"
echo "$out" | grep -Eq '^  scale_rdma +ok +dgx\[01-03,06\]$' || fail "scale_rdma on the others: $out"
echo "$out" | grep -q '^  scale_rdma       skipped  dgx04: failed at stage scale_start$' || fail "dgx04 later: $out"
mm mmlsconfig | grep -q '^\[dgx06\]' && fail "dgx06's bad verbsPorts stanza is still there"
for n in 1 2 3 6; do
	mm mmlsmount ess3000_4M -L | grep -q " dgx0$n " || fail "dgx0$n not mounted"
done

fault dgx01 remote-key-refused
mm mmumount ess3000_4M -N dgx02 >/dev/null || fail "mmumount"
out=$(deploy) && fail "deploy passed with the key refused: $out"
echo "$out" | grep -q "^  scale_remote_mount failed   dgx01: apply: mmmount ess3000_4M failed on every node (dgx02): mmmount: Cluster ess3000.bda.scale.ibm.com has not authorized this cluster" ||
	fail "key refused: $out"
exit 0

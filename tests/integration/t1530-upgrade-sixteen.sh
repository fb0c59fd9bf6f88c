#!/bin/sh
# The rolling upgrade's acceptance run: 16 nodes, 3 quorum nodes,
# `upgrade --to ofed=NEW,scale=NEW --batch 4` moves every node to the new
# OFED and the new Spectrum Scale release (rpm -U of the extracted installer,
# then mmbuildgpl) in batches that never hold two quorum nodes, while the
# file system stays mounted on every node outside the batch being upgraded
# (mmlsmount sampled all through the run). Then every node is active and
# mounted, and a second --check plans the same batches from the new state.
. "$(dirname "$0")/lib.sh"
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
sim_up -n 16 --state ready
STATE=$TEST_DIR/state
NEW=MLNX_OFED_LINUX-5.0-2.1.8.0
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/ofed" 5.0-2.1.8.0 rhel7.6 x86_64 3.10.0-957.el7.x86_64) ||
	fail "make-bundle"
SCALE=$("$BRINGUP_SIM_DIR/bin/sim-scale-bundle" "$TEST_DIR/scale" 5.1.2.1 dm x86_64) ||
	fail "sim-scale-bundle"
up() {
	"$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" \
		--ofed-tarball "$TGZ" --scale-installer "$SCALE" "$@"
}
mm() { sim_ssh 127.0.1.1 "/usr/lpp/mmfs/bin/$*"; }
hosts=$(seq -f 'dgx%02g' 1 16)

# An installer of another release is refused before anything changes.
expect_status 2 up --to scale=5.1.3.0 --batch 4 >"$TEST_DIR/out" 2>&1
grep -q "scale=5.1.3.0: the installer $SCALE holds gpfs.base-5.1.2-1.x86_64.rpm" "$TEST_DIR/out" ||
	fail "wrong release: $(cat "$TEST_DIR/out")"

out=$(up --to ofed=$NEW,scale=5.1.2.1 --batch 4 --check) || fail "check: $out"
echo "$out" | grep -q "^upgrade plan: 16 nodes in 4 batches, to ofed=$NEW,scale=5.1.2.1$" || fail "plan: $out"
echo "$out" | sed -n 's/^batch \([0-9]*\): \([^ ]*\) .*/\2/p' >"$TEST_DIR/batches"
[ "$(wc -l <"$TEST_DIR/batches")" -eq 4 ] || fail "batches: $out"

# Samples which nodes have the file system mounted, until told to stop.
sample() {
	: >"$TEST_DIR/samples"
	while [ ! -e "$TEST_DIR/stop" ]; do
		if l=$(mm "mmlsmount all -L" 2>/dev/null); then
			echo "$l" | awk '$2 ~ /^dgx/ { printf "%s ", $2 } END { print "" }' >>"$TEST_DIR/samples"
		fi
		sleep 0.5
	done
}
sample & SAMPLER=$!
out=$(up --to ofed=$NEW,scale=5.1.2.1 --batch 4 2>&1); rc=$?
touch "$TEST_DIR/stop"; wait $SAMPLER
[ $rc -eq 0 ] || fail "upgrade: exit $rc: $out"

# Every sample: the nodes not mounted lie within one planned batch.
python3 - "$TEST_DIR/samples" "$TEST_DIR/batches" <<'PY' || fail "mounts during the run"
import re, sys
def expand(s):
    m = re.fullmatch(r"([a-z]+)\[?([0-9,\-]*)\]?", s)
    out = set()
    for part in m.group(2).split(","):
        a, _, b = part.partition("-")
        for i in range(int(a), int(b or a) + 1):
            out.add("%s%0*d" % (m.group(1), len(a), i))
    return out
batches = [expand(l.strip()) for l in open(sys.argv[2]) if l.strip()]
nodes = set().union(*batches)
samples = [set(l.split()) for l in open(sys.argv[1])]
assert len(samples) >= 5, "only %d samples" % len(samples)
partial = 0
for i, s in enumerate(samples):
    missing = nodes - s
    partial += bool(missing)
    assert any(missing <= b for b in batches), "sample %d: not mounted at once: %s" % (i, sorted(missing))
assert partial, "no sample saw a batch down: the sampler proves nothing"
PY
for h in $hosts; do
	echo "$out" | grep -Eq "^  $h +upgraded$" || fail "$h not upgraded: $out"
done
n=0
for h in $hosts; do
	n=$((n + 1))
	a=127.0.1.$n
	sim_ssh $a ofed_info -s | grep -qx "$NEW:" || fail "$h's OFED: $(sim_ssh $a ofed_info -s)"
	sim_ssh $a rpm -q gpfs.base | grep -q "^gpfs.base-5.1.2-1" || fail "$h's GPFS: $(sim_ssh $a rpm -q gpfs.base)"
done
[ "$(mm mmgetstate -a | grep -c ' active')" -eq 16 ] || fail "not all active: $(mm mmgetstate -a)"
[ "$(mm mmlsmount all -L | grep -c ' dgx')" -eq 16 ] || fail "not mounted everywhere: $(mm mmlsmount all -L)"
[ ! -e "$STATE/upgrade/in-progress" ] || fail "a finished upgrade is still marked in progress"
# the function level is offered as the next step, never raised by bringup
echo "$out" | grep -q "^next: every node runs Spectrum Scale 5.1.2.1; .*mmchconfig release=LATEST" ||
	fail "release=LATEST not offered: $out"
grep -rq "release=LATEST" "$STATE"/runs/*/hosts/ && fail "bringup ran mmchconfig release=LATEST"
exit 0

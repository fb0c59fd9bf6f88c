#!/bin/sh
# The rolling upgrade's plan on a 16-node cluster with 3 quorum nodes:
# `upgrade --check --batch 4` prints 4 batches of 4 that never hold two
# quorum nodes (nor both Scale managers), each limit with its reason, and
# changes nothing. With two of the three quorum nodes down the upgrade is
# refused before anything changes (exit 1), naming the nodes down; with one
# down (upgrading any active quorum node would lose quorum) too. Bad --to
# and --batch values are usage errors (exit 2).
. "$(dirname "$0")/lib.sh"
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
sim_up -n 16 --state ready
STATE=$TEST_DIR/state
NEW=MLNX_OFED_LINUX-5.0-2.1.8.0
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/ofed" 5.0-2.1.8.0 rhel7.6 x86_64 3.10.0-957.el7.x86_64) ||
	fail "make-bundle"
up() { "$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" --ofed-tarball "$TGZ" "$@"; }
mm() { sim_ssh 127.0.1.1 "/usr/lpp/mmfs/bin/$*"; }

out=$(up --to ofed=$NEW --batch 4 --check) || fail "check: $out"
echo "$out" | grep -q '^upgrade plan: 16 nodes in 4 batches' || fail "plan: $out"
echo "$out" | grep -q '^  quorum   at most 1: 3 of 3 quorum nodes active (dgx\[01-03\]), GPFS needs 2, bringup keeps 2; down already: none' ||
	fail "quorum limit: $out"
echo "$out" | grep -q '^  admin    at most 4: --batch 4' || fail "admin limit: $out"
echo "$out" | grep -q '^  sm       at most 1: ' || fail "sm limit: $out"
# every node once; never two quorum (dgx01-03) or manager (dgx01-02) nodes in a batch
echo "$out" | sed -n 's/^batch [0-9]*: \([^ ]*\) .*/\1/p' >"$TEST_DIR/sets"
[ "$(wc -l <"$TEST_DIR/sets")" -eq 4 ] || fail "batches: $out"
all=
while read -r set; do
	nodes=$(python3 -c '
import re, sys
s = sys.argv[1]
m = re.fullmatch(r"([a-z]+)\[?([0-9,\-]*)\]?", s)
out = []
for part in m.group(2).split(","):
    a, _, b = part.partition("-")
    for i in range(int(a), int(b or a) + 1):
        out.append("%s%0*d" % (m.group(1), len(a), i))
print(" ".join(out))' "$set")
	set -- $nodes
	[ $# -le 4 ] || fail "batch $set holds $# nodes"
	q=0
	for n; do case $n in dgx0[1-3]) q=$((q + 1));; esac; done
	[ $q -le 1 ] || fail "batch $set holds $q quorum nodes"
	all="$all $nodes"
done <"$TEST_DIR/sets"
[ "$(echo $all | tr ' ' '\n' | sort -u | wc -l)" -eq 16 ] || fail "not every node planned once: $all"
[ ! -e "$STATE/upgrade/playbook.yaml" ] || fail "--check wrote a playbook"

# Refused, naming the nodes, when two of three quorum nodes are down.
mm mmshutdown -N dgx02,dgx03 >/dev/null || fail "mmshutdown"
expect_status 1 up --to ofed=$NEW --batch 4 >"$TEST_DIR/out" 2>&1
# (dgx01 arbitrates: with quorum lost no node is active)
grep -q "refusing the upgrade: Spectrum Scale has lost quorum already: 0 of 3 quorum nodes are active (none), a majority is 2; not active: dgx01 (arbitrating), dgx02 (down), dgx03 (down); start GPFS on 2 of them first" "$TEST_DIR/out" ||
	fail "refusal: $(cat "$TEST_DIR/out")"
[ ! -e "$STATE/upgrade/playbook.yaml" ] && [ ! -e "$STATE/last" ] || fail "a refused upgrade started a run"
mm mmgetstate -N dgx04 | grep -q " down" && fail "dgx04 was stopped"
sim_ssh 127.0.1.4 ofed_info -s | grep -qx "MLNX_OFED_LINUX-4.7-3.2.9.0:" || fail "dgx04's OFED changed"
# one down: no active quorum node may go either; the others are planned, the
# two named as left out, and --check says the plan cannot finish (exit 1)
mm mmstartup -N dgx02 >/dev/null || fail "mmstartup"
# a started daemon arbitrates for a second or two first, as a real one does
i=0
until [ "$(mm mmgetstate -N dgx01,dgx02 | grep -c ' active$')" -eq 2 ]; do
	i=$((i + 1))
	[ $i -lt "$(slow 40)" ] || fail "dgx01/dgx02 never active: $(mm mmgetstate -N dgx01,dgx02)"
	sleep 0.25
done
expect_status 1 up --to ofed=$NEW --check >"$TEST_DIR/out" 2>&1
grep -q "^not upgraded: dgx\[01-02\]: upgrading any of dgx\[01-02\] would leave 1 active quorum node, below the 2 bringup keeps (GPFS needs 2, a majority); not active: dgx03 (down); start GPFS on dgx03 first (mmstartup -N dgx03)" "$TEST_DIR/out" ||
	fail "refusal with one down: $(cat "$TEST_DIR/out")"

expect_status 2 up --resume 2>/dev/null  # no upgrade was started
expect_status 2 up --to ofed=$NEW --batch 0 --check 2>/dev/null
expect_status 2 up --to kernel=5 --check 2>/dev/null
expect_status 2 up --to ofed=MLNX_OFED_LINUX-9.9-1.0.0.0 --check 2>/dev/null
exit 0

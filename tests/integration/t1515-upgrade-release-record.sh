#!/bin/sh
# No silent release change (issue 24): on a cluster that runs OFED 4.7, a
# deploy whose inventory names another release stops before anything
# changes, naming `bringup upgrade --to ofed=...` (no installer started, no
# later stage run); a finished upgrade records the release it installed in
# the state directory and says which inventory key to change; a deploy with
# the old inventory then changes nothing and says so again. (Not yet: a
# third release in the inventory while the recorded one runs is kept at
# the recorded one with a note, not refused naming `bringup upgrade`.)
. "$(dirname "$0")/lib.sh"
command -v slow >/dev/null || slow() { echo $(($1 * ${BRINGUP_TEST_SLOW:-1})); }
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
sim_up -n 4 --state ready
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
OLD=MLNX_OFED_LINUX-4.7-3.2.9.0
NEW=MLNX_OFED_LINUX-5.0-2.1.8.0
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/ofed" 5.0-2.1.8.0 rhel7.6 x86_64 3.10.0-957.el7.x86_64) ||
	fail "make-bundle"
ofed() { sim_ssh 127.0.1.$1 ofed_info -s; }
# every file of the nodes' overlays and state, with content (the rpm
# stand-in makes its empty database directory on a first query)
snapshot() {
	(cd "$NODES" && find ./*/root ./*/state ! -type d -printf '%p %m %y\n' | LC_ALL=C sort &&
	 find ./*/root ./*/state -type f -exec sha256sum {} + | LC_ALL=C sort)
}
with_ofed() { # VERSION [TARBALL] > inventory naming that release
	sed -e "s|^    ofed_version: .*|    ofed_version: \"$1\"|" \
	    -e "s|^    ofed_tarball: .*|    ofed_tarball: \"${2:-$TGZ}\"|" "$INV"
}
grep -q "^    ofed_version: \"$OLD\"" "$INV" || fail "the sim's inventory names another OFED"

# 0. converged on the old release (the ready sim lacks the OS stages' work)
out=$("$BRINGUP" deploy -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" 2>&1) ||
	fail "first deploy failed: $out"

# 1. the inventory moved on before any upgrade: refused, nothing changed
with_ofed "$NEW" >"$TEST_DIR/inv-new.yaml"
before=$(snapshot)
out=$("$BRINGUP" deploy -i "$TEST_DIR/inv-new.yaml" --state-dir "$STATE" --timeout "$(slow 120)" 2>&1)
[ $? -eq 1 ] || fail "a release change must fail the deploy (exit 1): $out"
echo "$out" | grep -q "runs $OLD, the inventory asks for $NEW (ofed_version): deploy never installs another release over a running one; change it with \`bringup upgrade --to ofed=$NEW\`" ||
	fail "no refusal naming bringup upgrade: $out"
echo "$out" | grep -Eq "^  peermem +skipped +dgx\[01-04\]: stage ofed: dgx0[1-4] runs another release than the inventory's" ||
	fail "later stages were not stopped: $out"
after=$(snapshot)
[ "$after" = "$before" ] || fail "a refused deploy changed the nodes: $(echo "$before" >"$TEST_DIR/b"; echo "$after" | diff "$TEST_DIR/b" - | head -20)"
for n in 1 2 3 4; do ofed $n | grep -qx "$OLD:" || fail "dgx0$n: $(ofed $n)"; done

# 2. the upgrade: records the release and names the key to change
out=$("$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" \
	--to ofed=$NEW --ofed-tarball "$TGZ" --batch 2 2>&1) || fail "upgrade failed: $out"
for n in 1 2 3 4; do ofed $n | grep -qx "$NEW:" || fail "dgx0$n not upgraded: $(ofed $n)"; done
[ "$(cat "$STATE/upgrade/releases")" = "ofed=$NEW" ] ||
	fail "releases record: $(cat "$STATE/upgrade/releases" 2>&1)"
echo "$out" | grep -q "set ofed_version: $NEW in the inventory (it says $OLD), and ofed_tarball to that release's bundle" ||
	fail "the upgrade did not name the key to change: $out"

# 3. a deploy with the old inventory: nothing to do, the key named again
before=$(snapshot)
out=$("$BRINGUP" deploy -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" 2>&1) ||
	fail "deploy after the upgrade failed: $out"
echo "$out" | grep -Eq "^total: ok=[0-9]+ changed=0 failed=0 " || fail "deploy after the upgrade changed: $out"
echo "$out" | grep -q "set ofed_version: $NEW in the inventory (it says $OLD)" ||
	fail "deploy did not name the key: $out"
for n in 1 2 3 4; do ofed $n | grep -qx "$NEW:" || fail "dgx0$n downgraded: $(ofed $n)"; done
# with the inventory changed, nothing to say
with_ofed "$NEW" >"$TEST_DIR/inv-new.yaml"
out=$("$BRINGUP" deploy -i "$TEST_DIR/inv-new.yaml" --state-dir "$STATE" --timeout "$(slow 120)" 2>&1) ||
	fail "deploy with the new inventory failed: $out"
echo "$out" | grep -q "set ofed_version" && fail "a key named though the inventory says it: $out"
echo "$out" | grep -Eq "^total: ok=[0-9]+ changed=0 failed=0 " || fail "deploy changed: $out"

exit 0

#!/bin/sh
# A playbook with a typo'd key, an unknown module, a bad parameter, a stage
# on an empty group or a bad dependency fails with exit 2 and FILE:LINE:COL
# before any host is touched (no node runs a single command).
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state bare
FIX=$(cd "$(dirname "$0")/../fixtures/playbooks" && pwd)
before=$(cat "$BRINGUP_SIM_DIR"/nodes/*/log/commands.log 2>/dev/null | wc -l)

check() { # FILE EXPECTED-MESSAGE-REGEX
	out=$("$BRINGUP" deploy -i "$INV" --state-dir "$TEST_DIR/state" -p "$FIX/$1" 2>&1)
	rc=$?
	[ $rc -eq 2 ] || fail "$1: exit $rc, expected 2: $out"
	echo "$out" | grep -Eq "$2" || fail "$1: message '$out' does not match '$2'"
}
check bad-key.yaml "bad-key.yaml:8:5: unknown key 'host' in stage 2 \(did you mean 'hosts'\?"
check bad-module.yaml "bad-module.yaml:3:13: unknown module 'memlok' in stage 1 \(did you mean 'memlock'\?"
check bad-param.yaml "bad-param.yaml:6:14: found 'lots' for parameter 'limit' of module 'memlock', expected 'unlimited' or a size in KiB"
check bad-param-name.yaml "bad-param-name.yaml:6:7: unknown parameter 'limits' .*did you mean 'limit'\?"
check empty-group.yaml "empty-group.yaml:3:5: stage 'nouveau' runs on group 'ib_switch', which has no hosts"
check bad-depends.yaml "bad-depends.yaml:5:14: stage 'memlock' depends on 'nouveau', expected the name of an earlier stage"
# An inventory variable of the wrong type is caught the same way.
sed 's/^  vars:$/  vars:\n    memlock_limit: lots/' "$INV" >"$TEST_DIR/inv.yaml"
out=$("$BRINGUP" deploy -i "$TEST_DIR/inv.yaml" --state-dir "$TEST_DIR/state" 2>&1)
[ $? -eq 2 ] || fail "bad inventory variable: exit not 2: $out"
echo "$out" | grep -q "inventory variable 'memlock_limit' of host dgx01" || fail "message: $out"

after=$(cat "$BRINGUP_SIM_DIR"/nodes/*/log/commands.log 2>/dev/null | wc -l)
[ "$before" -eq "$after" ] || fail "a host ran commands ($before -> $after lines)"
[ ! -e "$TEST_DIR/state/last" ] || fail "a run was recorded"
exit 0

#!/bin/sh
# The fabric's SM on a managed switch (subnet_manager backend switch, over
# the switch's MLNX-OS CLI): from a bare cluster with `sim up --switch`,
# deploy converges, sminfo on every node names the switch's SM as master
# with the expected priority, show running-config holds the ib smnode
# lines, and a second run changes nothing. Configuration changed on the
# switch and not saved is put back and saved. A switch that refuses the
# login fails its stage with the host and step named, changes nothing on
# it, and the GPU hosts' own stages still run. A rogue second master fails
# sm_fabric naming its GUID, beside the note with the switch's GUID. A
# switch that hangs before its prompt fails within the per-command limit.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
sim_up -n 3 --state bare --switch
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
SW=$(sed -n 's/^    address: \(127\.[0-9.]*\)$/\1/p' "$INV" | tail -n 1)
SW_GUID=$(sed -n "s/^SWITCH_GUID='\(.*\)'$/\1/p" "$NODES/ibsw01/node.conf")
[ -n "$SW" ] && [ -n "$SW_GUID" ] || fail "no switch in $INV"
deploy() { "$BRINGUP" deploy -i "$INV" --state-dir "$STATE" "$@"; }
switch_cli() { sim_ssh "$SW" "$1"; }
summary() { echo "$1" | grep -E "^  $2 +$3 +$4$" >/dev/null || fail "want '$2 $3 $4' in: $1"; }

# Bare: the switch runs no SM, so no node sees a master.
[ "$(switch_cli 'show ib sm')" = disable ] || fail "a bare switch runs an SM"

out=$(deploy) || fail "deploy from bare: $out"
summary "$out" subnet_manager changed ibsw01
summary "$out" sm_fabric ok 'dgx\[01-03\]'
echo "$out" | grep -q "subnet_manager ibsw01 output SM on smnode ibsw01 runs, port GUID $SW_GUID, priority 14" ||
	fail "no note of the switch's SM: $out"
for a in 127.0.1.1 127.0.1.2 127.0.1.3; do
	s=$(sim_ssh "$a" sminfo) || fail "sminfo on $a: $s"
	want="sminfo: sm lid 97 sm guid $(echo "$SW_GUID" | sed 's/^0x0*/0x/'), activity count [0-9]+ priority 14 state 3 SMINFO_MASTER"
	echo "$s" | grep -Eqx "$want" || fail "$a: sminfo: $s"
done
cfg=$(switch_cli 'show running-config')
for l in 'ib smnode ibsw01 enable' 'ib smnode ibsw01 sm-priority 14' 'ib sm virt enable'; do
	echo "$cfg" | grep -qx "   $l" || fail "running-config lacks '$l': $cfg"
done
switch_cli 'show configuration files' | grep -q '^Unsaved changes *: no$' || fail "not saved"
# The module went through the interactive CLI and its pager.
log=$(cat "$STATE"/runs/*/hosts/ibsw01.log)
echo "$log" | grep -qx '\$ cli: write memory' || fail "no write memory in the log: $log"
echo "$log" | grep -q 'lines [0-9]' && fail "a pager prompt reached the log"
echo "$log" | grep -qx '   ib smnode ibsw01 enable' || fail "running-config not logged"

out=$(deploy) || fail "second deploy: $out"
echo "$out" | grep -q '^total: ok=[0-9]* changed=0 failed=0' || fail "second run changed: $out"

# precheck leaves the switch alone (no shell there) and finds the fabric's
# one master SM from every node.
out=$("$BRINGUP" precheck -i "$INV" --checks sm.master -o json 2>"$TEST_DIR/pre.err") ||
	fail "precheck after the switch SM: $out $(cat "$TEST_DIR/pre.err")"
grep -q '^bringup precheck: not probed: ibsw01 (ib_switch' "$TEST_DIR/pre.err" ||
	fail "switch not left out: $(cat "$TEST_DIR/pre.err")"
echo "$out" | grep -q '"ibsw01"' && fail "precheck probed the switch: $out"
echo "$out" | grep -q '"dgx03"' || fail "precheck left out a node: $out"

# Drift on the switch, not saved: put back and saved.
switch_cli 'configure terminal
no ib sm virt enable' >/dev/null
switch_cli 'show configuration files' | grep -q '^Unsaved changes *: yes$' || fail "drift saved?"
out=$(deploy --tags sm) || fail "deploy after drift: $out"
summary "$out" subnet_manager changed ibsw01
switch_cli 'show running-config' | grep -qx '   ib sm virt enable' || fail "virt not back"
switch_cli 'show configuration files' | grep -q '^Unsaved changes *: no$' || fail "not saved"

# The switch refuses the login; a GPU host has its own change to make.
switch_cli 'configure terminal
ib smnode ibsw01 sm-priority 12' >/dev/null
rm "$NODES/dgx02/root/etc/modprobe.d/blacklist-nouveau.conf" || fail "no nouveau blacklist"
"$BRINGUP" sim fault ibsw01 refuse-login >/dev/null || fail "fault refuse-login"
before=$(cat "$NODES/ibsw01/state/running.conf" "$NODES/ibsw01/state/saved.conf")
out=$(deploy) && fail "deploy passed with the switch refusing the login: $out"
summary "$out" subnet_manager failed "ibsw01: check: switch CLI login to ibsw01 failed: host ibsw01: authentication as .*"
summary "$out" nouveau changed dgx02
summary "$out" ofed ok 'dgx\[01-03\]'
[ "$(cat "$NODES/ibsw01/state/running.conf" "$NODES/ibsw01/state/saved.conf")" = "$before" ] ||
	fail "the switch changed without a login"
[ -f "$NODES/dgx02/root/etc/modprobe.d/blacklist-nouveau.conf" ] || fail "dgx02 not converged"
"$BRINGUP" sim fault ibsw01 clear >/dev/null || fail "clear"
out=$(deploy) || fail "deploy after the login came back: $out"
summary "$out" subnet_manager changed ibsw01
switch_cli 'show ib smnode ibsw01 sm-priority' | grep -qx 14 || fail "priority not 14"

# A switch that never shows its prompt: the run's per-command limit ends the wait.
"$BRINGUP" sim fault ibsw01 hang >/dev/null || fail "fault hang"
t0=$(date +%s)
out=$(deploy --timeout 3 --tags sm) && fail "deploy passed with a hung switch: $out"
[ $(($(date +%s) - t0)) -lt 30 ] || fail "a hung switch held the run for $(($(date +%s) - t0)) s"
summary "$out" subnet_manager failed "ibsw01: check: switch CLI login to ibsw01 failed: switch ibsw01: no CLI prompt after login .*"
"$BRINGUP" sim fault ibsw01 clear >/dev/null || fail "clear hang"

# A rogue master beside the switch's SM.
"$BRINGUP" sim fault dgx02 two-sm-masters >/dev/null || fail "fault two-sm-masters"
out=$(deploy --tags sm) && fail "two masters passed: $out"
summary "$out" sm_fabric failed "dgx02: check: the master SM is 0xec0d9a0300000200 with priority 15, expected 14: .*"
summary "$out" sm_fabric ok 'dgx\[01,03\]'
echo "$out" | grep -q "port GUID $SW_GUID" || fail "the switch's SM GUID is not named: $out"
"$BRINGUP" sim fault dgx02 clear >/dev/null
out=$(deploy --tags sm) || fail "after clearing the rogue SM: $out"
exit 0

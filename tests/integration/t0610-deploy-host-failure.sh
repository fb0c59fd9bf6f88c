#!/bin/sh
# One host failing a stage: the others complete it, that host's later stages
# are skipped with the reason, deploy exits 1 and the summary names the host.
# Then serial + max_fail_percent stop the run at the first failure, as in Ansible;
# an unreachable host (a state of its own, not a failure) and a hung one
# stop on their own.
. "$(dirname "$0")/lib.sh"
OS_STAGES=$(cd "$(dirname "$0")/../fixtures/playbooks" && pwd)/os-stages.yaml
sim_up -n 4 --state bare
STATE=$TEST_DIR/state
FIX=$(cd "$(dirname "$0")/../fixtures/playbooks" && pwd)

# On dgx03, a file stands where /etc/security/limits.d must be a directory.
mkdir -p "$BRINGUP_SIM_DIR/nodes/dgx03/root/etc/security" &&
	touch "$BRINGUP_SIM_DIR/nodes/dgx03/root/etc/security/limits.d" || fail "cannot break dgx03"

out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE")
[ $? -eq 1 ] || fail "a failed host must make deploy exit 1: $out"
echo "$out" | grep -Eq '^  memlock +changed +dgx\[01-02,04\]$' || fail "others did not complete memlock: $out"
echo "$out" | grep -Eq '^  memlock +failed +dgx03: apply: cannot write /etc/security/limits.d/99-bringup-memlock.conf: mkdir: ' || fail "summary does not name dgx03: $out"
echo "$out" | grep -Eq '^  nouveau +changed +dgx\[01-02,04\]$' || fail "others did not go on: $out"
echo "$out" | grep -Eq '^  nouveau +skipped +dgx03: failed at stage memlock$' || fail "dgx03 not skipped: $out"
echo "$out" | grep -Eq '^nouveau dgx03 skipped 0.00s: failed at stage memlock$' || fail "no skip event: $out"
[ -e "$BRINGUP_SIM_DIR/nodes/dgx03/root/etc/modprobe.d/blacklist-nouveau.conf" ] &&
	fail "dgx03 ran a stage after its failure"
echo "$out" | grep -qx 'total: ok=0 changed=10 failed=1 skipped=1' || fail "totals: $out"

# serial 1, max_fail_percent 0: dgx03 fails, dgx04 never starts, the run stops.
out=$("$BRINGUP" deploy -i "$INV" --state-dir "$STATE" -p "$FIX/serial-maxfail.yaml")
[ $? -eq 1 ] || fail "max_fail_percent run must exit 1: $out"
order=$(echo "$out" | sed -n 's/^memlock \(dgx0[0-9]\) started$/\1/p' | tr '\n' ' ')
[ "$order" = "dgx01 dgx02 dgx03 " ] || fail "serial 1 order wrong or dgx04 started: '$order'"
echo "$out" | grep -Eq '^  memlock +skipped +dgx04: stage memlock: 1 of 1 hosts of a batch failed, more than max_fail_percent 0%$' ||
	fail "dgx04 not skipped by max_fail_percent: $out"
echo "$out" | grep -Eq '^  nouveau +skipped +dgx\[01-04\]: stage memlock: 1 of 1 hosts of a batch' ||
	fail "later stage not stopped: $out"

# An unreachable host is reported as such (exit 3); the others converge.
rm -f "$BRINGUP_SIM_DIR/nodes/dgx03/root/etc/security/limits.d"
"$BRINGUP" sim fault dgx04 unreachable >/dev/null || fail "fault unreachable"
out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE")
[ $? -eq 3 ] || fail "unreachable host: exit not 3: $out"
echo "$out" | grep -Eq '^  selinux_ib +unreachable +dgx04: host dgx04 .*unreachable' || fail "unreachable: $out"
echo "$out" | grep -Eq '^  memlock +changed +dgx03$' || fail "dgx03 did not catch up: $out"
echo "$out" | grep -Eq '^  nouveau +skipped +dgx04: unreachable at stage selinux_ib$' || fail "unreachable: $out"

# A host that accepts the login and then never answers: its first stage
# fails once the per-command limit is spent (once: not once per stage), the
# others finish, and the run does not wait on it.
"$BRINGUP" sim fault dgx04 clear >/dev/null
# The limit must still cover a healthy host's probes on a loaded machine.
"$BRINGUP" sim fault dgx02 hang >/dev/null || fail "fault hang"
to=$(slow 4)
t0=$(date +%s)
out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE" --timeout $to)
[ $? -eq 1 ] || fail "hung host: exit not 1: $out"
[ $(($(date +%s) - t0)) -lt $((to * 5)) ] || fail "the run waited on the hung host for $(($(date +%s) - t0)) s"
echo "$out" | grep -Eq '^  selinux_ib +failed +dgx02: check: timed out: ' || fail "hang: $out"
echo "$out" | grep -Eq '^  nouveau +skipped +dgx02: failed at stage selinux_ib$' || fail "hang: $out"
echo "$out" | grep -Eq '^  nouveau +(ok|changed) +dgx\[01,03-04\]$' || fail "others: $out"
exit 0

#!/bin/sh
# A deploy stopped in the middle of a stage -- by SIGINT (clean stop), then,
# on a fresh cluster, by SIGKILL -- is finished by `deploy --resume`, and no
# change is applied twice: every file write, initramfs build and policy
# install appears once in each node's command log.
# usage: t0630-deploy-resume.sh [INT|KILL] (default: both, one after the other)
. "$(dirname "$0")/lib.sh"
OS_STAGES=$(cd "$(dirname "$0")/../fixtures/playbooks" && pwd)/os-stages.yaml
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes

# wait_for FILE REGEX SECONDS
wait_for() {
	i=0
	while ! grep -Eq "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le $(($3 * 10)) ] || return 1
		sleep 0.1
	done
}

MEMLOCK_FILES="/etc/security/limits.d/99-bringup-memlock.conf
/etc/systemd/system/crio.service.d/99-bringup-memlock.conf"

# After a SIGKILL, note for each memlock file whether its write landed: a
# write whose input the dead deploy had not finished sending fails on the
# node ("input cut short") and leaves the old file, so the resume must write
# it again. Only a write that landed must not be repeated.
note_cut_writes() {
	: >"$TEST_DIR/cut"
	for n in dgx01 dgx02 dgx03 dgx04; do
		for f in $MEMLOCK_FILES; do
			[ -e "$NODES/$n/root$f" ] && continue
			c=$(grep -c -- "mktemp.*$f" "$NODES/$n/log/commands.log")
			[ "$c" -le 1 ] || fail "KILL: $n tried $f $c times before the kill"
			[ "$c" -eq 0 ] || echo "$n $f" >>"$TEST_DIR/cut"
		done
	done
}

# Each change command once per node: the writes of the four files, dracut,
# and the SELinux build; a write cut short by SIGKILL (note_cut_writes) once
# more.
once_each() {
	for n in dgx01 dgx02 dgx03 dgx04; do
		log=$NODES/$n/log/commands.log
		for pat in "mktemp.*/var/lib/bringup/selinux/infiniband.te" \
			   "mktemp.*/etc/security/limits.d/99-bringup-memlock.conf" \
			   "mktemp.*/etc/systemd/system/crio.service.d/99-bringup-memlock.conf" \
			   "mktemp.*/etc/modprobe.d/blacklist-nouveau.conf" \
			   "dracut.*-f" "checkmodule.*-M" "semodule_package.*-o" "semodule[^_].*-i"; do
			want=1
			case $pat in mktemp.\*/*)
				grep -qx "$n ${pat#mktemp.\*}" "$TEST_DIR/cut" 2>/dev/null && want=2 ;;
			esac
			c=$(grep -c -- "$pat" "$log")
			[ "$c" -eq $want ] || fail "$1: $n ran $pat $c times, want $want"
		done
	done
}

run_case() { # SIGNAL
	sig=$1
	"$BRINGUP" sim down >/dev/null 2>&1
	rm -rf "$STATE" "$TEST_DIR/cut"
	sim_up -n 4 --state bare
	for n in dgx01 dgx02 dgx03 dgx04; do
		"$BRINGUP" sim fault $n slow 1 >/dev/null || fail "fault slow"
	done
	"$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE" >"$TEST_DIR/out.$sig" 2>&1 &
	pid=$!
	# In the middle of memlock: some hosts have written a file, not all is done.
	wait_for "$TEST_DIR/out.$sig" '^memlock dgx0[1-4] output wrote' 300 ||
		{ kill -KILL $pid; fail "$sig: memlock never started writing: $(cat "$TEST_DIR/out.$sig")"; }
	kill -$sig $pid
	wait $pid
	rc=$?
	out=$(cat "$TEST_DIR/out.$sig")
	journal=$STATE/$(readlink "$STATE/last")/journal.json
	if [ "$sig" = INT ]; then
		[ $rc -eq 1 ] || fail "INT: exit $rc, want 1: $out"
		echo "$out" | grep -qx '\* \* interrupted' || fail "INT: no interrupted line: $out"
		echo "$out" | grep -Eq '^  nouveau +skipped +dgx\[01-04\]: interrupted: not started$' ||
			fail "INT: nouveau must not start: $out"
		python3 - "$journal" <<'PY' || fail "INT: journal does not say what stopped"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["state"] == "interrupted", j["state"]
st = {s["name"]: s["hosts"] for s in j["stages"]}
assert all(h["status"] == "changed" for h in st["selinux_ib"].values())
assert all(h["status"] == "interrupted" for h in st["nouveau"].values()), st["nouveau"]
assert any(h["status"] == "interrupted" for h in st["memlock"].values()), st["memlock"]
PY
	else
		[ $rc -eq 137 ] || fail "KILL: exit $rc"
		python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["state"] == "running", j["state"]
assert all(h["status"] == "changed" for h in j["stages"][0]["hosts"].values()), j["stages"][0]
' "$journal" || fail "KILL: the journal is not whole or not as left"
		# Commands the dead deploy had sent finish on the nodes (or fail, their
		# input cut short); wait for them, however loaded the machine is.
		i=0
		while pgrep -f "$BRINGUP_SIM_DIR/bin/sim-shell" >/dev/null; do
			i=$((i + 1))
			[ $i -le 600 ] || fail "KILL: the dead deploy's commands still run after 60 s"
			sleep 0.1
		done
		note_cut_writes
	fi
	for n in dgx01 dgx02 dgx03 dgx04; do
		"$BRINGUP" sim fault $n clear >/dev/null || fail "clear"
	done
	out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE" --resume) ||
		fail "$sig: resume failed: $out"
	echo "$out" | grep -Eq '^  selinux_ib +skipped +dgx\[01-04\]: completed in an earlier attempt \(changed\)$' ||
		fail "$sig: resume redid selinux_ib: $out"
	echo "$out" | grep -Eq '^  nouveau +changed +dgx\[01-04\]$' || fail "$sig: nouveau not done: $out"
	python3 - "$journal" <<'PY' || fail "$sig: journal after resume"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["state"] == "completed", j["state"]
assert len(j["attempts"]) == 2, j["attempts"]
for s in j["stages"]:
    assert len(s["hosts"]) == 4 and all(h["status"] in ("ok", "changed") for h in s["hosts"].values()), s
PY
	once_each "$sig"
	# And a further run has nothing left to do.
	out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE") || fail "$sig: rerun: $out"
	echo "$out" | grep -qx 'total: ok=12 changed=0 failed=0 skipped=0' || fail "$sig: not converged: $out"
}

for sig in ${1:-INT KILL}; do
	run_case $sig
done
exit 0

#!/bin/sh
# deploy from a bare cluster: --check lists the changes (with diffs) and
# leaves every node untouched; deploy converges; a second deploy changes
# nothing and runs no change command; the journal says completed; bundle
# packs the run.
. "$(dirname "$0")/lib.sh"
OS_STAGES=$(cd "$(dirname "$0")/../fixtures/playbooks" && pwd)/os-stages.yaml
sim_up -n 4 --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes

# Every file and directory of the nodes' overlays and state, with content.
snapshot() {
	(cd "$NODES" && find ./*/root ./*/state -printf '%p %m %y\n' | LC_ALL=C sort &&
	 find ./*/root ./*/state -type f -exec sha256sum {} + | LC_ALL=C sort)
}

before=$(snapshot)
out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE" --check) || fail "check failed: $out"
[ "$(snapshot)" = "$before" ] || fail "--check changed the nodes"
for s in selinux_ib memlock nouveau; do
	echo "$out" | grep -qx "$s dgx\[01-04\]:" || fail "no plan for $s: $out"
done
echo "$out" | grep -qx '+blacklist nouveau' || fail "no diff of the blacklist: $out"
echo "$out" | grep -qx '+LimitMEMLOCK=infinity' || fail "no diff of the crio drop-in: $out"
echo "$out" | grep -q '^  - install SELinux module infiniband' || fail "no semodule plan: $out"
echo "$out" | grep -qx 'total: ok=0 would-change=12 failed=0 skipped=0' || fail "check totals: $out"
[ ! -e "$STATE/last" ] || fail "--check must not become the run --resume continues"

out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE") || fail "deploy failed: $out"
for s in selinux_ib memlock nouveau; do
	echo "$out" | grep -Eq "^  $s +changed +dgx\[01-04\]$" || fail "$s not changed on all: $out"
done
# One line per state change, parsable: STAGE HOST STATE ...
echo "$out" | grep -Eq '^memlock dgx03 changed [0-9.]+s: 2 changes$' || fail "event line: $out"
echo "$out" | grep -qx 'nouveau dgx02 started' || fail "no started line: $out"

for n in dgx01 dgx02 dgx03 dgx04; do
	d=$NODES/$n
	grep -qx 'blacklist nouveau' "$d/root/etc/modprobe.d/blacklist-nouveau.conf" ||
		fail "$n: no blacklist"
	grep -q 'blacklist nouveau' "$d"/root/boot/initramfs-*.img || fail "$n: initramfs not rebuilt"
	[ "$(cat "$d/state/selinux_modules/infiniband")" = 1.0 ] || fail "$n: policy not installed"
	grep -qx 'LimitMEMLOCK=infinity' "$d/root/etc/systemd/system/crio.service.d/99-bringup-memlock.conf" ||
		fail "$n: no crio drop-in"
	grep -Eq '^root +hard +memlock +unlimited' "$d/root/etc/security/limits.d/99-bringup-memlock.conf" ||
		fail "$n: no limits.d file"
done

run=$(readlink "$STATE/last")
python3 - "$STATE/$run/journal.json" <<'PY' || fail "journal wrong"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["state"] == "completed", j["state"]
assert [s["name"] for s in j["stages"]] == ["selinux_ib", "memlock", "nouveau"]
for s in j["stages"]:
    assert sorted(s["hosts"]) == ["dgx01", "dgx02", "dgx03", "dgx04"], s
    for h in s["hosts"].values():
        assert h["status"] == "changed" and h["changes"] and h["finished"], h
PY
grep -q '^\$ .*dracut' "$STATE/$run/hosts/dgx01.log" || fail "command log lacks dracut"
grep -q '^exit 0 in ' "$STATE/$run/hosts/dgx01.log" || fail "command log lacks exit statuses"

# Converged: a second run changes nothing and runs no change command.
before=$(snapshot)
for n in dgx01 dgx02 dgx03 dgx04; do
	wc -l <"$NODES/$n/log/commands.log" >"$TEST_DIR/lines.$n"
done
out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE" -o json) || fail "second deploy failed: $out"
echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["totals"] == {"ok": 12, "changed": 0, "failed": 0, "skipped": 0, "unreachable": 0}, d["totals"]
for s in d["stages"]:
    for h, r in s["hosts"].items():
        assert r["status"] == "ok" and r["changes"] == [] and r["reason"] is None, (h, r)
' || fail "second deploy was not all ok: $out"
[ "$(snapshot)" = "$before" ] || fail "second deploy changed a node"
new=$(for n in dgx01 dgx02 dgx03 dgx04; do
	tail -n +$(($(cat "$TEST_DIR/lines.$n") + 1)) "$NODES/$n/log/commands.log"
done)
# The three stages' probes travel in one round trip per host (the prefetch),
# and each stage's check is answered from it. Beside it, the cluster lock
# takes and gives back its lease on each host (cluster-lock.h). A command's
# record starts with its time (a command line may span lines).
cmds=$(printf "%s\n" "$new" | grep -c '^20[0-9-]*T[0-9:]*Z ')
locks=$(printf "%s\n" "$new" | grep -cF -e "'take'" -e "'release'")
[ "$locks" -eq 8 ] && [ "$((cmds - locks))" -eq 4 ] ||
	fail "expected the prefetch and the lock's take and release per host, got: $new"
run=$(readlink "$STATE/last")
[ "$(grep -c '^=== .* prefetch dgx01$' "$STATE/$run/hosts/dgx01.log")" = 1 ] ||
	fail "no prefetch in the run log: $(cat "$STATE/$run/hosts/dgx01.log")"
[ "$(grep -c '# answered by the prefetch$' "$STATE/$run/hosts/dgx01.log")" = 3 ] ||
	fail "stages not answered by the prefetch: $(cat "$STATE/$run/hosts/dgx01.log")"
echo "$new" | grep -Eq 'dracut|semodule|mktemp|systemctl restart' && fail "a change ran again: $new"
for n in dgx01 dgx02 dgx03 dgx04; do
	[ "$(cat "$NODES/$n/state/initramfs/"*.builds)" = 1 ] || fail "$n: initramfs built twice"
done

# A loaded nouveau (the fault loads it behind our back) is found and unloaded.
"$BRINGUP" sim fault dgx02 nouveau-loaded >/dev/null || fail "fault nouveau-loaded"
out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE" --check --tags nouveau) || fail "check: $out"
echo "$out" | grep -qx '  - unload the nouveau module' || fail "nouveau-loaded not planned: $out"
out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE" --tags nouveau) || fail "unload: $out"
echo "$out" | grep -Eq '^  nouveau +changed +dgx02$' || fail "nouveau not unloaded on dgx02: $out"
echo "$out" | grep -Eq '^  nouveau +ok +dgx\[01,03-04\]$' || fail "others touched: $out"
"$BRINGUP" exec -i "$INV" --limit dgx02 -- lsmod | grep -q '^nouveau ' && fail "nouveau still loaded"

# --tags, --skip-tags, --start-at and --limit choose stages and hosts.
out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE" --tags gpu,selinux_ib --limit 'dgx[01-02]') ||
	fail "tags: $out"
echo "$out" | grep -Eq '^  memlock +skipped +dgx\[01-02\]: not selected by --tags$' || fail "tags: $out"
echo "$out" | grep -Eq '^  nouveau +ok +dgx\[01-02\]$' || fail "tags: $out"
echo "$out" | grep -Eq '^  selinux_ib +ok +dgx\[01-02\]$' || fail "tags by stage name: $out"
echo "$out" | grep -q 'dgx0[34]' && fail "--limit ignored: $out"
out=$("$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE" --start-at memlock --skip-tags gpu) ||
	fail "start-at: $out"
echo "$out" | grep -Eq '^  selinux_ib +skipped +dgx\[01-04\]: before --start-at memlock$' || fail "start-at: $out"
echo "$out" | grep -Eq '^  memlock +ok +dgx\[01-04\]$' || fail "start-at: $out"
echo "$out" | grep -Eq '^  nouveau +skipped +dgx\[01-04\]: excluded by --skip-tags$' || fail "skip-tags: $out"
expect_status 2 "$BRINGUP" deploy -p "$OS_STAGES" -i "$INV" --state-dir "$STATE" --start-at nosuch 2>/dev/null

out=$("$BRINGUP" bundle --state-dir "$STATE" -o "$TEST_DIR/b.tar.gz") || fail "bundle: $out"
tar tzf "$TEST_DIR/b.tar.gz" | grep -q '/run/journal.json$' || fail "bundle lacks the journal"
tar tzf "$TEST_DIR/b.tar.gz" | grep -q '/run/hosts/dgx04.log$' || fail "bundle lacks the logs"
exit 0

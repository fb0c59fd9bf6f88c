#!/bin/sh
# OFED installs that need a reboot, and installers that run too long, on a
# clean cluster. dgx01: openibd cannot restart (an application holds the
# modules), so the host is rebooted, comes back with a new boot id, its
# services and modules as a boot leaves them, and verify passes; dgx02 is
# not rebooted; dgx03 never comes back from its reboot and fails with a
# clear message within reboot_timeout while the others complete; dgx04
# (reboot: never) fails saying a reboot is needed, and a later run
# with reboots allowed does the reboot it still owes; a further run
# changes nothing. Then an installer past install_timeout fails cleanly,
# and a firmware update (fw_update) reboots its host.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
sim_up -n 4 --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/bundles" 4.7-3.2.9.0 rhel7.6 x86_64) || fail "make-bundle"
PB=$TEST_DIR/pb.yaml
RT=$(slow 30)   # the healthy reboots must come back within it on a loaded machine
cat >"$PB" <<YAML
name: ofed-reboot
stages:
  - name: ofed
    module: ofed
    hosts: "dgx[01-03]"
    params:
      tarball: $TGZ
      reboot_timeout: $RT
  - name: ofed_noreboot
    module: ofed
    hosts: dgx04
    params:
      tarball: $TGZ
      reboot: never
YAML
deploy() { "$BRINGUP" deploy -i "$INV" -p "$PB" --state-dir "$STATE" "$@"; }
boot_id() { cat "$NODES/$1/state/boot_id"; }

for n in dgx01 dgx03 dgx04; do
	"$BRINGUP" sim fault $n openibd-busy >/dev/null || fail "fault openibd-busy on $n"
done
"$BRINGUP" sim fault dgx03 boot-hang >/dev/null || fail "fault boot-hang"
for n in dgx01 dgx02 dgx03 dgx04; do
	eval "before_$n=\$(boot_id $n)"
done
[ "$(sim_ssh 127.0.1.1 cat /proc/sys/kernel/random/boot_id)" = "$before_dgx01" ] ||
	fail "the node does not show its own boot id"

start=$(date +%s)
out=$(deploy) && fail "deploy passed although dgx03 never came back: $out"
took=$(( $(date +%s) - start ))
echo "$out" | grep -Eq '^  ofed +changed +dgx\[01-02\]$' || fail "ofed on dgx01-02: $out"
echo "$out" | grep -Eq '^  ofed +failed +dgx03: apply: dgx03 did not come back over SSH within '"$RT"' s after the reboot \(last try: .*\)$' ||
	fail "dgx03 not named as not back: $out"
echo "$out" | grep -Eq '^  ofed_noreboot +failed +dgx04: apply: dgx04 needs a reboot to finish the OFED install \(systemctl restart openibd failed: Error: Cannot unload the Infiniband driver stack due to the above issue\(s\)!\); ofed_reboot is never: reboot it, then run again$' ||
	fail "dgx04 not failed for its reboot: $out"
[ "$took" -lt $((RT * 6)) ] || fail "the run took $took s; the reboot timeout is $RT s"

# dgx01 rebooted: new boot id, connections were dropped and came back, the
# fault a reboot ends is gone, openibd (enabled) loaded the new stack.
[ "$(boot_id dgx01)" != "$before_dgx01" ] || fail "dgx01 was not rebooted"
grep -q 'reboot: up (boot id' "$NODES/dgx01/log/boot.log" || fail "dgx01 boot log"
[ ! -e "$NODES/dgx01/faults/openibd-busy" ] || fail "dgx01: openibd-busy survived the reboot"
[ "$(cat "$NODES/dgx01/state/services/openibd/active")" = active ] || fail "dgx01: openibd not started at boot"
grep -qx mlx5_ib "$NODES/dgx01/state/modules/loaded" || fail "dgx01: IB stack not loaded after boot"
[ "$(sim_ssh 127.0.1.1 cat /proc/sys/kernel/random/boot_id)" = "$(boot_id dgx01)" ] ||
	fail "dgx01 shows another boot id than its state"
run=$(readlink "$STATE/last")
grep -q 'reboot and wait for SSH' "$STATE/$run/hosts/dgx01.log" || fail "reboot not in dgx01's log"
# dgx02 and dgx04 were not rebooted; dgx03 went down and stays down.
[ "$(boot_id dgx02)" = "$before_dgx02" ] || fail "dgx02 was rebooted"
[ "$(boot_id dgx04)" = "$before_dgx04" ] || fail "dgx04 was rebooted despite ofed_reboot: never"
[ ! -e "$NODES/dgx02/log/boot.log" ] || fail "dgx02 has a boot log"
grep -q 'hangs before sshd starts' "$NODES/dgx03/log/boot.log" || fail "dgx03 boot log"
sim_ssh 127.0.1.3 true 2>/dev/null && fail "dgx03 answers although its boot hangs"

# dgx03's boot finishes; dgx04 may reboot now, and does the reboot it owes.
"$BRINGUP" sim fault dgx03 clear boot-hang >/dev/null || fail "clear boot-hang"
sed -i 's/reboot: never/reboot: auto/' "$PB"
out=$(deploy) || fail "second deploy: $out"
echo "$out" | grep -Eq '^  ofed +ok +dgx\[01-03\]$' || fail "second run on dgx01-03: $out"
echo "$out" | grep -Eq '^  ofed_noreboot +changed +dgx04$' || fail "dgx04's owed reboot: $out"
[ "$(boot_id dgx04)" != "$before_dgx04" ] || fail "dgx04 was not rebooted on the second run"
[ "$(boot_id dgx02)" = "$before_dgx02" ] || fail "dgx02 was rebooted on the second run"
grep -qx mlx5_ib "$NODES/dgx04/state/modules/loaded" || fail "dgx04: IB stack not loaded after boot"

out=$(deploy -o json) || fail "third deploy: $out"
all_ok 4 "$out" || fail "third deploy changed something: $out"

# An installer past install_timeout; a firmware update reboots its host.
"$BRINGUP" sim down >/dev/null || fail "sim down"
sim_up -n 2 --state bare
STATE=$TEST_DIR/state2
IT=$(slow 5)
cat >"$PB" <<YAML
name: ofed-slow
stages:
  - name: ofed
    module: ofed
    hosts: gpu_worker
    params:
      tarball: $TGZ
      install_timeout: $IT
      fw_update: true
YAML
"$BRINGUP" sim fault dgx01 install-slow 60 >/dev/null || fail "fault install-slow"
before=$(boot_id dgx02)
start=$(date +%s)
out=$(deploy) && fail "deploy passed with a slow installer: $out"
took=$(( $(date +%s) - start ))
echo "$out" | grep -Eq "^  ofed +failed +dgx01: apply: mlnxofedinstall did not finish within install_timeout \(ofed_install_timeout, $IT s\): timed out after [0-9]+ s \(limit $IT s\) on dgx01 \(stage ofed\): 'sh' '-s' '--' .*'--force'.*  # stdin: templates/ofed/install.sh$" ||
	fail "installer timeout: $out"
[ "$took" -lt $((IT * 10)) ] || fail "the run waited $took s for a $IT s install timeout"
echo "$out" | grep -Eq '^  ofed +changed +dgx02$' || fail "dgx02 with the firmware update: $out"
[ "$(boot_id dgx02)" != "$before" ] || fail "dgx02 not rebooted after its firmware update"
[ ! -e "$NODES/dgx02/state/ofed_fw_pending" ] || fail "dgx02: firmware still pending after the reboot"
[ ! -e "$NODES/dgx01/state/ofed_version" ] || fail "dgx01: installed although timed out"
exit 0

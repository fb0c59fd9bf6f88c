#!/bin/sh
# The GPU driver's rolling upgrade (`upgrade --to driver=NEW`) on three HGX
# H100 nodes (3 quorum nodes: a batch each). --check shows the batches and
# changes nothing; a runfile of another version, or none, is refused
# before anything changes. A node without its kernel's source tree stops
# its batch, named, before its GPU services are stopped; the runfile run by
# hand there fails as NVIDIA's does (its GPU services hold the module; then
# the missing kernel source tree), logging to /var/log/nvidia-installer.log.
# A node whose driver was upgraded under the running module (a package
# update: nvidia-smi's "Driver/library version mismatch") only reboots.
# --resume finishes: every GPU of every node on NEW (nvidia-smi over ssh),
# the node rebooted, nvidia-peermem (the new driver's) loaded and bound to
# nvidia, the GPU services back. A second upgrade changes nothing.
. "$(dirname "$0")/lib.sh"
TOOLS=$(cd "$(dirname "$0")/../../sim/tools" && pwd)
sim_up -n 3 --profile hgx-h100-ndr --state ready
STATE=$TEST_DIR/state
OLD=550.90.07 NEW=570.124.06
RUN=$("$TOOLS/sim-nvidia-runfile" "$TEST_DIR/drv" "$NEW") || fail "sim-nvidia-runfile"
OTHER=$("$TOOLS/sim-nvidia-runfile" "$TEST_DIR/other" 575.51.03) || fail "sim-nvidia-runfile"
up() { "$BRINGUP" upgrade -i "$INV" --state-dir "$STATE" --timeout "$(slow 120)" "$@"; }
node() { sim_ssh "127.0.1.$1" "$2"; }
drivers() { node "$1" "nvidia-smi --query-gpu=driver_version --format=csv,noheader" | sort | uniq -c | sed 's/^ *//'; }
boot_id() { node "$1" "cat /proc/sys/kernel/random/boot_id"; }

# --check: the batches, nothing changed; bad runfiles refused first.
out=$(up --to driver=$NEW --driver-installer "$RUN" --check 2>&1) || fail "check: $out"
echo "$out" | grep -q "^upgrade plan: 3 nodes in 3 batches, to driver=$NEW$" || fail "plan: $out"
echo "$out" | grep -q '^batch 1: hgx01 (1 nodes)' || fail "batch 1: $out"
[ ! -e "$STATE/upgrade/playbook.yaml" ] || fail "--check wrote a playbook"
for n in 1 2 3; do
	[ "$(drivers $n)" = "8 $OLD" ] || fail "hgx0$n's driver changed under --check: $(drivers $n)"
done
expect_status 2 up --to driver=$NEW --driver-installer "$OTHER" >"$TEST_DIR/out" 2>&1
grep -q -- "--to driver=$NEW: $OTHER is driver 575.51.03; give the new driver's runfile with --driver-installer FILE" "$TEST_DIR/out" ||
	fail "another version's runfile: $(cat "$TEST_DIR/out")"
expect_status 2 up --to driver=$NEW >"$TEST_DIR/out" 2>&1
grep -q "no runfile: give --driver-installer FILE (or the inventory's gpu_driver_installer)" "$TEST_DIR/out" ||
	fail "no runfile: $(cat "$TEST_DIR/out")"
[ ! -e "$STATE/upgrade/playbook.yaml" ] || fail "a refused upgrade wrote a playbook"

# hgx03: a package update put NEW on disk under the running OLD module.
echo "$NEW" >"$BRINGUP_SIM_DIR/nodes/hgx03/state/gpu_driver"
node 3 nvidia-smi >"$TEST_DIR/out"; rc=$?
[ $rc -eq 18 ] || fail "nvidia-smi on a mismatched driver: exit $rc"
printf 'Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 570.124\n' |
	diff - "$TEST_DIR/out" >/dev/null || fail "mismatch: $(cat "$TEST_DIR/out")"

"$BRINGUP" sim fault hgx02 no-kernel-headers >/dev/null || fail "fault no-kernel-headers"
boot1=$(boot_id 1)
out=$(up --to driver=$NEW --driver-installer "$RUN" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "a failed node should fail the run (exit 1), got $rc: $out"
echo "$out" | grep -q "b2-driver hgx02 failed .*hgx02 has no source tree for its running kernel 5.14.0-427.13.1.el9_4.x86_64 .*install kernel-devel-5.14.0-427.13.1.el9_4.x86_64" ||
	fail "hgx02's failure: $out"
echo "$out" | grep -Eq "^  hgx01 +upgraded$" && echo "$out" | grep -Eq "^  hgx02 +failed at b2-driver " &&
	echo "$out" | grep -Eq "^  hgx03 +untouched \(its batch did not start\)$" || fail "node states: $out"
[ "$(drivers 1)" = "8 $NEW" ] || fail "hgx01 not on $NEW: $(drivers 1)"
[ "$(boot_id 1)" != "$boot1" ] || fail "hgx01 did not reboot"
[ "$(drivers 2)" = "8 $OLD" ] || fail "hgx02's driver changed: $(drivers 2)"
# checked before anything stopped: hgx02's GPU services still run
node 2 "systemctl is-active nvidia-persistenced" | grep -qx active || fail "hgx02's services were stopped"

# NVIDIA's runfile by hand on hgx02: refused while the services hold the
# module, then for the missing kernel source tree; nothing installed.
node 2 "cat >/tmp/drv.run" <"$RUN" || fail "copy the runfile"
node 2 "sh /tmp/drv.run --silent --dkms" >"$TEST_DIR/out" 2>"$TEST_DIR/err"; rc=$?
[ $rc -eq 1 ] || fail "runfile under nvidia-persistenced: exit $rc"
grep -q "^Uncompressing NVIDIA Accelerated Graphics Driver for Linux-x86_64 $NEW\.\.\." "$TEST_DIR/out" ||
	fail "runfile stdout: $(cat "$TEST_DIR/out")"
head -n 2 "$TEST_DIR/err" >"$TEST_DIR/err2"
printf "ERROR: An NVIDIA kernel module 'nvidia' appears to already be loaded in your\n       kernel.  This may be because it is in use (for example, by an X server, a\n" |
	diff - "$TEST_DIR/err2" >/dev/null || fail "runfile in use: $(cat "$TEST_DIR/err")"
node 2 "systemctl stop nvidia-persistenced nvidia-dcgm nvidia-fabricmanager; sh /tmp/drv.run -s --dkms" \
	>/dev/null 2>"$TEST_DIR/err"; rc=$?
[ $rc -eq 1 ] || fail "runfile without kernel sources: exit $rc"
grep -q "^ERROR: Unable to find the kernel source tree for the currently running kernel\." "$TEST_DIR/err" &&
	grep -q "^ERROR: Installation has failed\.  Please see the file" "$TEST_DIR/err" ||
	fail "runfile without kernel sources: $(cat "$TEST_DIR/err")"
node 2 "cat /var/log/nvidia-installer.log" >"$TEST_DIR/log"
grep -qx "installer version: $NEW" "$TEST_DIR/log" && grep -qx "    --dkms" "$TEST_DIR/log" &&
	grep -q "^ERROR: Unable to find the kernel source tree" "$TEST_DIR/log" || fail "installer log: $(cat "$TEST_DIR/log")"
[ "$(drivers 2)" = "8 $OLD" ] || fail "a failed runfile installed something: $(drivers 2)"
node 2 "systemctl start nvidia-persistenced nvidia-dcgm nvidia-fabricmanager; modprobe nvidia_peermem" ||
	fail "restart hgx02's services"

"$BRINGUP" sim fault hgx02 clear no-kernel-headers >/dev/null || fail "clear no-kernel-headers"
boot3=$(boot_id 3)
out=$(up --resume 2>&1) || fail "resume: $out"
echo "$out" | grep -Eq "^  b1-driver +skipped +hgx01: completed in an earlier attempt" || fail "resume redid batch 1: $out"
for n in 1 2 3; do
	echo "$out" | grep -Eq "^  hgx0$n +upgraded$" || fail "hgx0$n after resume: $out"
	[ "$(drivers $n)" = "8 $NEW" ] || fail "hgx0$n not on $NEW: $(drivers $n)"
	lsmod=$(node $n lsmod)
	echo "$lsmod" | awk '$1 == "nvidia" { print $4 }' | tr , '\n' | grep -qx nvidia_peermem ||
		fail "hgx0$n: nvidia_peermem not bound to nvidia: $lsmod"
	[ "$(node $n 'modinfo -F version nvidia_peermem')" = "$NEW" ] || fail "hgx0$n: nvidia-peermem not the new driver's"
	[ "$(node $n 'systemctl is-active nvidia-persistenced nvidia-dcgm nvidia-fabricmanager' | sort -u)" = active ] ||
		fail "hgx0$n: GPU services not back"
	node $n "/usr/lpp/mmfs/bin/mmgetstate" | grep -q " active" || fail "hgx0$n's GPFS not active"
done
# hgx03 had the driver on disk: a reboot, no install
echo "$out" | grep -q "b3-driver hgx03 output driver $NEW is installed but not running (nvidia-smi: Failed to initialize NVML: Driver/library version mismatch)" ||
	fail "hgx03's plan: $out"
echo "$out" | grep -q "b2-driver hgx02 output installing driver $NEW over $OLD" || fail "hgx02's install: $out"
echo "$out" | grep -q "b3-driver hgx03 output installing" && fail "hgx03's driver installed again: $out"
[ "$(boot_id 3)" != "$boot3" ] || fail "hgx03 did not reboot"

# converged: a second upgrade changes nothing and reboots nothing
boot1=$(boot_id 1)
out=$(up --to driver=$NEW --driver-installer "$RUN" 2>&1) || fail "second run: $out"
for b in 1 2 3; do
	echo "$out" | grep -Eq "^  b$b-driver +ok +hgx0$b" || fail "b$b-driver changed something: $out"
done
[ "$(boot_id 1)" = "$boot1" ] || fail "the second run rebooted hgx01"
exit 0

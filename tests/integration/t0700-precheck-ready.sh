#!/bin/sh
# precheck passes on a healthy (ready) simulated cluster of 64 nodes, and
# its text report says so in one glance.
. "$(dirname "$0")/lib.sh"
sim_up -n 64 --state ready
# A generous per-host limit: 64 hosts gather at once on the test machine, so
# each host takes about the whole run; this test is about the verdict.
out=$("$BRINGUP" precheck -i "$INV" --timeout 300 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "precheck on a ready cluster exited $rc: $out"
echo "$out" | grep -q '^dgx\[01-64\] ' || echo "$out" | grep -q '^precheck: 64 hosts: 64 ok, 0 failed' ||
	fail "no all-ok summary: $out"
echo "$out" | grep -q '^FAIL' && fail "a failure on a ready cluster: $out"
exit 0

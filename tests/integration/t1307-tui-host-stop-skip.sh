#!/bin/sh
# x in the deploy TUI stops one host, after a y (n, the default, leaves it
# be), as a timeout would: its OFED installer (held by install-slow in a
# sleep no other process has) has its remote process group killed while the
# run goes on, the run log says so, the host fails "stopped by WHO" and its
# later stage is skipped. S (with y) skips another host's stages not begun:
# its install under way finishes. The detail pane shows a running host's time
# against its command limit; the event log and the journal say who did what;
# the summary counts the skip; the third host converges.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "the test bundles are x86_64"
sim_up -n 3 --state bare
STATE=$TEST_DIR/state
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/bundles" 4.7-3.2.9.0 rhel7.6 x86_64) || fail "make-bundle"
cat >"$TEST_DIR/pb.yaml" <<YAML
name: control
stages:
  - name: ofed
    module: ofed
    hosts: gpu_worker
    params:
      tarball: $TGZ
  - name: memlock
    module: memlock
    hosts: gpu_worker
YAML
# dgx02's installer sleeps this long: a number no other process has
secs=300.$$
"$BRINGUP" sim fault dgx02 install-slow "$secs" >/dev/null || fail "fault install-slow dgx02"
"$BRINGUP" sim fault dgx03 install-slow 40 >/dev/null || fail "fault install-slow dgx03"

tui_start 120 30 "\$BRINGUP tui -i '$INV' -p '$TEST_DIR/pb.yaml' --state-dir '$STATE'"
i=0
until pgrep -f "sleep $secs" >/dev/null; do
	i=$((i + 1))
	[ $i -le 1200 ] || { screen; fail "dgx02 never ran its installer"; }
	sleep 0.1
done
keys j
wait_screen 'row 2/3'
# elapsed against the limit a command has there (the inventory's 600 s)
wait_screen ' dgx02 · ofed · running [0-9]+:[0-9]+/10:00 · stage'
screen | tail -n 1 | grep -q '^x stop host  S skip host ' || { screen; fail "no host keys in the hint line"; }
keys x
wait_screen 'Stop dgx02\? .*\[y/N\]'
keys n
wait_screen 'dgx02 not stopped'
pgrep -f "sleep $secs" >/dev/null || fail "n stopped dgx02"
keys x
wait_screen 'Stop dgx02\? .*\[y/N\]'
keys y
# gone while the run goes on (dgx03 still installs)
i=0
while pgrep -f "sleep $secs" >/dev/null; do
	i=$((i + 1))
	[ $i -le 100 ] || fail "dgx02's command still runs: $(pgrep -af "sleep $secs")"
	sleep 0.1
done
screen | grep -q '\[DONE\]' && fail "the run ended before dgx02's command was gone"
wait_screen '^dgx02 +✗' 30
# skip dgx03 while its install runs: ofed finishes, memlock is skipped
keys j
wait_screen 'row 3/3'
expect_row dgx03 '^dgx03 +[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]'
keys S
wait_screen 'Skip dgx03\? .*\[y/N\]'
keys y
wait_screen '\[DONE\]' 120
expect_row dgx01 '^dgx01 +● +● *$'
expect_row dgx02 '^dgx02 +✗ +» *$'
expect_row dgx03 '^dgx03 +● +» *$'
keys q
expect_restored 1

run=$STATE/$(readlink "$STATE/last")
ev=$run/events.jsonl
grep -q '"ev":"control",.*"host":"dgx02",.*"msg":"stop by [^"]* (tui, pid [0-9]*): the command running there is stopped' "$ev" ||
	fail "no stop in the event log: $(grep control "$ev")"
grep -q '"ev":"control",.*"host":"dgx03",.*"msg":"skip by [^"]* (tui, pid [0-9]*): ' "$ev" ||
	fail "no skip in the event log: $(grep control "$ev")"
grep -q '"reason": "stopped by [^"]* (tui, pid [0-9]*): .*stopped after [0-9]* s on dgx02 (stage ofed), remote process group [0-9]* ended after SIGTERM' "$run/journal.json" ||
	fail "the journal does not say dgx02 was stopped: $(grep -A3 stopped "$run/journal.json")"
grep -q '"reason": "skipped by [^"]* (tui, pid [0-9]*)"' "$run/journal.json" ||
	fail "the journal does not say dgx03 was skipped"
grep -Eq '^remote process group [0-9]+: ended after SIGTERM$' "$run/hosts/dgx02.log" ||
	fail "the run log does not say the command was stopped: $(tail -n 20 "$run/hosts/dgx02.log")"
T capture-pane -p -S -100 >"$TEST_DIR/pane"
grep -Eq '^  memlock +skipped +dgx03: skipped by .* \(tui, pid [0-9]+\)$' "$TEST_DIR/pane" ||
	fail "the summary does not show the skip: $(cat "$TEST_DIR/pane")"
grep -Eq '^total: .*failed=1 skipped=2' "$TEST_DIR/pane" || fail "summary totals: $(grep total: "$TEST_DIR/pane")"
exit 0

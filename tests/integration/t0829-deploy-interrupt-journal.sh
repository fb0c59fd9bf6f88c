#!/bin/sh
# What an interrupted deploy leaves says what happened (issue 24, item 2).
# One ^C in the middle of a slow OFED install: nothing new starts, the
# install finishes, and the summary counts it as changed (it used to say
# "ofed skipped, changed=0" over an OFED installed on every node); the
# journal says "interrupted". A second ^C while it stops quits at once,
# and the journal still says "interrupted", never "running" (a state no
# later run would ever change); --resume then finishes.
. "$(dirname "$0")/lib.sh"
[ "$(uname -m)" = x86_64 ] || skip x86_64 "the test bundles are x86_64 binaries"
sim_up -n 2 --state bare
STATE=$TEST_DIR/state
NODES=$BRINGUP_SIM_DIR/nodes
FIXTURES=$(cd "$(dirname "$0")/../fixtures/ofed" && pwd)
TGZ=$("$FIXTURES/make-bundle.sh" "$TEST_DIR/b" 4.7-3.2.9.0 rhel7.6 x86_64)
ofed_playbook "$TGZ"
cat >>"$TEST_DIR/pb.yaml" <<'YAML'
  - name: memlock
    module: memlock
    hosts: gpu_worker
YAML
starts() { cat "$NODES"/*/log/installers.log 2>/dev/null | grep -c ' mlnxofedinstall pid='; }
state() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["state"])' "$STATE/last/journal.json"; }
# cut SIGNALS...: a deploy of both nodes, the signals sent 1 s into the
# installs (0.5 s apart); waits for it to end, its output in cut.out
cut() {
	"$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" >"$TEST_DIR/cut.out" 2>&1 &
	pid=$!
	i=0
	until [ "$(starts)" -ge "$1" ]; do
		kill -0 $pid 2>/dev/null || fail "deploy ended before the installs: $(cat "$TEST_DIR/cut.out")"
		i=$((i + 1)); [ $i -lt 600 ] || fail "the installs never started"
		sleep 0.05
	done
	shift
	sleep 1
	for s in "$@"; do kill -"$s" $pid; sleep 0.5; done
	i=0
	while kill -0 $pid 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 600 ] || fail "deploy still runs 60 s after $*"
		sleep 0.1
	done
	wait $pid; RC=$?
}
for n in dgx01 dgx02; do "$BRINGUP" sim fault $n install-slow 4 >/dev/null || fail "install-slow"; done

# 1. one ^C: the installs finish and count
cut 2 INT
[ $RC = 1 ] || fail "one ^C: exit $RC: $(cat "$TEST_DIR/cut.out")"
[ "$(state)" = interrupted ] || fail "one ^C: the journal says $(state)"
grep -Eq '^  ofed +changed +dgx\[01-02\]: interrupted after a change, --resume finishes it: apply: stopped before: .*restart.sh$' "$TEST_DIR/cut.out" ||
	fail "one ^C: the installed OFED is not counted: $(cat "$TEST_DIR/cut.out")"
grep -q '^total: .*changed=2 ' "$TEST_DIR/cut.out" || fail "one ^C: totals: $(cat "$TEST_DIR/cut.out")"
out=$("$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" --resume 2>&1) ||
	fail "resume after one ^C: $out"

# 2. two ^C: quits at once, the journal says interrupted
"$BRINGUP" sim down >/dev/null
rm -rf "$STATE"
sim_up -n 2 --state bare
for n in dgx01 dgx02; do "$BRINGUP" sim fault $n install-slow 4 >/dev/null || fail "install-slow"; done
cut 2 INT INT
[ $RC = 130 ] || fail "two ^C: exit $RC: $(cat "$TEST_DIR/cut.out")"
[ "$(state)" = interrupted ] || fail "two ^C: the journal says $(state)"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$STATE/last/journal.json" || fail "journal unreadable"
ls "$STATE/last/" | grep -q 'tmp' && fail "a temporary journal is left: $(ls "$STATE/last/")"
for n in dgx01 dgx02; do "$BRINGUP" sim fault $n clear install-slow >/dev/null; done
out=$("$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" --resume 2>&1) ||
	fail "resume after two ^C: $out"
out=$("$BRINGUP" deploy -i "$INV" -p "$TEST_DIR/pb.yaml" --state-dir "$STATE" 2>&1) || fail "deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "not converged: $out"
exit 0

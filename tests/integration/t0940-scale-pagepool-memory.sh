#!/bin/sh
# A pagepool larger than the node can hold is refused before any change:
# the simulated DGX-1 reports 512 GiB (MemTotal 528646420 kB, through its
# own /proc/meminfo) and GPFS gives the page pool at most
# pagepoolMaxPhysMemPct (default 75) per cent of it. `deploy --check` and
# a deploy with `pagepool: 2T` in the class's gpfs_config stop at the first
# stage, scale_preflight, naming the inventory key (file:line:column), the
# host, the value and the memory; nothing on any node changes. A page pool
# within the share passes that stage, and a larger pagepoolMaxPhysMemPct
# in the inventory is honoured. precheck's scale.pagepool judges the same.
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state bare
STATE=$TEST_DIR/state
deploy() { "$BRINGUP" deploy -i "$INV" --state-dir "$STATE" "$@"; }
# every file of the cluster and the nodes, but the run's own lease
# (/var/lib/bringup/run.lock*: the cluster lock, taken before any stage)
snapshot() { (cd "$BRINGUP_SIM_DIR" && find cluster nodes/*/state nodes/*/root -type f \
	! -path '*/var/lib/bringup/run.lock*' -exec sha256sum {} + | LC_ALL=C sort); }

sim_ssh 127.0.1.1 'grep "^MemTotal:" /proc/meminfo' | grep -qx 'MemTotal: *528646420 kB' ||
	fail "the node does not report the DGX-1's memory: $(sim_ssh 127.0.1.1 'head -1 /proc/meminfo')"

sed -i 's/^        pagepool: 16G$/        pagepool: 2T/' "$INV"
at=$(grep -n '^        pagepool: 2T$' "$INV" | cut -d: -f1)
[ -n "$at" ] || fail "no pagepool line in the inventory"
want="$INV:$at:9: gpfs_config pagepool 2T is more than dgx01 can hold: its memory is 504.2G (MemTotal 528646420 kB) and GPFS gives the page pool at most 75% of it (pagepoolMaxPhysMemPct), 378.1G; nothing was changed. Lower pagepool to 378.1G or less"
before=$(snapshot)
for mode in --check ""; do
	out=$(deploy $mode 2>&1) && fail "deploy $mode with pagepool 2T succeeded: $out"
	echo "$out" | grep -qF -- "$want" || fail "deploy $mode: no refusal naming key, host, value and memory: $out"
	echo "$out" | grep -Eq '^  ofed +skipped +dgx\[01-02\]: stage scale_preflight: 2 of 2 hosts of a batch failed' ||
		fail "deploy $mode went on past the refusal: $out"
done
[ "$before" = "$(snapshot)" ] || fail "a refused deploy changed a node"
grep -q "ofed\|mmcrcluster\|rpm -i" "$BRINGUP_SIM_DIR"/nodes/dgx0*/log/commands.log &&
	fail "a refused deploy ran a changing command: $(cat "$BRINGUP_SIM_DIR"/nodes/dgx0*/log/commands.log)"

# precheck says the same, per node, read-only
out=$("$BRINGUP" precheck -i "$INV" --checks scale.pagepool) && fail "precheck passed pagepool 2T: $out"
for n in dgx01 dgx02; do
	echo "$out" | grep -q "^FAIL scale.pagepool  *$n" ||
		echo "$out" | grep -q "^FAIL scale.pagepool  *dgx\[01-02\]" || fail "scale.pagepool $n: $out"
done
echo "$out" | grep -qF "gpfs_config pagepool 2T at $INV:$at:9; MemTotal 504.2G" ||
	fail "scale.pagepool does not name key, value and memory: $out"

# 380G: just above 75% of 504.2G
sed -i 's/^        pagepool: 2T$/        pagepool: 380G/' "$INV"
out=$(deploy --check 2>&1) && fail "pagepool 380G passed: $out"
echo "$out" | grep -qF "gpfs_config pagepool 380G is more than dgx02 can hold" || fail "380G: $out"
# the same within a larger share the inventory gives
sed -i 's/^        pagepool: 380G$/        pagepool: 380G\n        pagepoolMaxPhysMemPct: 80/' "$INV"
out=$(deploy --check --tags scale -o json 2>&1)
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
st = {s["name"]: s for s in d["stages"]}
res = {h: v["status"] for h, v in st["scale_preflight"]["hosts"].items()}
assert res == {"dgx01": "ok", "dgx02": "ok"}, res
' || fail "pagepool 380G within pagepoolMaxPhysMemPct 80 refused: $out"
exit 0

#!/bin/sh
# Two precheck checks of issue 11 on one 2-node cluster (one cluster and three
# prechecks keep it short), each failing exactly the host its fault is on:
# - scale.health reads `mmhealth node show`: a GPFS daemon whose connections
#   to another node are all down (GPFS DEGRADED, cluster_connections_down)
#   fails that host and component with the event's message, while the
#   daemon stays active (scale.state passes);
# - peermem.symbols reads the module loader's lines in dmesg: a peer-memory
#   module built against another ib_core cannot load (modprobe: "Unknown
#   symbol in module"); precheck names the module and its unknown symbols
#   (peermem.loaded: not loaded, load failed).
# - peermem.build reads modinfo: a module built for an older kernel that
#   loads through weak-updates warns on that host, naming the kernel and file.
# clear turns them green.
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state ready

pre() {
	"$BRINGUP" precheck -i "$INV" --checks 'scale.*,peermem.*' --timeout "$(slow 30)" \
		-o json --output "$TEST_DIR/$1.json"
}
results() {
	python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("|".join([r["host"], r["check"], r["subject"] or "", r["status"],
                    r.get("found") or "", r.get("detail") or ""]))
PY
}
conf() { sed -n "s/^$2='\(.*\)'$/\1/p" "$BRINGUP_SIM_DIR/nodes/$1/node.conf"; }

expect_status 0 pre healthy
results "$TEST_DIR/healthy.json" >"$TEST_DIR/healthy.txt"
[ "$(grep -c '^dgx0[12]|scale.health||pass|3 components, none degraded or failed|' "$TEST_DIR/healthy.txt")" -eq 2 ] ||
	fail "want both nodes' GPFS healthy: $(cat "$TEST_DIR/healthy.txt")"
[ "$(grep -c '^dgx0[12]|peermem.symbols||pass|no unresolved symbol in the kernel log|' "$TEST_DIR/healthy.txt")" -eq 2 ] ||
	fail "want both nodes' kernel log clean: $(cat "$TEST_DIR/healthy.txt")"
grep -v '|pass|' "$TEST_DIR/healthy.txt" && fail "findings on a healthy cluster"

"$BRINGUP" sim fault dgx02 gpfs-conn-down dgx01 || fail "sim fault gpfs-conn-down"
"$BRINGUP" sim fault dgx01 peermem-bad-symbols || fail "sim fault peermem-bad-symbols"
"$BRINGUP" sim fault dgx02 peermem-weak-updates || fail "sim fault peermem-weak-updates"
mod=$(conf dgx01 PEERMEM_MODULE) addr=$(conf dgx01 NODE_ADDR)
[ -n "$mod" ] && [ -n "$addr" ] || fail "no PEERMEM_MODULE/NODE_ADDR in dgx01's node.conf"
# what an admin sees on the node: modprobe's and dmesg's words (real captures)
sim_ssh "$addr" modprobe "$mod" >"$TEST_DIR/err" 2>&1 && fail "modprobe of a module with unknown symbols succeeded"
grep -qx "modprobe: ERROR: could not insert '$mod': Unknown symbol in module, or unknown parameter (see dmesg)" \
	"$TEST_DIR/err" || fail "modprobe's words: $(cat "$TEST_DIR/err")"
[ "$(sim_ssh "$addr" dmesg | grep -c "\] $mod: Unknown symbol ib_.*_peer_memory_client (err 0)$")" -eq 2 ] ||
	fail "dmesg: $(sim_ssh "$addr" dmesg)"

pre down; rc=$?
[ $rc -eq 1 ] || fail "faults: precheck exited $rc, want 1"
bad=$(results "$TEST_DIR/down.json" | grep -v '|pass|' | cut -d'|' -f1-5 | sort)
ip=$(awk '$2 == "dgx01" { print $3 }' "$BRINGUP_SIM_DIR/cluster/gpfs/nodes")
k2=$(conf dgx02 KERNEL) mod2=$(conf dgx02 PEERMEM_MODULE)
want="dgx01|peermem.loaded||fail|not loaded (load failed)
dgx01|peermem.symbols|$mod|fail|Unknown symbol ib_register_peer_memory_client, ib_unregister_peer_memory_client
dgx02|peermem.build|$mod2|warn|built for 3.10.0-862.el7.x86_64 (/lib/modules/$k2/weak-updates/$mod2.ko)
dgx02|scale.health|GPFS|fail|DEGRADED (cluster_connections_down)"
[ "$bad" = "$want" ] || fail "wrong findings: $bad (want $want)"
results "$TEST_DIR/down.json" | grep -qxF "dgx02|scale.health|GPFS|fail|DEGRADED (cluster_connections_down)|cluster_connections_down: Connection to cluster node $ip has all 1 connection(s) down. (Maximum 1)." ||
	fail "scale.health names the event: $(results "$TEST_DIR/down.json" | grep scale.health)"

"$BRINGUP" sim fault dgx02 clear || fail "clear dgx02"
"$BRINGUP" sim fault dgx01 clear || fail "clear dgx01"
expect_status 0 pre cleared
[ "$(results "$TEST_DIR/cleared.json" | grep -c '|\(scale.health\|peermem.symbols\)||pass|')" -eq 4 ] &&
	[ "$(results "$TEST_DIR/cleared.json" | grep -c '|peermem.build|.*|pass|')" -eq 2 ] ||
	fail "not green after clear: $(results "$TEST_DIR/cleared.json")"
exit 0

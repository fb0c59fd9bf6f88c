#!/bin/sh
# The fabric as cabled against the inventory's plan, on a two-level sim
# fabric (3 leaves of 4 host ports, 2 spines), read once on dgx01: each
# host's `fabric_leaf` (one leaf, a mapping HCA: leaf, or the leaf's GUID)
# holds its ports to their leaf; a port cabled to another leaf (port-moved)
# fails ib.fabric_cabling for exactly that host and port, naming the leaf
# it is on and the one it should be on; a host cabled to another fabric
# (other-fabric) fails ib.fabric_size naming it, and its own ports'
# ib.fabric_links; each clear turns precheck green again.
. "$(dirname "$0")/lib.sh"
sim_up -n 3 --state ready --leaf-ports 4

pre() { fabric_pre "$@"; }
results() { fabric_results "$1" ib.fabric_size ib.fabric_cabling; }

# The plan: dgx01 on leaf01 (one leaf for all its ports), dgx02's ports
# one by one on leaf02, dgx03 on leaf03 named by its GUID.
python3 - "$INV" "$TEST_DIR/planned.yaml" <<'PY'
import sys
inv = open(sys.argv[1]).read()
old = '''  "dgx[01-03]":
    address: "127.0.1.[1-3]"
    hardware: dgx1-edr
'''
new = '''  dgx01:
    address: 127.0.1.1
    hardware: dgx1-edr
    vars: { fabric_leaf: sim-leaf01 }
  dgx02:
    address: 127.0.1.2
    hardware: dgx1-edr
    vars:
      fabric_leaf: { mlx5_0: sim-leaf02, mlx5_1: sim-leaf02, mlx5_2: sim-leaf02, mlx5_3: sim-leaf02 }
  dgx03:
    address: 127.0.1.3
    hardware: dgx1-edr
    vars: { fabric_leaf: "0x7cfe9003005a1e03" }
'''
assert old in inv
inv = inv.replace(old, new) + '''
fabric:
  leaf_switches: 3
  spine_switches: 2
  uplinks_per_leaf: 4
'''
open(sys.argv[2], "w").write(inv)
PY
P=$TEST_DIR/planned.yaml

expect_status 0 pre healthy "$P"
results "$TEST_DIR/healthy.json" | sort >"$TEST_DIR/healthy.txt"
cat >"$TEST_DIR/want.txt" <<'W'
dgx01|ib.fabric_cabling|host ports|pass|12 host ports on their leaves
dgx01|ib.fabric_cabling|sim-leaf01|pass|2 to sim-spine01, 2 to sim-spine02; 4 host ports
dgx01|ib.fabric_cabling|sim-leaf02|pass|2 to sim-spine01, 2 to sim-spine02; 4 host ports
dgx01|ib.fabric_cabling|sim-leaf03|pass|2 to sim-spine01, 2 to sim-spine02; 4 host ports
dgx01|ib.fabric_size|hosts|pass|all 3 (12 CAs in all, ibhosts)
dgx01|ib.fabric_size|switches|pass|3 leaf switches, 2 spine switches
W
diff "$TEST_DIR/want.txt" "$TEST_DIR/healthy.txt" || fail "healthy planned fabric"

# dgx02's mlx5_1 cabled to leaf03 (its first free port, 9)
"$BRINGUP" sim fault dgx02 port-moved mlx5_1:sim-leaf03 || fail "sim fault port-moved"
pre moved "$P"; rc=$?
[ $rc -eq 1 ] || fail "moved port: precheck exited $rc, want 1"
results "$TEST_DIR/moved.json" | grep '|fail|' >"$TEST_DIR/bad.txt"
cat >"$TEST_DIR/want.txt" <<'W'
dgx01|ib.fabric_cabling|dgx02 mlx5_1/1|fail|on sim-leaf03 port 9
W
diff "$TEST_DIR/want.txt" "$TEST_DIR/bad.txt" || fail "wrong findings for the moved port"
python3 - "$TEST_DIR/moved.json" <<'PY' || fail "the moved port's finding does not name its planned leaf"
import json, sys
r = [r for r in json.load(open(sys.argv[1]))["results"] if r["status"] == "fail"][0]
assert r["expected"] == "on sim-leaf02", r
PY
"$BRINGUP" sim fault dgx02 clear port-moved || fail "clear port-moved"
expect_status 0 pre moved-cleared "$P"
results "$TEST_DIR/moved-cleared.json" | sort | diff "$TEST_DIR/healthy.txt" - || fail "not green after clearing port-moved"

# dgx03 cabled to another fabric: its ports are Active (ib.port_state
# passes) but nobody else discovers them. Without the plan (a leaf whose
# hosts are all gone reads as a spine, which the plan would also flag).
expect_status 0 pre plain
"$BRINGUP" sim fault dgx03 other-fabric || fail "sim fault other-fabric"
pre away; rc=$?
[ $rc -eq 1 ] || fail "other fabric: precheck exited $rc, want 1"
results "$TEST_DIR/away.json" | grep '|fail|' | sort >"$TEST_DIR/bad.txt"
cat >"$TEST_DIR/want.txt" <<'W'
dgx01|ib.fabric_size|hosts|fail|2 of them, none of dgx03 (8 CAs in all, ibhosts)
dgx03|ib.fabric_links|mlx5_0/1|fail|not in iblinkinfo
dgx03|ib.fabric_links|mlx5_1/1|fail|not in iblinkinfo
dgx03|ib.fabric_links|mlx5_2/1|fail|not in iblinkinfo
dgx03|ib.fabric_links|mlx5_3/1|fail|not in iblinkinfo
W
diff "$TEST_DIR/want.txt" "$TEST_DIR/bad.txt" || fail "wrong findings for the host on another fabric"
"$BRINGUP" sim fault dgx03 clear other-fabric || fail "clear other-fabric"
expect_status 0 pre away-cleared
results "$TEST_DIR/plain.json" | sort >"$TEST_DIR/plain.txt"
results "$TEST_DIR/away-cleared.json" | sort | diff "$TEST_DIR/plain.txt" - || fail "not green after clearing other-fabric"
exit 0

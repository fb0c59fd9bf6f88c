#!/bin/sh
# The fabric-wide checks, judged once on the fabric-reading host (dgx01) from
# its iblinkinfo, on a two-level sim fabric (3 leaves of 4 host ports, 2
# spines, 2 cables from each leaf to each spine): healthy is green; a
# switch-to-switch cable at 1X (isl-degraded) fails ib.fabric_isl for exactly
# that cable, named by both ends, and nothing else; clear is green again. The
# inventory's fabric section is checked against the reading (switch counts,
# cables per leaf), and a malformed one is refused with file:line:column.
. "$(dirname "$0")/lib.sh"
sim_up -n 3 --state ready --leaf-ports 4

pre() { fabric_pre "$@"; }
results() { fabric_results "$1" ib.fabric_isl ib.fabric_size ib.fabric_cabling; }

expect_status 0 pre healthy
results "$TEST_DIR/healthy.json" >"$TEST_DIR/healthy.txt"
cat >"$TEST_DIR/want.txt" <<'W'
dgx01|ib.fabric_isl||pass|12 links at 4X EDR
dgx01|ib.fabric_size|hosts|pass|all 3 (12 CAs in all, ibhosts)
dgx01|ib.fabric_size|switches|pass|3 leaf switches, 2 spine switches
W
sort "$TEST_DIR/healthy.txt" | diff "$TEST_DIR/want.txt" - || fail "healthy two-level fabric"

"$BRINGUP" sim fault dgx02 isl-degraded sim-leaf02/7 || fail "sim fault isl-degraded"
pre degraded; rc=$?
[ $rc -eq 1 ] || fail "degraded ISL: precheck exited $rc, want 1"
results "$TEST_DIR/degraded.json" | grep '|fail|' >"$TEST_DIR/bad.txt"
cat >"$TEST_DIR/want.txt" <<'W'
dgx01|ib.fabric_isl|sim-leaf02 port 7 <-> sim-spine02 port 3|fail|1X 25.78125 Gbps at sim-leaf02, 1X 25.78125 Gbps at sim-spine02
W
diff "$TEST_DIR/want.txt" "$TEST_DIR/bad.txt" || fail "wrong findings for the degraded ISL"

"$BRINGUP" sim fault dgx02 clear || fail "clear"
expect_status 0 pre cleared
results "$TEST_DIR/cleared.json" | sort | diff "$TEST_DIR/healthy.txt" - || fail "not green after clear"

# The planned cabling, as built: green, one row per leaf.
cp "$INV" "$TEST_DIR/planned.yaml"
cat >>"$TEST_DIR/planned.yaml" <<'Y'
fabric:
  leaf_switches: 3
  spine_switches: 2
  host_ports_per_leaf: 4
  uplinks_per_leaf: 4
  isl_rate: 4X EDR
Y
expect_status 0 pre planned "$TEST_DIR/planned.yaml"
[ "$(results "$TEST_DIR/planned.json" | grep -c '^dgx01|ib.fabric_cabling|sim-leaf0[1-3]|pass|2 to sim-spine01, 2 to sim-spine02; 4 host ports$')" -eq 3 ] ||
	fail "planned cabling: $(results "$TEST_DIR/planned.json")"

# A plan the fabric does not match: a leaf too many, 6 uplinks a leaf.
sed -e 's/^  leaf_switches: 3$/  leaf_switches: 4/' -e 's/^  uplinks_per_leaf: 4$/  uplinks_per_leaf: 6/' \
	"$TEST_DIR/planned.yaml" >"$TEST_DIR/mismatch.yaml"
pre mismatch "$TEST_DIR/mismatch.yaml"; rc=$?
[ $rc -eq 1 ] || fail "fabric mismatch: precheck exited $rc, want 1"
results "$TEST_DIR/mismatch.json" | grep '|fail|' >"$TEST_DIR/bad.txt"
cat >"$TEST_DIR/want.txt" <<'W'
dgx01|ib.fabric_size|switches|fail|3 leaf switches, 2 spine switches
dgx01|ib.fabric_cabling|sim-leaf01|fail|2 cables to sim-spine01; 2 cables to sim-spine02; 4 uplinks (seen: 2 to sim-spine01, 2 to sim-spine02; 4 host ports)
dgx01|ib.fabric_cabling|sim-leaf02|fail|2 cables to sim-spine01; 2 cables to sim-spine02; 4 uplinks (seen: 2 to sim-spine01, 2 to sim-spine02; 4 host ports)
dgx01|ib.fabric_cabling|sim-leaf03|fail|2 cables to sim-spine01; 2 cables to sim-spine02; 4 uplinks (seen: 2 to sim-spine01, 2 to sim-spine02; 4 host ports)
W
diff "$TEST_DIR/want.txt" "$TEST_DIR/bad.txt" || fail "wrong findings for the fabric mismatch"

# uplinks_per_leaf must spread evenly over the spines: refused where it stands.
sed 's/^  uplinks_per_leaf: 4$/  uplinks_per_leaf: 3/' "$TEST_DIR/planned.yaml" >"$TEST_DIR/uneven.yaml"
line=$(grep -n '^  uplinks_per_leaf: 3$' "$TEST_DIR/uneven.yaml" | cut -d: -f1)
"$BRINGUP" inventory check -i "$TEST_DIR/uneven.yaml" >"$TEST_DIR/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "uneven uplinks: inventory check exited $rc, want 2"
grep -q "uneven.yaml:$line:21: found uplinks_per_leaf 3 in fabric, expected a multiple of spine_switches (2)" \
	"$TEST_DIR/out" || fail "uneven uplinks: $(cat "$TEST_DIR/out")"
exit 0

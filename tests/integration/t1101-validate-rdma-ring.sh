#!/bin/sh
# --pairs ring: every node meets its two neighbours in 2 rounds of disjoint
# pairs (4 nodes), every edge once; a port that is down (port-down on dgx02
# mlx5_0) fails against both neighbours and is attributed to that host and
# port alone, its neighbours passing against their other side.
. "$(dirname "$0")/lib.sh"
sim_up -n 4 --state ready
sed -i 's/^    compute_hcas: .*/    compute_hcas: [mlx5_0]/' "$INV"
printf '\nvalidate:\n  tries: 1\n  rdma:\n    duration: 1\n' >>"$INV"
"$BRINGUP" sim fault dgx02 port-down mlx5_0 >/dev/null || fail "fault"
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage rdma --pairs ring -o json --output "$TEST_DIR/r.json"
python3 - "$TEST_DIR/r.json" <<'PY' || fail "ring report"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
assert s["pairs_mode"] == "ring" and s["round_count"] == 2, s["rounds"]
edges = []
for r in s["rounds"]:
    names = [h for p in r["pairs"] for h in p]
    assert len(names) == len(set(names)) == 4, r
    edges += [tuple(sorted(p)) for p in r["pairs"]]
assert sorted(edges) == [("dgx01", "dgx02"), ("dgx01", "dgx04"), ("dgx02", "dgx03"), ("dgx03", "dgx04")], edges
f = [(x["status"], x["host"], x["subject"]) for x in s["findings"]]
assert f == [("fail", "dgx02", "mlx5_0/1")], f
bad = sorted((r["server"], r["client"]) for r in s["results"] if r["status"] != "pass")
assert bad == [("dgx01", "dgx02"), ("dgx02", "dgx03")], bad
assert all("RTR" in r["error"] or "Unable" in r["error"] for r in s["results"] if r["status"] != "pass")
PY
exit 0

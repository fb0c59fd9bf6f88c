#!/bin/sh
# bringup validate's rdma stage: on a healthy cluster every pair of nodes
# meets once, in N-1 rounds of disjoint pairs, on every compute HCA port,
# and passes; one port degraded to 1X (link-degraded) is attributed to that
# host and port and nothing else, with every try recorded. Bad usage and a
# bad `validate:` key exit 2, the key's file:line:col named.
. "$(dirname "$0")/lib.sh"
sim_up -n 4 --state ready
# Two of the four ports and two tries keep the test short on a loaded machine.
sed -i 's/^    compute_hcas: .*/    compute_hcas: [mlx5_0, mlx5_1]/' "$INV"
cat >>"$INV" <<'YAML'

validate:
  tries: 2
  rdma:
    duration: 1
YAML

expect_status 0 "$BRINGUP" validate --no-baseline -i "$INV" --stage rdma -o json --output "$TEST_DIR/ok.json"
python3 - "$TEST_DIR/ok.json" <<'PY' || fail "healthy report"
import json, sys, itertools
d = json.load(open(sys.argv[1]))
assert d["status"] == "pass", d["status"]
s = d["stages"][0]
assert s["stage"] == "rdma" and s["status"] == "pass" and not s["findings"], s["findings"]
assert s["round_count"] == 3 and len(s["rounds"]) == 3, s["rounds"]
met = []
for r in s["rounds"]:
    names = [h for p in r["pairs"] for h in p]
    assert len(names) == len(set(names)) == 4, "round pairs not disjoint: %s" % r
    met += [tuple(sorted(p)) for p in r["pairs"]]
want = list(itertools.combinations(["dgx01", "dgx02", "dgx03", "dgx04"], 2))
assert sorted(met) == sorted(want), met
res = s["results"]
assert len(res) == 6 * 2, len(res)
for r in res:
    assert r["status"] == "pass" and 90 <= r["pct"] <= 100 and len(r["tries"]) == 1, r
# the stand-in's noise: not every figure is the same
assert len({r["gbps"] for r in res}) > 1
PY

"$BRINGUP" sim fault dgx03 link-degraded mlx5_1 >/dev/null || fail "fault"
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage rdma -o json --output "$TEST_DIR/ld.json"
"$BRINGUP" sim fault dgx03 clear >/dev/null
python3 - "$TEST_DIR/ld.json" <<'PY' || fail "link-degraded attribution"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
f = s["findings"]
assert [(x["status"], x["host"], x["subject"]) for x in f] == [("fail", "dgx03", "mlx5_1/1")], f
bad = [r for r in s["results"] if r["status"] != "pass"]
assert len(bad) == 3 and all("dgx03" in (r["server"], r["client"]) and r["hca"] == "mlx5_1" for r in bad), bad
for r in bad:
    # 1X EDR: a quarter of the rate, tried again, every try kept
    assert 20 < r["gbps"] < 26 and len(r["tries"]) == 2, r
    assert [t["try"] for t in r["tries"]] == [1, 2]
PY
# cleared: the pair that failed passes again (one round, JUnit this time)
"$BRINGUP" validate --no-baseline -i "$INV" -l dgx02,dgx03 --stage rdma -o junit --output "$TEST_DIR/ok.xml" ||
	fail "cleared fault must pass again"
grep -q '<testsuite name="validate.rdma" tests="1" failures="0"' "$TEST_DIR/ok.xml" || fail "junit"

expect_status 2 "$BRINGUP" validate --no-baseline -i "$INV" --stage nosuch 2>/dev/null
expect_status 2 "$BRINGUP" validate --no-baseline -i "$INV" --pairs star 2>/dev/null
cat >>"$INV" <<'YAML'
  nccl:
    max_bytes: lots
YAML
"$BRINGUP" validate --no-baseline -i "$INV" 2>"$TEST_DIR/err"
[ $? -eq 2 ] || fail "bad validate key must exit 2"
line=$(grep -n 'max_bytes: lots' "$INV" | cut -d: -f1)
grep -q "$INV:$line:16: found lots for 'max_bytes' in validate.nccl" "$TEST_DIR/err" || fail "error: $(cat "$TEST_DIR/err")"
exit 0

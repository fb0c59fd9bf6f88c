#!/bin/sh
# bringup validate's nccl stage across nodes, through the real Open MPI
# mpirun (openmpi-bin) started on the first node and reaching the others
# over SSH with the simulated cluster's node-to-node key: on a healthy
# 3-node cluster the variants 2x8 (16 ranks on dgx01-02) and Nx1 (3 ranks)
# pass with their figures in the JSON, every rank on NET/IB with GDRDMA.
# Node-to-node SSH refused by dgx03 (peer-ssh-denied) fails precheck's
# ssh.peer naming the pair, and validate says it cannot run mpirun and why.
# GPUDirect missing on dgx03 fails Nx1, blamed on dgx03 only (from its
# ranks' NCCL INFO lines), while 2x8 on dgx01-02 passes.
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null && command -v orted >/dev/null ||
	skip openmpi-bin "mpirun/orted, the launcher the nodes use"
sim_up -n 3 --state ready
cat >>"$INV" <<'YAML'

validate:
  tries: 1
  nccl:
    variants: 2x8,Nx1
YAML

expect_status 0 "$BRINGUP" validate --no-baseline -i "$INV" --stage nccl -o json --output "$TEST_DIR/ok.json"
python3 - "$TEST_DIR/ok.json" <<'PY' || fail "healthy multi-node report"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
assert s["status"] == "pass" and not s["findings"], s["findings"]
assert "no multi-node" not in s["scope"], s["scope"]
mn = {r["variant"]: r for r in s["multi_node"]}
assert sorted(mn) == ["2x8", "Nx1"], mn.keys()
a, b = mn["2x8"], mn["Nx1"]
assert a["nodes"] == ["dgx01", "dgx02"] and a["ranks"] == 16 and a["gpus_per_node"] == 8, a
assert b["nodes"] == ["dgx01", "dgx02", "dgx03"] and b["ranks"] == 3, b
for r in (a, b):
    assert r["status"] == "pass" and r["launcher"] == "dgx01", r
    # 4x EDR per node: 85% of 50 GB/s; one EDR port for one GPU: of 12.5
    assert r["min_busbw_gbps"] == (42.5 if r is a else 10.625), r
    assert r["min_busbw_gbps"] <= r["busbw_gbps"] < r["min_busbw_gbps"] / 0.85, r
    assert 10 < r["latency_us"] < 100, r
    assert len(r["curve"]) == 26 and r["curve"][-1][0] == 268435456, r["curve"]
    assert sorted(r["hosts"]) == r["nodes"], r["hosts"]
    for h, i in r["hosts"].items():
        assert i["network"] == "IB" and set(i["transports"]) <= {"P2P/IPC", "NET/IB/GDRDMA"}, (h, i)
        assert i["transports"]["NET/IB/GDRDMA"] >= 1, (h, i)
PY

"$BRINGUP" sim fault dgx03 peer-ssh-denied >/dev/null || fail "fault peer-ssh-denied"
expect_status 1 "$BRINGUP" precheck -i "$INV" --checks ssh.peer -o json --output "$TEST_DIR/pre.json"
python3 - "$TEST_DIR/pre.json" <<'PY' || fail "ssh.peer names the pair"
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert sorted((x["host"], x["subject"], x["status"]) for x in r) == [
    ("dgx01", "dgx01 -> dgx02", "pass"), ("dgx01", "dgx01 -> dgx03", "fail")], r
bad = [x for x in r if x["status"] == "fail"][0]
assert "Permission denied (publickey)" in bad["found"], bad
assert "mpirun" in bad["detail"], bad
PY
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage nccl -o json --output "$TEST_DIR/peer.json"
python3 - "$TEST_DIR/peer.json" <<'PY' || fail "validate without node-to-node SSH"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
f = s["findings"]
assert [(x["host"], x["subject"]) for x in f] == [("dgx01", "mpirun")], f
m = f[0]["message"]
assert "cannot run mpirun" in m and "dgx01 -> dgx03 refused" in m and "Permission denied" in m, m
assert "dgx02" not in m and s["multi_node"] == [], s["multi_node"]
PY
"$BRINGUP" sim fault dgx03 clear >/dev/null || fail "clear"

"$BRINGUP" sim fault dgx03 gdr-missing >/dev/null || fail "fault gdr-missing"
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage nccl -o json --output "$TEST_DIR/gdr.json"
python3 - "$TEST_DIR/gdr.json" <<'PY' || fail "a fault on one node"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
assert {x["host"] for x in s["findings"]} == {"dgx03"}, s["findings"]
mn = {r["variant"]: r for r in s["multi_node"]}
assert mn["2x8"]["status"] == "pass", mn["2x8"]
b = mn["Nx1"]
assert b["status"] == "fail" and list(b["nodes_at_fault"]) == ["dgx03"], b
assert b["busbw_gbps"] < b["min_busbw_gbps"], b
f = [x for x in s["findings"] if x["subject"] == "mpirun Nx1"]
assert len(f) == 1 and "without GDRDMA" in f[0]["message"] and "bus bandwidth" in f[0]["message"], f
PY
exit 0

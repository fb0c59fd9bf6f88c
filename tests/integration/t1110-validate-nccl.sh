#!/bin/sh
# bringup validate's nccl stage: on a healthy cluster every node passes
# (NVLink bus bandwidth by GPU model, tens of microseconds, NET/IB with
# GDRDMA through the HCAs); each seeded fault is attributed to its host
# (and GPU) and to nothing else: a throttled GPU (gpu-throttle 3), NCCL
# falling back to sockets (nccl-socket-fallback), GPUDirect RDMA missing
# (gdr-missing). Every try of a failing run is kept. A host that does not
# answer makes the run exit 3, as precheck does, and is named unreachable.
. "$(dirname "$0")/lib.sh"
sim_up -n 4 --state ready
cat >>"$INV" <<'YAML'

validate:
  tries: 2
  nccl:
    mpirun: false  # per node only here; across nodes: t1150
YAML

expect_status 0 "$BRINGUP" validate --no-baseline -i "$INV" --stage nccl -o json --output "$TEST_DIR/ok.json"
python3 - "$TEST_DIR/ok.json" <<'PY' || fail "healthy report"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
assert s["stage"] == "nccl" and s["status"] == "pass" and not s["findings"], s["findings"]
assert len(s["results"]) == 8, len(s["results"])
for r in s["results"]:
    assert r["status"] == "pass" and len(r["tries"]) == 1, r
    assert r["network"] == "IB" and r["latency_us"] < 100, r
    if r["run"] == "net":
        assert r["transports"] == {"NET/IB/GDRDMA": 8}, r
    else:
        assert 110 <= r["busbw_gbps"] < 140, r  # DGX-1V, ~130 GB/s published
PY

"$BRINGUP" sim fault dgx02 gpu-throttle 3 >/dev/null &&
"$BRINGUP" sim fault dgx03 nccl-socket-fallback >/dev/null &&
"$BRINGUP" sim fault dgx04 gdr-missing >/dev/null || fail "faults"
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage nccl -o json --output "$TEST_DIR/bad.json"
python3 - "$TEST_DIR/bad.json" <<'PY' || fail "attribution"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
by = {}
for f in s["findings"]:
    assert f["status"] == "fail", f
    by.setdefault(f["host"], []).append(f)
assert sorted(by) == ["dgx02", "dgx03", "dgx04"], by
assert all(f["subject"] == "GPU 3" for f in by["dgx02"]), by["dgx02"]
assert any("nvlink" in f["message"] and "bus bandwidth" in f["message"] for f in by["dgx02"])
assert [f["subject"] for f in by["dgx03"]] == [None], by["dgx03"]
m = by["dgx03"][0]["message"]
assert "NET/Socket" in m and "Ethernet" in m, m
assert [f["subject"] for f in by["dgx04"]] == [None], by["dgx04"]
assert "without GDRDMA" in by["dgx04"][0]["message"], by["dgx04"]
for r in s["results"]:
    if r["status"] == "fail":
        assert [t["try"] for t in r["tries"]] == [1, 2], r
PY
for n in dgx02 dgx03 dgx04; do "$BRINGUP" sim fault $n clear >/dev/null; done
"$BRINGUP" sim fault dgx04 unreachable >/dev/null || fail "fault unreachable"
expect_status 3 "$BRINGUP" validate --no-baseline -i "$INV" --stage nccl -o json --output "$TEST_DIR/unr.json"
python3 - "$TEST_DIR/unr.json" <<'PY' || fail "unreachable"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["stages"][0]["findings"]
assert d["status"] == "unreachable", d["status"]
assert [(x["status"], x["host"]) for x in f] == [("unreachable", "dgx04")], f
assert {r["host"] for r in d["stages"][0]["results"]} == {"dgx01", "dgx02", "dgx03"}
PY
exit 0

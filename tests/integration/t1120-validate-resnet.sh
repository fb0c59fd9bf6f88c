#!/bin/sh
# bringup validate's resnet stage with its default benchmark, NVIDIA
# DeepLearningExamples' PyTorch ResNet-50 (AMP), through the real OpenSSH
# of the simulated cluster and the real Open MPI mpirun across nodes.
# Healthy: every node scales from 1 to 8 GPUs above the efficiency line,
# then one run on all 3 nodes (mpirun from dgx01, one multiproc.py a node)
# gives the cluster figure, measured, above the line against 3 x 8 x the
# 1-GPU figure; nobody is named. One GPU throttled (gpu-throttle 3 on
# dgx02) fails exactly that node, naming GPU 3, the fleet comparison names
# dgx02 as the node that drags, and the run across nodes fails on dgx02
# (naming GPU 3) and on nothing else.
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null && command -v orted >/dev/null ||
	skip openmpi-bin "mpirun/orted, the launcher the nodes use"
sim_up -n 3 --state ready
cat >>"$INV" <<'YAML'

validate:
  tries: 1
  resnet:
    num_batches: 40
YAML

expect_status 0 "$BRINGUP" validate --no-baseline -i "$INV" --stage resnet -o json --output "$TEST_DIR/ok.json"
python3 - "$TEST_DIR/ok.json" <<'PY' || fail "healthy report"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
assert s["stage"] == "resnet" and s["status"] == "pass" and not s["findings"], s["findings"]
assert s["benchmark"] == "dle", s["benchmark"]
assert len(s["results"]) == 3
for r in s["results"]:
    assert [x["gpus"] for x in r["steps"]] == [1, 2, 4, 8], r
    # V100 with AMP: ~1,150 img/s a GPU (DLE's own V100 tables)
    assert 1000 < r["steps"][0]["images_per_sec"] < 1300, r
    assert 85 < r["efficiency_pct"] <= 100, r
m = s["multi_node"]
assert m["status"] == "pass" and m["launcher"] == "dgx01", m
assert m["nodes"] == ["dgx01", "dgx02", "dgx03"] and m["gpus"] == 24, m
assert m["images_per_sec"] == s["cluster_images_per_sec"], (m, s["cluster_images_per_sec"])
# measured, not the sum: a scaling loss across nodes shows
assert s["cluster_images_per_sec"] < s["sum_images_per_sec"], s
assert 80 <= m["efficiency_pct"] < 95, m
assert abs(m["ideal_images_per_sec"] - 24 * m["one_gpu_images_per_sec"]) < 1, m
PY

"$BRINGUP" sim fault dgx02 gpu-throttle 3 >/dev/null || fail "fault"
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage resnet -o json --output "$TEST_DIR/bad.json"
python3 - "$TEST_DIR/bad.json" <<'PY' || fail "attribution"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
f = s["findings"]
assert {x["host"] for x in f} == {"dgx02"}, f
fails = [x for x in f if x["status"] == "fail"]
assert sorted(x["subject"] for x in fails) == ["GPU 3", "mpirun 3x8"], fails
assert any(x["status"] == "warn" and "drags" in x["message"] for x in f), f
m = s["multi_node"]
assert m["status"] == "fail" and m["drags"] == "dgx02" and m["efficiency_pct"] < 80, m
mf = [x for x in fails if x["subject"] == "mpirun 3x8"][0]["message"]
assert "dgx02 drags it" in mf and "GPU 3" in mf and "GPU 3," not in mf, mf
PY
exit 0

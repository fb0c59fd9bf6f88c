#!/bin/sh
# bringup validate's resnet stage with benchmark tf_cnn (tf_cnn_benchmarks,
# the Redpaper's): per node on 1-8 GPUs at the V100's ~360 img/s a GPU, then
# across all 3 nodes as a Horovod job under the real Open MPI mpirun (24
# ranks, one a GPU, started from dgx01 over SSH): rank 0's total is the
# cluster figure, above the efficiency line, and less than the sum of the
# nodes (measured, not added up). Node-to-node SSH refused by dgx03
# (peer-ssh-denied) leaves the per-node runs alone and fails the run across
# nodes on the launcher, naming the refused pair.
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null && command -v orted >/dev/null ||
	skip openmpi-bin "mpirun/orted, the launcher the nodes use"
sim_up -n 3 --state ready
cat >>"$INV" <<'YAML'

validate:
  tries: 1
  resnet:
    benchmark: tf_cnn
    num_batches: 30
YAML

expect_status 0 "$BRINGUP" validate --no-baseline -i "$INV" --stage resnet -o json --output "$TEST_DIR/ok.json"
python3 - "$TEST_DIR/ok.json" <<'PY' || fail "healthy Horovod report"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
assert s["status"] == "pass" and not s["findings"], s["findings"]
assert s["benchmark"] == "tf_cnn", s["benchmark"]
for r in s["results"]:
    assert 340 < r["steps"][0]["images_per_sec"] < 380, r
m = s["multi_node"]
assert m["status"] == "pass" and m["gpus"] == 24 and m["launcher"] == "dgx01", m
assert s["cluster_images_per_sec"] == m["images_per_sec"] < s["sum_images_per_sec"], s
assert 80 <= m["efficiency_pct"] < 95, m
PY

"$BRINGUP" sim fault dgx03 peer-ssh-denied >/dev/null || fail "fault peer-ssh-denied"
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage resnet -o json --output "$TEST_DIR/peer.json"
python3 - "$TEST_DIR/peer.json" <<'PY' || fail "no node-to-node SSH"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
f = s["findings"]
assert [(x["host"], x["subject"]) for x in f] == [("dgx01", "mpirun")], f
m = f[0]["message"]
assert "cannot run ResNet-50 across nodes" in m and "dgx01 -> dgx03 refused" in m, m
assert all(85 < r["efficiency_pct"] for r in s["results"]), s["results"]
assert s["cluster_images_per_sec"] is None and s["multi_node"]["status"] == "fail", s
PY
exit 0

#!/bin/sh
# bringup validate's resnet stage: on a healthy cluster every node scales
# from 1 to 8 GPUs above the efficiency line and nobody is named; one GPU
# throttled (gpu-throttle 3 on dgx02) fails exactly that node, naming GPU 3,
# and the fleet comparison names dgx02 as the node that drags.
. "$(dirname "$0")/lib.sh"
sim_up -n 3 --state ready

expect_status 0 "$BRINGUP" validate --no-baseline -i "$INV" --stage resnet -o json --output "$TEST_DIR/ok.json"
python3 - "$TEST_DIR/ok.json" <<'PY' || fail "healthy report"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
assert s["stage"] == "resnet" and s["status"] == "pass" and not s["findings"], s["findings"]
assert len(s["results"]) == 3
for r in s["results"]:
    assert [x["gpus"] for x in r["steps"]] == [1, 2, 4, 8], r
    # V100: ~360 img/s per GPU (the Redpaper: 7,096 on 8 V100 with ResNet-50 in TF)
    assert 340 < r["steps"][0]["images_per_sec"] < 380, r
    assert 85 < r["efficiency_pct"] <= 100, r
PY

"$BRINGUP" sim fault dgx02 gpu-throttle 3 >/dev/null || fail "fault"
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage resnet -o json --output "$TEST_DIR/bad.json"
python3 - "$TEST_DIR/bad.json" <<'PY' || fail "attribution"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
f = s["findings"]
assert {x["host"] for x in f} == {"dgx02"}, f
fails = [x for x in f if x["status"] == "fail"]
assert len(fails) == 1 and fails[0]["subject"] == "GPU 3", fails
assert any(x["status"] == "warn" and "drags" in x["message"] for x in f), f
PY
exit 0

#!/bin/sh
# bringup validate keeps the first passing run as the cluster's baseline in
# its state directory and compares later runs with it: a figure that fell
# more than baseline_drop_pct below it warns (exit 0, the threshold still
# met), naming the host and what was measured; a failing first run stores
# nothing.
. "$(dirname "$0")/lib.sh"
sim_up -n 3 --state ready
cat >>"$INV" <<'YAML'

validate:
  resnet:
    mpirun: false  # per node only here; across nodes: t1120
YAML
ST=$TEST_DIR/state
B=$ST/validate-baseline.json

"$BRINGUP" sim fault dgx02 gpu-throttle 3 >/dev/null || fail "fault"
expect_status 1 "$BRINGUP" validate -i "$INV" --stage resnet --state-dir "$ST" -o json --output "$TEST_DIR/0.json"
[ -e "$B" ] && fail "a failing run must not become the baseline"
"$BRINGUP" sim fault dgx02 clear >/dev/null

expect_status 0 "$BRINGUP" validate -i "$INV" --stage resnet --state-dir "$ST" -o json --output "$TEST_DIR/1.json"
[ -s "$B" ] || fail "the first passing run is the baseline"
python3 - "$TEST_DIR/1.json" "$B" <<'PY' || fail "stored baseline"
import json, sys
d, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d["baseline"]["stored"] is True, d["baseline"]
assert b["cluster"] == "sim" and len(b["figures"]) == 3 * 4, b
# DLE ResNet-50 with AMP on 8 V100: ~1,150 img/s a GPU, 92% scaling
assert 7500 < b["figures"]["resnet:dgx01:8"] < 9500, b
# pretend dgx01 once ran 30% faster on 8 GPUs
b["figures"]["resnet:dgx01:8"] *= 1.3
json.dump(b, open(sys.argv[2], "w"))
PY
expect_status 0 "$BRINGUP" validate -i "$INV" --stage resnet --state-dir "$ST" -o json --output "$TEST_DIR/2.json"
python3 - "$TEST_DIR/2.json" <<'PY' || fail "comparison"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["baseline"]["compared"] == 12 and "stored" not in d["baseline"], d["baseline"]
f = d["stages"][0]["findings"]
assert [(x["status"], x["host"], x["subject"]) for x in f] == [("warn", "dgx01", "8")], f
assert "below the baseline" in f[0]["message"], f
assert d["status"] == "warn"
PY
exit 0

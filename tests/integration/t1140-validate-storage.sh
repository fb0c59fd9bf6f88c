#!/bin/sh
# bringup validate's storage stage (fio, sequential 1 MiB direct I/O): on a
# healthy cluster every client passes and the aggregate read grows with the
# number of nodes up to the storage limit given; one slow storage client
# (storage-slow on dgx02) fails exactly that node, for writes and reads.
. "$(dirname "$0")/lib.sh"
sim_up -n 3 --state ready
cat >>"$INV" <<'YAML'

validate:
  storage:
    directory: /tmp
    runtime: 1
    limit_mbps: 40000
YAML

expect_status 0 "$BRINGUP" validate --no-baseline -i "$INV" --stage storage -o json --output "$TEST_DIR/ok.json"
python3 - "$TEST_DIR/ok.json" <<'PY' || fail "healthy report"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
assert s["stage"] == "storage" and s["status"] == "pass" and not s["findings"], s["findings"]
for r in s["results"]:
    # three clients share the ESS3000's 40 GB/s read and 26 GB/s write
    assert 11000 < r["read_mbps"] < 12500 and 7500 < r["write_mbps"] < 8500, r
sc = s["scaling"]
assert [x["nodes"] for x in sc] == [1, 2, 3], sc
assert sc[0]["read_mbps"] < sc[1]["read_mbps"] < sc[2]["read_mbps"], sc
PY
# fio's files are gone afterwards
"$BRINGUP" exec -i "$INV" -- 'ls -d /tmp/bringup-validate-* 2>/dev/null | wc -l' | grep -qx 0 ||
	fail "fio left its files behind"

"$BRINGUP" sim fault dgx02 storage-slow >/dev/null || fail "fault"
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage storage -o json --output "$TEST_DIR/bad.json"
python3 - "$TEST_DIR/bad.json" <<'PY' || fail "attribution"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
f = [(x["status"], x["host"], x["subject"]) for x in s["findings"]]
assert f == [("fail", "dgx02", "write"), ("fail", "dgx02", "read")], f
PY

# nowhere to write: a usage error naming the first such host (the message
# was once made from a freed array: make asan catches that)
sed '/^    gpfs_mount_point: /d; /^    directory: /d' "$INV" >"$TEST_DIR/nodir.yaml"
out=$("$BRINGUP" validate --no-baseline -i "$TEST_DIR/nodir.yaml" --stage storage 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "validate storage: host dgx01: no directory to test" ||
	fail "no storage directory: exit $rc: $out"
exit 0

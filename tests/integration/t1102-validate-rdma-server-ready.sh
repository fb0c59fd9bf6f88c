#!/bin/sh
# perftest's client tries its connect once, and its server waits for a
# client forever. So validate's rdma stage starts a pair's client only once
# the server side is listening, and stops a server whose client is gone:
# - a server node slow to start its commands (fault slow 5: longer than
#   the client's connect tries) still passes, where starting both ends at
#   once failed the pair;
# - a client that cannot connect fails with its own words, and its server
#   is stopped shortly after, not at the end of duration + slack.
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state ready
sed -i 's/^    compute_hcas: .*/    compute_hcas: [mlx5_0]/' "$INV"
cp "$INV" "$TEST_DIR/base.yaml"
printf '\nvalidate:\n  tries: 1\n  rdma:\n    duration: 1\n    slack: 60\n' >>"$INV"

# dgx01 is the server of the only pair.
"$BRINGUP" sim fault dgx01 slow 5 >/dev/null || fail "fault"
out=$("$BRINGUP" validate --no-baseline -i "$INV" --stage rdma -o json --output "$TEST_DIR/slow.json" 2>&1) ||
	fail "a slow server failed the pair: $out $(cat "$TEST_DIR/slow.json")"
python3 - "$TEST_DIR/slow.json" <<'PY' || fail "slow-server report"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
assert [r["status"] for r in s["results"]] == ["pass"], s["results"]
PY
"$BRINGUP" sim fault dgx01 clear >/dev/null || fail "clear"

# The client's end (it names the server's address) cannot connect.
cat >>"$INV" <<'YAML'
    command: "f() { case \"$*\" in *127.0.1.*) echo \"Couldn't connect to ${*##* }:18515\" >&2; return 1;; esac; ib_write_bw \"$@\"; }; f"
YAML
expect_status 1 "$BRINGUP" validate --no-baseline -i "$INV" --stage rdma -o json --output "$TEST_DIR/cut.json"
python3 - "$TEST_DIR/cut.json" <<'PY' || fail "client-cannot-connect report"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
r = s["results"]
assert len(r) == 1 and r[0]["status"] == "fail", r
assert r[0]["error"].startswith("Couldn't connect to 127.0.1.1:"), r[0]["error"]
# duration 1 + slack 60 is when both ends would be killed; the server is
# stopped once its client has been gone for the grace period (10 s).
assert s["rounds"][0]["wall_s"] < 40, s["rounds"]
PY
exit 0

#!/bin/sh
# The validation as playbook stages (playbooks/validate.yaml, module
# validate): on a healthy cluster validate_rdma and validate_storage are ok
# and change nothing; one port degraded to 1X (link-degraded) fails
# validate_rdma naming that host and port, and the run stops there
# (max_fail_percent 0: validate_storage never starts). Under --check
# nothing is measured.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
sim_up -n 3 --state ready
sed -i 's/^    compute_hcas: .*/    compute_hcas: [mlx5_0, mlx5_1]/' "$INV"
cat >>"$INV" <<'YAML'

validate:
  tries: 2
  rdma:
    duration: 1
  storage:
    runtime: 2
    size: 64M
YAML
run() {
	"$BRINGUP" deploy -i "$INV" -p "$root/playbooks/validate.yaml" --state-dir "$TEST_DIR/state" \
		--skip-tags nccl,resnet "$@"
}

out=$(run --check 2>&1) || fail "--check: $out"
echo "$out" | grep -Eq "^  validate_rdma +skipped +localhost: benchmarks run in a real deploy" ||
	fail "--check measured: $out"

out=$(run -o json 2>&1) || fail "healthy cluster: $out"
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
st = {s["name"]: s["hosts"]["localhost"] for s in d["stages"] if "localhost" in s["hosts"]}
assert st["validate_rdma"]["status"] == "ok", st
assert st["validate_storage"]["status"] == "ok", st
assert d["totals"]["changed"] == 0 and d["totals"]["failed"] == 0, d["totals"]
' || fail "healthy report: $out"

"$BRINGUP" sim fault dgx02 link-degraded mlx5_1 >/dev/null || fail "fault"
out=$(run 2>&1); rc=$?
[ $rc -eq 1 ] || fail "a degraded port should fail the run (exit 1), got $rc: $out"
echo "$out" | grep -Eq "^  validate_rdma +failed +localhost: .*rdma: dgx02 mlx5_1/1" ||
	fail "the failure does not name dgx02's port: $out"
echo "$out" | grep -Eq "rdma: dgx0[13] " && fail "an innocent node was named: $out"
echo "$out" | grep -Eq "^  validate_storage +skipped" || fail "the run went on: $out"
exit 0

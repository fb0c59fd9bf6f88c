#!/bin/sh
# `validate --via kubernetes`, stages nccl and resnet, against the stand-in
# API server whose small MPI Operator runs each launcher's program as the
# simulated node's stand-in: on a healthy cluster every node passes, judged
# as over SSH (NVLink bus bandwidth, NET/IB with GDRDMA; ResNet-50 scaling
# on 1-2-4-8 GPUs); a throttled GPU (sim fault gpu-throttle) fails its node
# in both stages, and only it. The node health pods (one Job per node,
# pinned, unprivileged) are judged by precheck's checks: the throttled GPU
# is named as the subject. Each job is awaited with a
# watch, its launcher's log read through the API, and every MPIJob bringup
# created (labelled) is deleted afterwards; nothing else is. Without the
# MPIJob CRD the message says to install the MPI Operator. The token never
# shows in the output. The MPIJobs sent pass the schema and policy checks.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kube-lib.sh"
command -v slow >/dev/null || slow() { echo $(($1 * ${BRINGUP_TEST_SLOW:-1})); }
sim_up -n 2 --state ready
sed -i 's/^  vars:$/  vars:\n    openshift: { user_namespaces: [adas] }/' "$INV"
# Someone else's MPIJob in the namespace: bringup must leave it alone.
cat >"$TEST_DIR/other.yaml" <<'YAML'
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: { name: users-job, namespace: adas }
spec: { mpiReplicaSpecs: { Launcher: { replicas: 1, template: { spec: { containers: [ { name: l, image: x, command: [ "true" ] } ] } } } } }
YAML
mkdir "$TEST_DIR/applied"
# The SCC and RBAC that `bringup apply` gives namespace adas: without them the
# stand-in's SCC admission refuses the workers' IPC_LOCK (restricted-v2).
kube_scc_seed "$TEST_DIR/scc.yaml"
kube_up --nodes dgx01,dgx02 --namespaces default,adas --sim-dir "$BRINGUP_SIM_DIR" \
	--seed "$TEST_DIR/scc.yaml" --seed "$TEST_DIR/other.yaml" --mpi-delay 1 \
	--applied-dir "$TEST_DIR/applied"

# run WANT NAME: validate --via kubernetes must exit WANT; output in NAME.json, .out
run() {
	"$BRINGUP" validate -i "$INV" --no-baseline --via kubernetes --kubeconfig "$KCFG" -o json \
		--output "$TEST_DIR/$2.json" >"$TEST_DIR/$2.out" 2>&1
	got=$?
	[ "$got" -eq "$1" ] || fail "validate ($2) exited $got, not $1: $(cat "$TEST_DIR/$2.out" \
		"$TEST_DIR/$2.json" 2>/dev/null)"
}
run 0 ok
python3 - "$TEST_DIR/ok.json" "$API_LOG" "$API_STATE" <<'PY' || fail "healthy run: $(cat "$TEST_DIR/ok.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [s["stage"] for s in d["stages"]] == ["health", "nccl", "resnet"], d["stages"]
hl, s, rn = d["stages"]
assert hl["status"] == "pass" and not hl["findings"], hl
assert {(r["host"], r["check"]) for r in hl["results"] if r["status"] == "pass"} >= {
    (h, c) for h in ("dgx01", "dgx02") for c in ("gpu.throttle", "ib.port_state")}, hl["results"]
assert rn["via"] == "kubernetes" and rn["status"] == "pass" and not rn["findings"], rn
assert sorted(r["host"] for r in rn["results"]) == ["dgx01", "dgx02"], rn["results"]
for r in rn["results"]:
    assert [t["gpus"] for t in r["steps"]] == [1, 2, 4, 8] and r["efficiency_pct"] >= 80, r
    assert [t["try"] for t in r["tries"]] == [1] * 4 and all(t["error"] is None for t in r["tries"]), r
assert rn["cluster_images_per_sec"] > 0, rn
assert s["via"] == "kubernetes" and s["status"] == "pass" and not s["findings"], s
assert len(s["results"]) == 4, s["results"]
for r in s["results"]:
    assert r["status"] == "pass" and r["network"] == "IB" and r["latency_us"] < 100, r
    assert [t["try"] for t in r["tries"]] == [1], r
    if r["run"] == "net":
        assert r["transports"] == {"NET/IB/GDRDMA": 8}, r
    else:
        assert 110 <= r["busbw_gbps"] < 140, r
reqs = [json.loads(l) for l in open(sys.argv[2])]
watches = [r for r in reqs if r["method"] == "GET" and r["query"].get("watch") == ["1"]]
assert watches, [(r["method"], r["path"], r["query"]) for r in reqs]
assert any(r["path"].endswith("/log") for r in reqs), "no pod log read"
deletes = [r["path"] for r in reqs if r["method"] == "DELETE"]
# only its own jobs: never the SCC, RBAC or anything else `apply` made
assert all("/jobs/bringup-" in p or "/mpijobs/bringup-" in p for p in deletes), deletes
assert len(deletes) == 14, deletes
assert sorted(p.split("/bringup-")[1].split("-")[0] for p in deletes) == ["health"] * 2 + ["nccl"] * 4 + ["resnet"] * 8, deletes
assert all("/apis/batch/v1/namespaces/adas/jobs/bringup-health-" in p for p in deletes if "-health-" in p), deletes
left = [o["metadata"]["name"] for o in json.load(open(sys.argv[3])) if o["kind"] in ("MPIJob", "Job", "Pod")]
assert left == ["users-job"] or sorted(left)[0] == "users-job", left
assert not any(n.startswith("bringup-") for n in left), left
PY

# The MPIJobs bringup sent: valid against their schema (the v1alpha2 CRD,
# pod templates as Kubernetes PodTemplateSpec), no capability but IPC_LOCK.
rm -f "$TEST_DIR/applied/mpijob-users-job.yaml" "$TEST_DIR/applied/securitycontextconstraints-scc-for-mpi.yaml" \
	"$TEST_DIR/applied/serviceaccount-mpi.yaml" "$TEST_DIR/applied/role-mpi.yaml" \
	"$TEST_DIR/applied/rolebinding-mpi.yaml"
[ "$(ls "$TEST_DIR/applied" | wc -l)" -eq 14 ] || fail "applied: $(ls "$TEST_DIR/applied")"
python3 "$root/tests/tools/kube-check.py" schema "$TEST_DIR/applied" "$root/tests/fixtures/openshift/schema" ||
	fail "a validation MPIJob fails its schema"
python3 "$root/tests/tools/kube-check.py" policy "$TEST_DIR/applied" || fail "policy"

"$BRINGUP" sim fault dgx02 gpu-throttle 3 >/dev/null || fail "fault"
run 1 bad
python3 - "$TEST_DIR/bad.json" "$API_PORT" "$KDIR" <<'PY' || fail "attribution: $(cat "$TEST_DIR/bad.out")"
import json, ssl, sys, urllib.request
hl, s, rn = json.load(open(sys.argv[1]))["stages"]
# then the admin uninstalls the MPI Operator: its CRD goes
ctx = ssl.create_default_context(cafile=sys.argv[3] + "/test-ca.pem")
req = urllib.request.Request("https://127.0.0.1:%s/apis/apiextensions.k8s.io/v1/"
                             "customresourcedefinitions/mpijobs.kubeflow.org" % sys.argv[2], method="DELETE",
                             headers={"Authorization": "Bearer " + open(sys.argv[3] + "/token").read().strip()})
assert urllib.request.urlopen(req, context=ctx).status == 200
hosts = sorted({f["host"] for f in s["findings"]})
assert hosts == ["dgx02"], s["findings"]
assert any("nvlink" in f["message"] and "bus bandwidth" in f["message"] for f in s["findings"]), s["findings"]
assert all(r["status"] == "pass" for r in s["results"] if r["host"] == "dgx01"), s["results"]
assert rn["status"] == "fail" and [f["host"] for f in rn["findings"]] == ["dgx02"], rn["findings"]
assert "ResNet-50 on 8 GPUs" in rn["findings"][0]["message"], rn["findings"]
assert [f["host"] for f in hl["findings"]] == ["dgx02"], hl["findings"]
assert hl["findings"][0]["subject"].startswith("GPU ") and "gpu.throttle" in hl["findings"][0]["message"], hl["findings"]
PY
"$BRINGUP" sim fault dgx02 clear >/dev/null

# Without the MPI Operator's CRD (deleted above): what to install.
run 1 nocrd
grep -q "CustomResourceDefinition mpijobs.kubeflow.org is missing: install the MPI Operator" \
	"$TEST_DIR/nocrd.out" || fail "no actionable message: $(cat "$TEST_DIR/nocrd.out")"
grep -q "mpi-operator v0.8.0, deploy/v2beta1" "$TEST_DIR/nocrd.out" || fail "$(cat "$TEST_DIR/nocrd.out")"

# A stage that needs SSH is refused, not silently skipped.
expect_status 2 "$BRINGUP" validate -i "$INV" --via kubernetes --kubeconfig "$KCFG" --stage rdma \
	2>"$TEST_DIR/rdma.out"
grep -q "stage rdma does not run --via kubernetes" "$TEST_DIR/rdma.out" || fail "$(cat "$TEST_DIR/rdma.out")"
for f in "$TEST_DIR"/*.out "$TEST_DIR"/*.json; do
	grep -qF "$TOKEN" "$f" && fail "the token shows in $f"
done
exit 0

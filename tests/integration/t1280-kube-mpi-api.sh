#!/bin/sh
# The stand-in API server is as strict as a real one about the MPIJob API
# (issue 25): with MPI Operator v0.8.0's CRD only kubeflow.org/v2beta1 is
# served, so a v1alpha2 MPIJob is refused (404, the group version is not
# served), and the other way round with --mpi-api v1alpha2; a field the
# v2beta1 schema does not know is refused under fieldValidation=Strict (what
# bringup sends: 400 naming the field, as structured-merge-diff words it), pruned with a Warning header under
# Warn (the server's default) and pruned silently under Ignore. A rendered
# job passes Strict. Requests are retried as client-go does: a 429 with
# Retry-After and 503s are waited out, an endless 503 fails within the
# request's deadline naming it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kube-lib.sh"
kube_state
kube_up --namespaces default,kube-system,adas
"$BRINGUP" render -i "$root/inventory/redbook-poc.yaml" -o "$TEST_DIR/r" --state-dir "$STATE" \
	>/dev/null || fail "render"
job="$TEST_DIR/r/jobs/01-mpijob-nccl-test-mpi-01x08-tcp.yaml"

# patch VERSION VALIDATION EDIT: server-side apply of the rendered job as
# kubeflow.org/VERSION, EDIT (a sed script) applied; prints status, the
# Warning headers and the stored spec's keys.
patch() {
	sed "s|^apiVersion: kubeflow.org/v2beta1|apiVersion: kubeflow.org/$1|; $3" "$job" >"$TEST_DIR/body.yaml"
	python3 - "$API_PORT" "$KDIR/test-ca.pem" "$KDIR/token" "$TEST_DIR/body.yaml" "$1" "$2" <<'PY'
import json, ssl, sys, urllib.error, urllib.request, yaml
port, ca, tokf, body, ver, mode = sys.argv[1:7]
tok = open(tokf).read().strip()
ctx = ssl.create_default_context(cafile=ca)
name = yaml.safe_load(open(body))["metadata"]["name"]
url = "https://127.0.0.1:%s/apis/kubeflow.org/%s/namespaces/adas/mpijobs/%s?fieldManager=t&fieldValidation=%s" % (
    port, ver, name, mode)
req = urllib.request.Request(url, method="PATCH", data=open(body, "rb").read(),
                             headers={"Authorization": "Bearer " + tok,
                                      "Content-Type": "application/apply-patch+yaml"})
try:
    r = urllib.request.urlopen(req, context=ctx)
    obj = json.load(r)
    print(r.status, "|".join(r.headers.get_all("Warning") or []), ",".join(sorted(obj["spec"])))
except urllib.error.HTTPError as e:
    print(e.code, json.load(e)["message"])
PY
}
out=$(patch v2beta1 Strict "")
case $out in "201  mpiImplementation,mpiReplicaSpecs,runPolicy,slotsPerWorker") ;;
*) fail "a rendered v2beta1 job: $out" ;; esac
out=$(patch v1alpha2 Strict "")
case $out in "404 the server could not find the requested resource") ;;
*) fail "v1alpha2 was served beside v2beta1: $out" ;; esac
out=$(patch v2beta1 Strict "s/^  slotsPerWorker:/  slotPerWorker:/")
case $out in *'400 failed to create typed patch object (adas/nccl-test-mpi-01x08-tcp; kubeflow.org/v2beta1, Kind=MPIJob): .spec.slotPerWorker: field not declared in schema'*) ;;
*) fail "Strict took a typo: $out" ;; esac
out=$(patch v2beta1 Warn "s/^  slotsPerWorker:/  slotPerWorker:/")
case $out in '200 299 - "unknown field \"spec.slotPerWorker\"" mpiImplementation,mpiReplicaSpecs,runPolicy') ;;
*) fail "Warn: $out" ;; esac
out=$(patch v2beta1 Ignore "s/^  slotsPerWorker:/  slotPerWorker:/")
case $out in '200  mpiImplementation,mpiReplicaSpecs,runPolicy') ;;
*) fail "Ignore: $out" ;; esac
kube_down

# client-go's retries (kube-client.c): an apply through a 429 with
# Retry-After and 503s succeeds, each refused request asked again; a 503
# that does not end fails within the request's deadline naming the status.
kube_up --namespaces default,kube-system,ibm-spectrum-scale-csi-driver --fault-file "$TEST_DIR/faults" \
	--nodes dgx01.ocp4.scale.ibm.com,dgx02.ocp4.scale.ibm.com
printf '%s\n' "429 2 /roles/ 1" "503 2 /serviceaccounts/" >"$TEST_DIR/faults"
"$BRINGUP" apply -i "$root/inventory/redbook-poc.yaml" --kubeconfig "$KCFG" --state-dir "$STATE" \
	--ready-timeout 0 >"$TEST_DIR/a.out" 2>&1 || fail "apply through 429/503: $(cat "$TEST_DIR/a.out")"
python3 - "$API_LOG" <<'PY' || fail "retries"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
inj = [r["injected"] for r in reqs if r.get("injected")]
assert sorted(inj) == [429, 429, 503, 503], inj
PY
printf '%s\n' "503 1000 /rolebindings/" >"$TEST_DIR/faults"
sed 's/^      user_namespaces: \[adas\]/      user_namespaces: [adas, vision]/' \
	"$root/inventory/redbook-poc.yaml" >"$TEST_DIR/two.yaml"
start=$(date +%s)
"$BRINGUP" apply -i "$TEST_DIR/two.yaml" --kubeconfig "$KCFG" --state-dir "$STATE" \
	--ready-timeout 0 >"$TEST_DIR/b.out" 2>&1 && fail "apply through an endless 503 succeeded"
took=$(($(date +%s) - start))
grep -q "RoleBinding mpi: https://127.0.0.1:$API_PORT answered 503: etcdserver: leader changed" \
	"$TEST_DIR/b.out" || fail "$(cat "$TEST_DIR/b.out")"
[ "$took" -ge 25 ] && [ "$took" -le "$(slow 60)" ] || fail "gave up after $took s, not the 30 s deadline"
kube_down

# A legacy operator's server: v1alpha2 only.
kube_up --namespaces default,kube-system,adas --mpi-api v1alpha2
out=$(patch v2beta1 Strict "")
case $out in "404 the server could not find the requested resource") ;;
*) fail "v2beta1 served by a legacy operator: $out" ;; esac
out=$(patch v1alpha2 Strict "s/^  runPolicy:/  cleanPodPolicy: Running\n  xrunPolicy:/")
case $out in "201 "*) ;; *) fail "v1alpha2 (no structural schema) refused: $out" ;; esac
exit 0

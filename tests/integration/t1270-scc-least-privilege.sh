#!/bin/sh
# Least privilege on OpenShift 4.14+ (issue 25): the SCC bringup applies is
# restricted-v2 plus IPC_LOCK with no users and no groups, so only the
# service accounts of the namespaces the inventory lists may use it (their
# Role's `use`): the stand-in's SCC admission (podsecuritypolicysubject-
# reviews, `oc policy scc-subject-review`) admits a rendered MPI worker in
# a listed namespace through it, refuses it in a namespace the inventory
# does not list, and refuses a worker that picks its own runAsUser outside
# the namespace's range; a SubjectAccessReview says the same for `use`.
# Everything bringup applies carries its ApplySet label: a namespace dropped
# from the inventory loses its service account, Role, RoleBinding, claim and
# volume on the next apply (`--check` lists those removals first and
# changes nothing), which revokes the SCC there; the Namespace itself and
# objects bringup did not apply (unlabelled, or another ApplySet's) stay.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kube-lib.sh"
kube_state
cat >"$TEST_DIR/others.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: { name: users-config, namespace: adas }
data: { a: b }
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: other-tool
  namespace: vision
  labels: { applyset.kubernetes.io/part-of: applyset-someone-else-v1 }
data: { a: b }
YAML
kube_up --namespaces default,kube-system,ibm-spectrum-scale-csi-driver,intruder,adas,vision \
	--seed "$TEST_DIR/others.yaml"
sed 's/^      user_namespaces: \[adas\]/      user_namespaces: [adas, vision]/' \
	"$root/inventory/redbook-poc.yaml" >"$TEST_DIR/two.yaml"
grep -q 'user_namespaces: \[adas, vision\]' "$TEST_DIR/two.yaml" || fail "test inventory"
cp "$root/inventory/redbook-poc.yaml" "$TEST_DIR/one.yaml"

"$BRINGUP" apply -i "$TEST_DIR/two.yaml" --kubeconfig "$KCFG" --state-dir "$STATE" \
	>"$TEST_DIR/a1.out" 2>&1 || fail "apply: $(cat "$TEST_DIR/a1.out")"
grep -q "^created      RoleBinding vision/mpi" "$TEST_DIR/a1.out" || fail "$(cat "$TEST_DIR/a1.out")"
"$BRINGUP" render -i "$TEST_DIR/two.yaml" -o "$TEST_DIR/r" --state-dir "$STATE" >/dev/null ||
	fail "render"

# review WHAT NS ARGS: asks the stand-in (python below); prints its verdict.
review() {
	python3 - "$API_PORT" "$KDIR/test-ca.pem" "$KDIR/token" "$TEST_DIR/r" "$@" <<'PY'
import json, ssl, sys, urllib.request, yaml
port, ca, tokf, rdir, what, ns = sys.argv[1:7]
tok = open(tokf).read().strip()
ctx = ssl.create_default_context(cafile=ca)
def post(path, body):
    req = urllib.request.Request("https://127.0.0.1:%s%s" % (port, path), method="POST",
                                 data=json.dumps(body).encode(),
                                 headers={"Authorization": "Bearer " + tok,
                                          "Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req, context=ctx))
if what == "sar":
    r = post("/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
        "spec": {"user": "system:serviceaccount:%s:%s" % (ns, sys.argv[7]),
                 "resourceAttributes": {"namespace": ns, "verb": "use",
                                        "group": "security.openshift.io",
                                        "resource": "securitycontextconstraints",
                                        "name": "scc-for-mpi"}}})
    print("allowed" if r["status"]["allowed"] else "denied")
else:
    job = yaml.safe_load(open(rdir + "/jobs/03-mpijob-nccl-test-mpi-01x08-ib-gdr.yaml"))
    tmpl = job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]
    if what == "psr-uid":
        tmpl["spec"]["containers"][0]["securityContext"]["runAsUser"] = 1075481000
    r = post("/apis/security.openshift.io/v1/namespaces/%s/podsecuritypolicysubjectreviews" % ns,
             {"apiVersion": "security.openshift.io/v1", "kind": "PodSecurityPolicySubjectReview",
              "spec": {"template": tmpl}})
    st = r["status"]
    print("allowedBy %s" % st["allowedBy"]["name"] if st.get("allowedBy") else st["reason"])
PY
}
for ns in adas vision; do
	[ "$(review sar $ns mpi)" = allowed ] || fail "$ns's mpi may not use the SCC"
	[ "$(review psr $ns)" = "allowedBy scc-for-mpi" ] || fail "$ns: $(review psr $ns)"
done
[ "$(review sar intruder mpi)" = denied ] || fail "intruder's mpi may use the SCC"
[ "$(review sar adas default)" = denied ] || fail "adas's default service account may use the SCC"
out=$(review psr intruder)
case $out in
*'provider "scc-for-mpi": Forbidden: not usable by user or serviceaccount'*) ;;
*) fail "a worker in an unlisted namespace: $out" ;;
esac
case $out in
*'provider "restricted-v2": spec.containers[0].securityContext.capabilities.add: Invalid value: "IPC_LOCK"'*) ;;
*) fail "restricted-v2 did not refuse IPC_LOCK: $out" ;;
esac
out=$(review psr-uid adas)
case $out in
*'provider "scc-for-mpi": spec.containers[0].securityContext.runAsUser: Invalid value: 1075481000: must be in the ranges: ['*) ;;
*) fail "a worker with its own runAsUser: $out" ;;
esac

# The namespace leaves the inventory: --check shows the removals first.
cp "$API_STATE" "$TEST_DIR/before.json"
"$BRINGUP" apply -i "$TEST_DIR/one.yaml" --check --kubeconfig "$KCFG" --state-dir "$STATE" \
	>"$TEST_DIR/c.out" 2>&1 || fail "apply --check: $(cat "$TEST_DIR/c.out")"
head -n 5 "$TEST_DIR/c.out" >"$TEST_DIR/c.head"
cat >"$TEST_DIR/c.want" <<'OUT'
would delete PersistentVolumeClaim vision/adas-data-pvc
would delete PersistentVolume adas-data-pv02
would delete RoleBinding vision/mpi
would delete Role vision/mpi
would delete ServiceAccount vision/mpi
OUT
diff "$TEST_DIR/c.want" "$TEST_DIR/c.head" || fail "--check: $(cat "$TEST_DIR/c.out")"
[ "$(grep -c '^would delete' "$TEST_DIR/c.out")" -eq 5 ] || fail "$(cat "$TEST_DIR/c.out")"
cmp -s "$TEST_DIR/before.json" "$API_STATE" || fail "--check changed the server"

"$BRINGUP" apply -i "$TEST_DIR/one.yaml" --kubeconfig "$KCFG" --state-dir "$STATE" \
	>"$TEST_DIR/a2.out" 2>&1 || fail "apply: $(cat "$TEST_DIR/a2.out")"
[ "$(grep -c '^deleted ' "$TEST_DIR/a2.out")" -eq 5 ] || fail "$(cat "$TEST_DIR/a2.out")"
[ "$(review sar vision mpi)" = denied ] || fail "vision's mpi still may use the SCC"
case $(review psr vision) in
*'provider "scc-for-mpi": Forbidden: not usable'*) ;;
*) fail "SCC not revoked in vision: $(review psr vision)" ;;
esac
[ "$(review psr adas)" = "allowedBy scc-for-mpi" ] || fail "adas lost the SCC"
python3 - "$API_STATE" <<'PY' || fail "what is left"
import json, sys
objs = {(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]): o
        for o in json.load(open(sys.argv[1]))}
vision = sorted(k for k in objs if k[1] == "vision")
assert vision == [("ConfigMap", "vision", "other-tool")], vision
assert ("Namespace", None, "vision") in objs
assert ("ConfigMap", "adas", "users-config") in objs
assert ("PersistentVolume", None, "adas-data-pv02") not in objs
assert ("PersistentVolume", None, "adas-data-pv01") in objs
parent = objs[("ConfigMap", "kube-system", "bringup-applyset")]["metadata"]
assert parent["annotations"]["applyset.kubernetes.io/additional-namespaces"] == \
    "adas,ibm-spectrum-scale-csi-driver", parent
PY
# A third apply: nothing to remove, nothing changed.
"$BRINGUP" apply -i "$TEST_DIR/one.yaml" --kubeconfig "$KCFG" --state-dir "$STATE" --ready-timeout 0 \
	>"$TEST_DIR/a3.out" 2>&1 || fail "apply 3: $(cat "$TEST_DIR/a3.out")"
grep -q "^apply: 15 objects, 0 changed" "$TEST_DIR/a3.out" || fail "$(cat "$TEST_DIR/a3.out")"
exit 0

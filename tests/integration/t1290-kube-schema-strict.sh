#!/bin/sh
# Every object bringup renders validates against the pinned upstream schema
# of its kind (issue 25): for each inventory of inventory/ with an openshift
# section, and its variants (one local Scale cluster only; the legacy
# v1alpha2 MPI Operator), `render --with-operators` passes kube-check.py
# schema (Kubernetes 1.30, OpenShift's SCC CRD, Scale CSI 3.0.0's
# CSIScaleOperator CRD, MPI Operator v0.8.0's MPIJob CRD;
# tests/fixtures/openshift/SOURCES.md). The stand-in API server enforces the
# same schemas as a real one does under ?fieldValidation=Strict (what bringup
# sends): the rendered SCC, CSI resource and MPIJob are taken; a typo in any
# of them is refused with the server's wording (400 "failed to create typed
# patch object (...): .PATH: field not declared in schema",
# structured-merge-diff's typed validation), a wrong type with 422 "PATH in
# body must be of type T" (the CRD validation), and the Redpaper's CSI 2.0
# resource (scaleHostpath) is refused outright. The inventory keys of the
# CSI resource fail with messages that say what to give.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kube-lib.sh"
python3 -c 'import jsonschema' 2>/dev/null || skip python3-jsonschema "tools/install-deps.sh"
check="python3 $root/tests/tools/kube-check.py"
fx="$root/tests/fixtures/openshift"
kube_state

# The inventories: each of inventory/ with an openshift section, and variants.
n=0
for inv in "$root"/inventory/*.yaml; do
	grep -q '^    openshift:' "$inv" || continue
	n=$((n + 1))
	cp "$inv" "$TEST_DIR/inv$n.yaml"
done
[ "$n" -ge 1 ] || fail "no inventory with an openshift section in inventory/"
sed '/^        remote:$/,/^          - /d' "$root/inventory/redbook-poc.yaml" >"$TEST_DIR/local-only.yaml"
grep -q 'csisecret-remote' "$TEST_DIR/local-only.yaml" && fail "the variant kept the remote cluster"
sed 's/^      jobs:$/      mpi_operator: { api: v1alpha2, image: "mpioperator\/mpi-operator:0.2.3" }\n      jobs:/' \
	"$root/inventory/redbook-poc.yaml" >"$TEST_DIR/legacy.yaml"
grep -q 'api: v1alpha2' "$TEST_DIR/legacy.yaml" || fail "the legacy variant"
for inv in "$TEST_DIR"/inv*.yaml "$TEST_DIR/local-only.yaml" "$TEST_DIR/legacy.yaml"; do
	out="$TEST_DIR/render-$(basename "$inv" .yaml)"
	"$BRINGUP" render -i "$inv" -o "$out" --with-operators --state-dir "$STATE" \
		>"$out.log" 2>&1 || fail "render $inv: $(cat "$out.log")"
	$check schema "$out" "$fx/schema" >"$out.check" 2>&1 ||
		fail "$inv renders an object its schema refuses: $(cat "$out.check")"
done
ls "$TEST_DIR/render-inv1/"*csiscaleoperator* >/dev/null || fail "no CSI resource rendered"
# The schema check bites: the Redpaper's own CSI 2.0 resource fails CSI 3.0.0's.
mkdir -p "$TEST_DIR/redpaper-csi"
cp "$fx/redpaper/csiscaleoperator-ibm-spectrum-scale-csi.yaml" "$TEST_DIR/redpaper-csi/"
$check schema "$TEST_DIR/redpaper-csi" "$fx/schema" >"$TEST_DIR/rp.check" 2>&1 &&
	fail "CSI 2.0's resource passed CSI 3.0.0's schema"
grep -q "'scaleHostpath' was unexpected" "$TEST_DIR/rp.check" || fail "$(cat "$TEST_DIR/rp.check")"

# apply sends Strict, and the stand-in takes every object.
kube_up --namespaces default,kube-system,ibm-spectrum-scale-csi-driver,adas
"$BRINGUP" apply -i "$root/inventory/redbook-poc.yaml" --kubeconfig "$KCFG" --state-dir "$STATE" \
	>"$TEST_DIR/apply.out" 2>&1 || fail "apply: $(cat "$TEST_DIR/apply.out")"
python3 - "$API_LOG" <<'PY' || fail "apply's requests"
import json, sys
p = [json.loads(l) for l in open(sys.argv[1]) if '"PATCH"' in l]
kinds = {r["path"].split("/")[-2] for r in p}
assert {"csiscaleoperators", "securitycontextconstraints", "configmaps"} <= kinds, kinds
assert all(r["query"].get("fieldValidation") == ["Strict"] for r in p), p
PY

# put FILE MODE [SED]: server-side apply of a rendered object (EDIT applied)
# under ?fieldValidation=MODE; prints the status and the message or the
# stored object's top-level keys.
put() {
	sed "${3:-}" "$1" >"$TEST_DIR/body.yaml"
	python3 - "$API_PORT" "$KDIR/test-ca.pem" "$KDIR/token" "$TEST_DIR/body.yaml" "$2" <<'PY'
import json, ssl, sys, urllib.error, urllib.request, yaml
port, ca, tokf, body, mode = sys.argv[1:6]
o = yaml.safe_load(open(body))
g, v = o["apiVersion"].split("/") if "/" in o["apiVersion"] else ("", o["apiVersion"])
plural = {"CSIScaleOperator": "csiscaleoperators", "MPIJob": "mpijobs",
          "SecurityContextConstraints": "securitycontextconstraints"}[o["kind"]]
ns = o["metadata"].get("namespace")
url = "https://127.0.0.1:%s/apis/%s/%s/%s%s/%s?fieldManager=t&fieldValidation=%s" % (
    port, g, v, "namespaces/%s/" % ns if ns else "", plural, o["metadata"]["name"], mode)
req = urllib.request.Request(url, method="PATCH", data=open(body, "rb").read(),
                             headers={"Authorization": "Bearer " + open(tokf).read().strip(),
                                      "Content-Type": "application/apply-patch+yaml"})
try:
    r = urllib.request.urlopen(req, context=ssl.create_default_context(cafile=ca))
    print(r.status, ",".join(sorted(json.load(r))))
except urllib.error.HTTPError as e:
    print(e.code, json.load(e)["message"])
PY
}
r="$TEST_DIR/render-inv1"
csi=$(ls "$r"/*-csiscaleoperator-*.yaml)
scc=$(ls "$r"/*-securitycontextconstraints-*.yaml)
job=$(ls "$r"/jobs/01-mpijob-*.yaml)
for f in "$csi" "$scc" "$job"; do
	out=$(put "$f" Strict)
	case $out in 20[01]\ *) ;; *) fail "$(basename "$f") under Strict: $out" ;; esac
done
want() { case $2 in *"$3"*) ;; *) fail "$1: got: $2" ;; esac; }
want "CSI typo" "$(put "$csi" Strict 's/secureSslMode:/secureSSLMode:/')" \
	'400 failed to create typed patch object (ibm-spectrum-scale-csi-driver/ibm-spectrum-scale-csi; csi.ibm.com/v1, Kind=CSIScaleOperator): .spec.clusters[0].secureSSLMode: field not declared in schema, .spec.clusters[1].secureSSLMode: field not declared in schema'
want "CSI wrong type" "$(put "$csi" Strict 's/secureSslMode: true/secureSslMode: "yes"/')" \
	'422 CSIScaleOperator.csi.ibm.com "ibm-spectrum-scale-csi" is invalid: spec.clusters[0].secureSslMode: Invalid value: "string": spec.clusters[0].secureSslMode in body must be of type boolean: "string"'
want "CSI 2.0 field" "$(put "$fx/redpaper/csiscaleoperator-ibm-spectrum-scale-csi.yaml" Strict)" \
	'.spec.scaleHostpath: field not declared in schema'
want "CSI 3.0 required" "$(put "$csi" Strict '/localScaleCluster:/d')" \
	'spec.localScaleCluster: Required value'
want "SCC typo" "$(put "$scc" Strict 's/^allowPrivilegeEscalation:/allowPrivilegeEscalations:/')" \
	'400 failed to create typed patch object (scc-for-mpi; security.openshift.io/v1, Kind=SecurityContextConstraints): .allowPrivilegeEscalations: field not declared in schema'
want "SCC wrong type" "$(put "$scc" Strict 's/^priority: .*/priority: high/')" \
	'priority in body must be of type integer: "string"'
want "MPIJob typo" "$(put "$job" Strict 's/^  slotsPerWorker:/  slotPerWorker:/')" \
	'.spec.slotPerWorker: field not declared in schema'
# Warn prunes the typo (the server's default, not bringup's); the CRD then
# misses the required field it was meant to be.
want "CSI typo, Warn" "$(put "$csi" Warn 's/secureSslMode:/secureSSLMode:/')" \
	'422 CSIScaleOperator.csi.ibm.com "ibm-spectrum-scale-csi" is invalid: spec.clusters[0].secureSslMode: Required value'
kube_down

# Inventory strings stay strings as a YAML 1.1 reader (the API server's
# sigs.k8s.io/yaml, PyYAML here) reads the render: a namespace "0123" (not
# octal 83), label values on, "yes", "0123", "1:20".
sed 's/labels: { type: data, dept: adas }/labels: { type: on, dept: "0123", team: "yes", t: "1:20" }/
	s/user_namespaces: \[adas\]/user_namespaces: ["0123"]/' \
	"$root/inventory/redbook-poc.yaml" >"$TEST_DIR/typed.yaml"
grep -q 'user_namespaces: \["0123"\]' "$TEST_DIR/typed.yaml" || fail "typed variant"
"$BRINGUP" render -i "$TEST_DIR/typed.yaml" -o "$TEST_DIR/typed" --state-dir "$STATE" \
	>"$TEST_DIR/typed.out" 2>&1 || fail "render: $(cat "$TEST_DIR/typed.out")"
python3 - "$TEST_DIR/typed" <<'PY' || fail "a rendered string changed type"
import glob, sys, yaml
pv = yaml.safe_load(open(glob.glob(sys.argv[1] + "/*-persistentvolume-*.yaml")[0]))
l = pv["metadata"]["labels"]
assert (l["type"], l["dept"], l["team"], l["t"]) == ("on", "0123", "yes", "1:20"), l
ns = yaml.safe_load(open(glob.glob(sys.argv[1] + "/*-namespace-*.yaml")[0]))
assert ns["metadata"]["name"] == "0123", ns
PY
$check schema "$TEST_DIR/typed" "$fx/schema" >"$TEST_DIR/typed.check" 2>&1 || fail "$(cat "$TEST_DIR/typed.check")"

# What the user must give for the CSI resource, and what CSI removed.
bad() {
	sed "$1" "$root/inventory/redbook-poc.yaml" >"$TEST_DIR/bad.yaml"
	"$BRINGUP" render -i "$TEST_DIR/bad.yaml" -o "$TEST_DIR/bad" --state-dir "$STATE" \
		>"$TEST_DIR/bad.out" 2>&1 && fail "render took: $1"
	grep -qF "$2" "$TEST_DIR/bad.out" || fail "$1: $(cat "$TEST_DIR/bad.out")"
}
bad 's/, gui_ca_file: certs\/redbook-poc-gui-local-ca.pem//' \
	"inventory: cluster var 'openshift.csi.local.gui_ca_file' is missing: the PEM file of the CA that signed the Scale GUI's certificate"
bad 's/gui_ca_file: certs\/redbook-poc-gui-remote-ca.pem/gui_ca_file: certs\/nothing.pem/' \
	"inventory: openshift.csi.remote[0].gui_ca_file: cannot read $TEST_DIR/certs/nothing.pem: No such file or directory"
bad 's/^      csi:$/      csi:\n        host_path: \/gpfs\/fs0/' \
	"inventory: openshift.csi.host_path: the Scale CSI operator dropped scaleHostpath in 2.2"
bad 's/secret: csisecret-local,/secret: csisecret-local, primary_fs: fs0,/' \
	"Scale CSI 3.0 removed the primary file system and fileset"
bad 's/^      csi:$/      csi:\n        image: quay.io\/ibm-spectrum-scale\/ibm-spectrum-scale-csi-driver/' \
	"names no release: pin it by tag or digest"
exit 0

#!/bin/sh
# `apply --via bastion`: for a cluster the admin host cannot reach, the
# manifests go on stdin to `oc apply --server-side --field-manager=bringup
# -f -` on the bastion host over SSH (a simulated node with the `oc`
# stand-in, whose own kubeconfig points at the stand-in API server). Every
# object is server-side applied as bringup, never forced; a second run
# changes nothing on the server; --check is a server dry run (after the
# first apply: like kubectl, a dry run cannot see a namespace it would
# create); oc's error
# (a missing CRD) comes back naming the bastion.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kube-lib.sh"
kube_state
kube_up
sim_up -n 2

# The sim inventory plus the OpenShift layer and a bastion (dgx01).
awk '{ print } /^  vars:$/ && !done { while ((getline l < ARGV[2]) > 0) print l; done = 1 }' \
	"$INV" /dev/stdin >"$TEST_DIR/inv.yaml" <<'VARS'
    openshift:
      user_namespaces: [adas]
      node_domain: ocp4.scale.ibm.com
      csi:
        local: { gui_host: 192.168.1.30, secret: csisecret-local, gui_ca_file: GUI_CA }
      volumes:
        - { name: adas-data, dir: adas, storage: 100Gi, labels: { type: data, dept: adas } }
VARS
sed -i "s|GUI_CA|$root/inventory/certs/redbook-poc-gui-local-ca.pem|" "$TEST_DIR/inv.yaml"
printf '  bastion:\n    hosts: dgx01\n' >>"$TEST_DIR/inv.yaml"
"$BRINGUP" inventory check -i "$TEST_DIR/inv.yaml" >/dev/null || fail "inventory"

# The bastion's own kubeconfig (what `oc login` leaves there).
sim_ssh 127.0.1.1 'mkdir -p ~/.kube && cat > ~/.kube/config' <"$KCFG" || fail "kubeconfig to bastion"
sim_ssh 127.0.1.1 'cat > ~/.kube/test-ca.pem' <"$KDIR/test-ca.pem" || fail "CA to bastion"
sim_ssh 127.0.1.1 'umask 077; cat > ~/.kube/token' <"$KDIR/token" || fail "token to bastion"

run() { "$BRINGUP" apply -i "$TEST_DIR/inv.yaml" --via bastion --state-dir "$STATE" "$@"; }

run >"$TEST_DIR/a1.out" 2>&1 || fail "apply via bastion: $(cat "$TEST_DIR/a1.out")"
[ "$(grep -c ' serverside-applied$' "$TEST_DIR/a1.out")" -eq 14 ] || fail "$(cat "$TEST_DIR/a1.out")"
grep -qx "securitycontextconstraints.security.openshift.io/scc-for-mpi serverside-applied" \
	"$TEST_DIR/a1.out" || fail "$(cat "$TEST_DIR/a1.out")"
grep -qx "rolebinding.rbac.authorization.k8s.io/mpi serverside-applied" "$TEST_DIR/a1.out" ||
	fail "$(cat "$TEST_DIR/a1.out")"
cp "$API_STATE" "$TEST_DIR/after1.json"
run >"$TEST_DIR/a2.out" 2>&1 || fail "second apply: $(cat "$TEST_DIR/a2.out")"
cmp -s "$TEST_DIR/after1.json" "$API_STATE" || fail "the second apply changed the server"
run --check >"$TEST_DIR/c.out" 2>&1 || fail "check: $(cat "$TEST_DIR/c.out")"
grep -qx "configmap/rdma-devices serverside-applied (server dry run)" "$TEST_DIR/c.out" ||
	fail "$(cat "$TEST_DIR/c.out")"
cmp -s "$TEST_DIR/after1.json" "$API_STATE" || fail "--check changed the server"
python3 - "$API_LOG" <<'PY' || fail "request shapes"
import json, sys
p = [json.loads(l) for l in open(sys.argv[1])]
p = [r for r in p if r["method"] == "PATCH"]
assert len(p) == 42, len(p)  # 14 objects (with the ApplySet parent and the GUI CA) x 3 runs
assert all(r["query"]["fieldManager"] == ["bringup"] and r["query"]["force"] == ["false"]
           and r["content_type"] == "application/apply-patch+yaml" for r in p)
PY
kube_down

# oc's own error comes back, naming the bastion.
kube_up --missing-crd csiscaleoperators.csi.ibm.com
sed -i "s#^    server: .*#    server: https://127.0.0.1:$API_PORT#" "$KCFG"
sim_ssh 127.0.1.1 'cat > ~/.kube/config' <"$KCFG" || fail "kubeconfig 2"
run >"$TEST_DIR/e.out" 2>&1 && fail "apply without the CRD succeeded"
grep -q "bringup: bastion dgx01: \`oc apply --server-side --field-manager=bringup -f -\` exited 1: error: resource mapping not found .*no matches for kind \"CSIScaleOperator\" in version \"csi.ibm.com/v1\"" \
	"$TEST_DIR/e.out" || fail "$(cat "$TEST_DIR/e.out")"
grep -qF -- "$TOKEN" "$TEST_DIR"/*.out && fail "the token was printed"
exit 0

#!/bin/sh
# `apply` of the Redpaper PoC against the stand-in API server (TLS with a
# test CA, bearer token): every object is created in order through
# server-side apply (PATCH application/apply-patch+yaml, fieldManager
# bringup, force=false, never a DELETE); the second apply changes nothing on
# the server (the stored objects are byte-identical, every object reported
# unchanged; 15 objects: the Redpaper's 12, the two GUI CA ConfigMaps and bringup's ApplySet parent,
# kube-prune.h); --check on a fresh server is a dry run that stores nothing, and
# after a change to the inventory shows the diff and changes nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kube-lib.sh"
inv="$root/inventory/redbook-poc.yaml"
kube_state
kube_up
cp "$API_STATE" "$TEST_DIR/before.json"

"$BRINGUP" apply -i "$inv" --check --kubeconfig "$KCFG" --state-dir "$STATE" >"$TEST_DIR/c0.out" 2>&1 ||
	fail "apply --check failed: $(cat "$TEST_DIR/c0.out")"
grep -q "^would create SecurityContextConstraints scc-for-mpi" "$TEST_DIR/c0.out" || fail "$(cat "$TEST_DIR/c0.out")"
grep -q '^+  "metadata": {' "$TEST_DIR/c0.out" || fail "--check printed no diff"
cmp -s "$TEST_DIR/before.json" "$API_STATE" || fail "--check stored objects"

"$BRINGUP" apply -i "$inv" --kubeconfig "$KCFG" --state-dir "$STATE" >"$TEST_DIR/a1.out" 2>&1 ||
	fail "apply failed: $(cat "$TEST_DIR/a1.out")"
grep -q "^apply: 15 objects, 15 changed" "$TEST_DIR/a1.out" || fail "$(cat "$TEST_DIR/a1.out")"
grep -q "^created      RoleBinding adas/mpi" "$TEST_DIR/a1.out" || fail "$(cat "$TEST_DIR/a1.out")"
grep -q "^configured   Node dgx01.ocp4.scale.ibm.com" "$TEST_DIR/a1.out" || fail "node not labelled"
cp "$API_STATE" "$TEST_DIR/after1.json"

"$BRINGUP" apply -i "$inv" --kubeconfig "$KCFG" --state-dir "$STATE" >"$TEST_DIR/a2.out" 2>&1 ||
	fail "second apply failed: $(cat "$TEST_DIR/a2.out")"
grep -q "^apply: 15 objects, 0 changed" "$TEST_DIR/a2.out" || fail "$(cat "$TEST_DIR/a2.out")"
[ "$(grep -c '^unchanged ' "$TEST_DIR/a2.out")" -eq 15 ] || fail "$(cat "$TEST_DIR/a2.out")"
cmp -s "$TEST_DIR/after1.json" "$API_STATE" || fail "the second apply changed the server"

# What the server saw: SSA only, as bringup, never forced, never a delete.
python3 - "$API_LOG" <<'PY' || fail "request shapes"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
patches = [r for r in reqs if r["method"] == "PATCH"]
assert len(patches) == 45, len(patches)  # 15 dry run + 15 + 15
for r in patches:
    assert r["content_type"] == "application/apply-patch+yaml", r
    assert r["query"]["fieldManager"] == ["bringup"] and r["query"]["force"] == ["false"], r
    assert r["query"]["fieldValidation"] == ["Strict"], r  # typos refused, not pruned
assert sum(1 for r in patches if r["query"].get("dryRun") == ["All"]) == 15
assert all(r["method"] in ("GET", "PATCH") for r in reqs), "a request other than GET/PATCH"
assert all(r["bearer"] for r in reqs)
PY
# The state holds bringup's managedFields; the node keeps the kubelet's label.
python3 - "$API_STATE" <<'PY' || fail "managedFields"
import json, sys
objs = {(o["kind"], o["metadata"]["name"]): o for o in json.load(open(sys.argv[1]))}
role = objs[("Role", "mpi")]
assert [m["manager"] for m in role["metadata"]["managedFields"]] == ["bringup"]
node = objs[("Node", "dgx01.ocp4.scale.ibm.com")]
assert node["metadata"]["labels"] == {"kubernetes.io/hostname": "dgx01.ocp4.scale.ibm.com", "scale": "true"}
assert sorted(m["manager"] for m in node["metadata"]["managedFields"]) == ["bringup", "kubelet"]
PY

# A changed inventory: --check shows the ConfigMap's diff and stores nothing.
sed 's/^      user_namespaces: \[adas\].*/&\n      rdma: { hca_max: 50 }/' "$inv" >"$TEST_DIR/inv50.yaml"
"$BRINGUP" apply -i "$TEST_DIR/inv50.yaml" --check --kubeconfig "$KCFG" --state-dir "$STATE" \
	>"$TEST_DIR/c1.out" 2>&1 || fail "check 2: $(cat "$TEST_DIR/c1.out")"
grep -q "^would change ConfigMap kube-system/rdma-devices" "$TEST_DIR/c1.out" || fail "$(cat "$TEST_DIR/c1.out")"
grep -q 'rdmaHcaMax\\": 50' "$TEST_DIR/c1.out" || fail "diff lacks the new value"
grep -q "^apply --check: 15 objects, 1 would change" "$TEST_DIR/c1.out" || fail "$(cat "$TEST_DIR/c1.out")"
cmp -s "$TEST_DIR/after1.json" "$API_STATE" || fail "--check changed the server"
exit 0

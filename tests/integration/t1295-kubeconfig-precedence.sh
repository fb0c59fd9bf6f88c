#!/bin/sh
# Which kubeconfig `apply` reads (issue 25, item 6): the inventory's
# openshift.kubeconfig names the cluster it describes, so it wins over a
# $KUBECONFIG that the admin's shell set for another cluster (it used to be
# the other way round: deploy and upgrade talked to that other cluster);
# --kubeconfig wins over both, and $KUBECONFIG is still read when the
# inventory names none. Each refusal names where the kubeconfig came from.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kube-lib.sh"
kube_state
kube_up --namespaces default,kube-system,ibm-spectrum-scale-csi-driver,adas
sed "s|^    openshift:\$|    openshift:\n      kubeconfig: \"$KCFG\"|" "$root/inventory/redbook-poc.yaml" \
	>"$TEST_DIR/inv.yaml"
grep -q "kubeconfig: \"$KCFG\"" "$TEST_DIR/inv.yaml" || fail "inventory with a kubeconfig"
# another cluster's kubeconfig in the environment: a server nothing listens on
sed "s|server: https://127.0.0.1:$API_PORT|server: https://127.0.0.1:1|" "$KCFG" >"$TEST_DIR/other"

KUBECONFIG="$TEST_DIR/other" "$BRINGUP" apply -i "$TEST_DIR/inv.yaml" --state-dir "$STATE" \
	>"$TEST_DIR/a1.out" 2>&1 || fail "\$KUBECONFIG won over the inventory's: $(cat "$TEST_DIR/a1.out")"
grep -q "^apply: 15 objects, 15 changed" "$TEST_DIR/a1.out" || fail "$(cat "$TEST_DIR/a1.out")"

KUBECONFIG="$KCFG" "$BRINGUP" apply -i "$TEST_DIR/inv.yaml" --kubeconfig "$TEST_DIR/nothing" \
	--state-dir "$STATE" >"$TEST_DIR/a2.out" 2>&1 && fail "--kubeconfig was not read"
grep -q "kubeconfig from --kubeconfig: " "$TEST_DIR/a2.out" || fail "$(cat "$TEST_DIR/a2.out")"

KUBECONFIG="$TEST_DIR/nothing" "$BRINGUP" apply -i "$root/inventory/redbook-poc.yaml" \
	--state-dir "$STATE" >"$TEST_DIR/a3.out" 2>&1 && fail "\$KUBECONFIG was not read"
grep -q "kubeconfig from KUBECONFIG: " "$TEST_DIR/a3.out" || fail "$(cat "$TEST_DIR/a3.out")"
kube_down
exit 0

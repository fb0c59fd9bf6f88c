#!/bin/sh
# `apply` errors an admin can act on, each against the stand-in API server:
# a missing CRD names it and the operator to install (and nothing after it is
# applied); a 403 names the user, verb, resource and namespace; a wrong
# token is a 401 about credentials; a field another manager owns is a 409
# naming that manager and the field (bringup does not force); a 422 carries
# the server's message; a CRD that becomes Established late is waited for;
# a server certificate from another CA and insecure-skip-tls-verify are
# refused (TLS is always verified). Exit 1 for what the server refused, 3
# when it could not be used (credentials, TLS), 2 for a bad kubeconfig.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kube-lib.sh"
inv="$root/inventory/redbook-poc.yaml"
kube_state
run_apply() { "$BRINGUP" apply -i "$inv" --kubeconfig "$KCFG" --state-dir "$STATE" --crd-timeout 20 "$@"; }
want() { grep -qF -- "$1" "$2" || fail "$2 lacks '$1': $(cat "$2")"; }

# Missing CRD: which one, which operator; the PV after it is not applied.
kube_up --missing-crd csiscaleoperators.csi.ibm.com
run_apply >"$TEST_DIR/crd.out" 2>&1; [ $? -eq 1 ] || fail "exit status: $(cat "$TEST_DIR/crd.out")"
want "12-csiscaleoperator-ibm-spectrum-scale-csi.yaml: CSIScaleOperator ibm-spectrum-scale-csi: the API server does not know kind CSIScaleOperator (csi.ibm.com/v1): its CustomResourceDefinition csiscaleoperators.csi.ibm.com is missing: install the IBM Spectrum Scale CSI operator" "$TEST_DIR/crd.out"
grep -q PersistentVolume "$API_STATE" && fail "objects after the failed one were applied"
kube_down

# 403 on patching roles.
kube_up --forbid patch:roles.rbac.authorization.k8s.io
run_apply >"$TEST_DIR/403.out" 2>&1; [ $? -eq 1 ] || fail "exit status: $(cat "$TEST_DIR/403.out")"
want "Role mpi: forbidden (403): kubeconfig user 'bringup-test' may not 'patch' roles.rbac.authorization.k8s.io in namespace adas: bind that user a Role or ClusterRole with verb 'patch'" "$TEST_DIR/403.out"
want 'cannot patch resource "roles" in API group "rbac.authorization.k8s.io"' "$TEST_DIR/403.out"
kube_down

# 409: the ConfigMap's data belongs to kubectl with other content.
cat >"$TEST_DIR/seed.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: { name: rdma-devices, namespace: kube-system }
data: { config.json: '{"configList": []}' }
YAML
kube_up --seed "$TEST_DIR/seed.yaml"
run_apply >"$TEST_DIR/409.out" 2>&1; [ $? -eq 1 ] || fail "exit status: $(cat "$TEST_DIR/409.out")"
want 'ConfigMap rdma-devices: conflict (409): conflict with "kubectl" using v1 at .data.config.json' "$TEST_DIR/409.out"
want "never takes a field another field manager owns" "$TEST_DIR/409.out"
kube_down

# 422 with the server's message.
kube_up --invalid PersistentVolumeClaim
run_apply >"$TEST_DIR/422.out" 2>&1; [ $? -eq 1 ] || fail "exit status: $(cat "$TEST_DIR/422.out")"
want 'PersistentVolumeClaim adas-data-pvc is invalid (422): PersistentVolumeClaim "adas-data-pvc" is invalid: spec: Invalid value' "$TEST_DIR/422.out"
kube_down

# A CRD Established 3 s after start is waited for, then applied; then the
# device plugin's pods (ready 6 s after the DaemonSet) and the nodes' resources.
kube_up --crd-delay 3 --ready-delay 6
run_apply >"$TEST_DIR/delay.out" 2>&1 || fail "late CRD: $(cat "$TEST_DIR/delay.out")"
want "created      CSIScaleOperator ibm-spectrum-scale-csi-driver/ibm-spectrum-scale-csi" "$TEST_DIR/delay.out"
want "waiting: DaemonSet kube-system/rdma-shared-dp-ds has no pod scheduled yet" "$TEST_DIR/delay.out"
want "apply: 15 objects, 15 changed" "$TEST_DIR/delay.out"

# 401: another token.
printf 'not-the-token\n' >"$KDIR/other-token"
kube_config "$KDIR/kc-401" "certificate-authority: test-ca.pem" "tokenFile: other-token"
run_apply --kubeconfig "$KDIR/kc-401" >"$TEST_DIR/401.out" 2>&1; [ $? -eq 3 ] || fail "exit status: $(cat "$TEST_DIR/401.out")"
want "refused the credentials of kubeconfig user 'bringup-test' (401 Unauthorized)" "$TEST_DIR/401.out"

# TLS: a CA that did not sign the server, a name the certificate does not
# list, an expired certificate: each named as such (not one CA hint for
# all); a kubeconfig that skips verification.
kube_ca other
kube_config "$KDIR/kc-ca" "certificate-authority: other-ca.pem" "tokenFile: token"
run_apply --kubeconfig "$KDIR/kc-ca" >"$TEST_DIR/tls.out" 2>&1; [ $? -eq 3 ] || fail "exit status: $(cat "$TEST_DIR/tls.out")"
want "(TLS: unknown CA: the kubeconfig's certificate-authority did not sign the API server's certificate; verification is never turned off)" "$TEST_DIR/tls.out"
# a name the server's certificate does not list (it names IP 127.0.0.1 only)
sed "s|https://127.0.0.1:|https://localhost:|" "$KCFG" >"$KDIR/kc-name"
run_apply --kubeconfig "$KDIR/kc-name" >"$TEST_DIR/name.out" 2>&1; [ $? -eq 3 ] || fail "exit status: $(cat "$TEST_DIR/name.out")"
want "(TLS: name mismatch: the API server's certificate does not name the host of the kubeconfig's server" "$TEST_DIR/name.out"
grep -q "unknown CA" "$TEST_DIR/name.out" && fail "a name mismatch called an unknown CA: $(cat "$TEST_DIR/name.out")"
kube_config "$KDIR/kc-skip" "insecure-skip-tls-verify: true" "tokenFile: token"
run_apply --kubeconfig "$KDIR/kc-skip" >"$TEST_DIR/skip.out" 2>&1; [ $? -eq 2 ] || fail "exit status: $(cat "$TEST_DIR/skip.out")"
want "sets insecure-skip-tls-verify: bringup always verifies the API server" "$TEST_DIR/skip.out"
# The CA inline (certificate-authority-data) works as the file does.
kube_config "$KDIR/kc-data" "certificate-authority-data: $(base64 -w0 "$KDIR/test-ca.pem")" "tokenFile: token"
run_apply --kubeconfig "$KDIR/kc-data" >"$TEST_DIR/data.out" 2>&1 || fail "CA data: $(cat "$TEST_DIR/data.out")"
want "apply: 15 objects, 0 changed" "$TEST_DIR/data.out"
kube_down

# A device plugin whose resources register at 0 first (no device found
# yet): apply waits until they are more than 0, and says so; one that stays
# at 0 is a timeout naming the node and the resource (issue 25).
kube_up --rdma-zero-delay 3
run_apply >"$TEST_DIR/zero.out" 2>&1 || fail "rdma at 0, then up: $(cat "$TEST_DIR/zero.out")"
want "waiting: node dgx01.ocp4.scale.ibm.com offers no rdma/shared_ib0 (allocatable 0)" "$TEST_DIR/zero.out"
kube_down
kube_up --rdma-zero-delay 600
run_apply --ready-timeout 2 >"$TEST_DIR/zero2.out" 2>&1; [ $? -eq 1 ] || fail "exit status: $(cat "$TEST_DIR/zero2.out")"
want "bringup: not ready after 2 s: node dgx01.ocp4.scale.ibm.com offers no rdma/shared_ib0 (allocatable 0)" \
	"$TEST_DIR/zero2.out"
kube_down

# Pods that never get ready: a timeout saying what is missing.
kube_up --ready-delay 600
run_apply --ready-timeout 2 >"$TEST_DIR/ready.out" 2>&1; [ $? -eq 1 ] || fail "exit status: $(cat "$TEST_DIR/ready.out")"
want "bringup: not ready after 2 s: DaemonSet kube-system/rdma-shared-dp-ds has no pod scheduled yet" "$TEST_DIR/ready.out"
kube_down

# An expired server certificate (valid until the second it was signed).
openssl x509 -req -in "$KDIR/server.csr" -CA "$KDIR/test-ca.pem" -CAkey "$KDIR/test-ca.key" \
	-CAcreateserial -days 0 -extfile "$KDIR/san.ext" -out "$KDIR/expired.pem" 2>/dev/null ||
	fail "openssl expired"
sleep 2
kube_up --cert "$KDIR/expired.pem"
run_apply >"$TEST_DIR/expired.out" 2>&1; [ $? -eq 3 ] || fail "exit status: $(cat "$TEST_DIR/expired.out")"
want "(TLS: the API server's certificate has expired" "$TEST_DIR/expired.out"
exit 0

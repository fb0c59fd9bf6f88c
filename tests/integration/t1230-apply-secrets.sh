#!/bin/sh
# The bearer token never shows: with a planted token (in a tokenFile, then
# inline in the kubeconfig), render, apply, apply --check, a failing apply
# (401 after the token changed on the server, 403), a wrong kubeconfig and
# validate --via kubernetes (MPIJobs, watches, pod logs) print it nowhere, write it into no file of the render or state directory,
# and never put it in a process's argv (checked while an apply waits for a
# late CRD, and while validate --via kubernetes runs).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kube-lib.sh"
inv="$root/inventory/redbook-poc.yaml"
kube_state
out="$TEST_DIR/out"
mkdir -p "$out"
run_apply() { "$BRINGUP" apply -i "$inv" --kubeconfig "$KCFG" --state-dir "$STATE" --crd-timeout 20 "$@"; }

kube_up --crd-delay 4
run_apply >"$out/a1" 2>&1 &
pid=$!
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do
	# every process's argv while bringup runs
	cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' ' ' >>"$out/cmdlines"
	i=$((i + 1))
	sleep 0.05
done
wait "$pid" || fail "apply: $(cat "$out/a1")"
grep -q "bringup apply" "$out/cmdlines" || fail "the argv scan saw no bringup"
run_apply --check >"$out/c1" 2>&1 || fail "check: $(cat "$out/c1")"
# validate --via kubernetes: MPIJobs, watches, pod logs, deletes (no
# simulated nodes here: the launchers fail, which is all this needs).
"$BRINGUP" validate -i "$inv" --no-baseline --via kubernetes --kubeconfig "$KCFG" -o json \
	>"$out/v1" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' ' ' >>"$out/cmdlines"
	sleep 0.05
done
wait "$pid"
[ $? -eq 1 ] || fail "validate --via kubernetes: $(cat "$out/v1")"
grep -q '"via": "kubernetes"' "$out/v1" || fail "$(cat "$out/v1")"
grep -q "bringup validate" "$out/cmdlines" || fail "the argv scan saw no bringup validate"
"$BRINGUP" render -i "$inv" -o "$TEST_DIR/render" --state-dir "$STATE" >"$out/r1" 2>&1 || fail render
kube_down

kube_up --forbid patch:configmaps
run_apply >"$out/a403" 2>&1 && fail "403 apply succeeded"
# the same token inline in the kubeconfig
kube_config "$KDIR/kc-inline" "certificate-authority: test-ca.pem" "token: $TOKEN"
"$BRINGUP" apply -i "$inv" --kubeconfig "$KDIR/kc-inline" --state-dir "$STATE" >"$out/a-inline" 2>&1 &&
	fail "inline 403 apply succeeded"
grep -q "forbidden (403)" "$out/a-inline" || fail "inline token not used: $(cat "$out/a-inline")"
kube_down
# the server now wants another token: 401
printf 'another-token\n' >"$KDIR/token.new"
mv "$KDIR/token" "$KDIR/token.planted"
cp "$KDIR/token.new" "$KDIR/token"
kube_up
cp "$KDIR/token.planted" "$KDIR/token"
run_apply >"$out/a401" 2>&1 && fail "401 apply succeeded"
grep -q "401 Unauthorized" "$out/a401" || fail "$(cat "$out/a401")"
# a broken kubeconfig holding the token: the YAML error must not quote it
printf 'users:\n- name: x\n  user: { token: %s\n' "$TOKEN" >"$KDIR/kc-broken"
"$BRINGUP" apply -i "$inv" --kubeconfig "$KDIR/kc-broken" --state-dir "$STATE" >"$out/a-broken" 2>&1 &&
	fail "broken kubeconfig accepted"

[ -n "$TOKEN" ] || fail "no planted token"
for f in "$out"/* ; do
	grep -qF -- "$TOKEN" "$f" && fail "the token appears in $(basename "$f")"
done
grep -rqF -- "$TOKEN" "$TEST_DIR/render" "$STATE" && fail "the token is in a written file"
exit 0

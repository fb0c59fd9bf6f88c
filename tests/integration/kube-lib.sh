# Helpers for the Kubernetes API tests (t1200-t1249); source after lib.sh.
# kube_up ARGS...: a test CA, a server certificate for 127.0.0.1, a planted
# bearer token, the stand-in API server (tests/tools/kube-apiserver.py) with
# ARGS, and a kubeconfig for it in $KCFG. Sets API_PID, API_LOG, API_STATE,
# TOKEN, KDIR. The server is stopped by kube_down (and on exit).
root=$(cd "$(dirname "$0")/../.." && pwd)
KDIR="$TEST_DIR/kube"
# Inventories copied here keep redbook-poc.yaml's relative GUI CA paths.
ln -s "$root/inventory/certs" "$TEST_DIR/certs"
python3 -c 'import yaml' 2>/dev/null || skip python3-yaml "tools/install-deps.sh"
command -v openssl >/dev/null || skip openssl

kube_ca() {
	mkdir -p "$KDIR"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=bringup test CA $1" \
		-keyout "$KDIR/$1-ca.key" -out "$KDIR/$1-ca.pem" 2>/dev/null || fail "openssl CA"
}

kube_up() {
	[ -f "$KDIR/test-ca.pem" ] || {
		kube_ca test
		openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$KDIR/server.key" \
			-out "$KDIR/server.csr" 2>/dev/null || fail "openssl csr"
		printf 'subjectAltName=IP:127.0.0.1\n' >"$KDIR/san.ext"
		openssl x509 -req -in "$KDIR/server.csr" -CA "$KDIR/test-ca.pem" -CAkey "$KDIR/test-ca.key" \
			-CAcreateserial -days 2 -extfile "$KDIR/san.ext" -out "$KDIR/server.pem" 2>/dev/null ||
			fail "openssl sign"
		TOKEN="PLANTED-token-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
		printf '%s\n' "$TOKEN" >"$KDIR/token"
		chmod 600 "$KDIR/token"
	}
	API_LOG="$KDIR/requests.log"
	API_STATE="$KDIR/state.json"
	: >"$API_LOG"
	# The last server's "ready" line must not be read as this one's: the
	# redirect below truncates the file only once the child runs.
	rm -f "$KDIR/api.out"
	python3 "$root/tests/tools/kube-apiserver.py" --cert "$KDIR/server.pem" --key "$KDIR/server.key" \
		--token-file "$KDIR/token" --log "$API_LOG" --state "$API_STATE" \
		--nodes dgx01.ocp4.scale.ibm.com,dgx02.ocp4.scale.ibm.com \
		--namespaces default,kube-system,ibm-spectrum-scale-csi-driver "$@" >"$KDIR/api.out" 2>&1 &
	API_PID=$!
	wait_ready "$KDIR/api.out" "$API_PID"
	API_PORT=$(sed -n 's/^ready \([0-9][0-9]*\)$/\1/p' "$KDIR/api.out")
	[ -n "$API_PORT" ] || fail "stand-in API server gave no port: $(cat "$KDIR/api.out")"
	KCFG="$KDIR/kubeconfig"
	kube_config "$KCFG" "certificate-authority: test-ca.pem" "tokenFile: token"
}

# kube_config FILE CLUSTER_LINE USER_LINE: a kubeconfig for the stand-in.
kube_config() {
	cat >"$1" <<KCFG
apiVersion: v1
kind: Config
current-context: test
clusters:
- name: test
  cluster:
    server: https://127.0.0.1:$API_PORT
    $2
users:
- name: bringup-test
  user:
    $3
contexts:
- name: test
  context: { cluster: test, user: bringup-test }
KCFG
}

# kube_inventory IN OUT: the simulated cluster's inventory IN with the
# Redpaper PoC's cluster var openshift (kubeconfig $KCFG, nodes named
# dgxNN.sim.example.com, no openshift.scale) written to OUT.
kube_inventory() {
	sh "$root/tools/openshift-inventory.sh" "$KCFG" "$1" "$2" || fail "openshift-inventory.sh"
}

kube_down() {
	[ -n "${API_PID:-}" ] && kill "$API_PID" 2>/dev/null && wait "$API_PID" 2>/dev/null
	API_PID=
}

# The records deploy leaves for the PoC (the Redpaper's cluster ID and UID).
kube_state() {
	mkdir -p "$TEST_DIR/state/runs/r1"
	cp "$root/tests/fixtures/openshift/state/journal.json" "$TEST_DIR/state/runs/r1/"
	ln -sfn runs/r1 "$TEST_DIR/state/last"
	STATE="$TEST_DIR/state"
}

# kube_scc_seed OUT: bringup's own SCC, service account, Role and
# RoleBinding for namespace adas (the PoC inventory rendered), as one
# --seed file: what an earlier `bringup apply` leaves, so that the
# stand-in's SCC admission lets the MPI pods of namespace adas add IPC_LOCK.
kube_scc_seed() {
	kube_state
	"$BRINGUP" render -i "$root/inventory/redbook-poc.yaml" -o "$TEST_DIR/scc-render" \
		--state-dir "$STATE" >/dev/null || fail "render for the SCC seed"
	for f in 01-securitycontextconstraints-scc-for-mpi 03-serviceaccount-mpi 04-role-mpi \
		05-rolebinding-mpi; do
		echo ---
		cat "$TEST_DIR/scc-render/$f.yaml"
	done >"$1"
}

kube_cleanup() { kube_down; cleanup; }
trap kube_cleanup EXIT INT TERM

#!/bin/sh
# make demo: the whole mission on the built-in simulated cluster (real sshd
# nodes on loopback addresses), as a new user would run it (the aim: under
# five minutes on a 2-core machine; each step prints the seconds so far):
#   bare nodes: precheck says what a new cluster lacks;
#   deploy --check plans, deploy converges: OFED, peer memory, SELinux,
#   memlock, nouveau, the subnet manager, the Spectrum Scale client cluster
#   with its remote file system over RDMA, and the OpenShift layer applied
#   to a stand-in Kubernetes API server (tests/tools/kube-apiserver.py);
#   precheck turns green;
#   validate with a seeded fault (the last node's port mlx5_1 trained at 1X):
#   the text report names the node and the port, and the same run's HTML
#   report is written (its path printed);
#   the deploy replayed in the TUI, on a terminal (DEMO_TUI=0 skips it).
# DEMO_NODES (default 4) nodes; everything it writes is under DEMO_DIR.
set -u
B=${BRINGUP:-./bringup}
root=$(cd "$(dirname "$0")/.." && pwd)
export BRINGUP_SIM_DIR="${BRINGUP_SIM_DIR:-${HOME:-/tmp}/.local/state/bringup/demo}"
N=${DEMO_NODES:-4}
OUT=${DEMO_DIR:-$BRINGUP_SIM_DIR-out}
STATE=$OUT/state
API_PID=

step() { printf '\n== %s  [%ss]\n' "$*" "$(($(date +%s) - T0))"; }
run() { printf '$ %s\n' "$*"; "$@"; echo "(exit status $?)"; }
down() {
	[ -n "$API_PID" ] && kill "$API_PID" 2>/dev/null
	"$B" sim down >/dev/null 2>&1
}

T0=$(date +%s)
"$B" sim down >/dev/null 2>&1
trap down EXIT INT TERM
rm -rf "$OUT"
mkdir -p "$OUT"

step "A new cluster: $N DGX-1 nodes, operating system only"
inv=$("$B" sim up -n "$N" --state bare | tee /dev/stderr | sed -n 's/^inventory: //p')
[ -f "$inv" ] || { echo "demo: sim up failed" >&2; exit 1; }

# The OpenShift layer: a stand-in API server with a CA of its own, and the
# inventory's cluster var `openshift` pointing at it.
kinv=$OUT/inventory.yaml
cp "$inv" "$kinv"
if command -v openssl >/dev/null && python3 -c 'import yaml' 2>/dev/null; then
	K=$OUT/kube
	mkdir -p "$K"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=bringup demo CA" \
		-keyout "$K/ca.key" -out "$K/ca.pem" 2>/dev/null &&
	openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$K/server.key" \
		-out "$K/server.csr" 2>/dev/null &&
	printf 'subjectAltName=IP:127.0.0.1\n' >"$K/san.ext" &&
	openssl x509 -req -in "$K/server.csr" -CA "$K/ca.pem" -CAkey "$K/ca.key" -CAcreateserial \
		-days 2 -extfile "$K/san.ext" -out "$K/server.pem" 2>/dev/null &&
	od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$K/token" && chmod 600 "$K/token"
	nodes=$(i=1; while [ $i -le "$N" ]; do printf 'dgx%02d.sim.example.com,' $i; i=$((i + 1)); done)
	python3 "$root/tests/tools/kube-apiserver.py" --cert "$K/server.pem" --key "$K/server.key" \
		--token-file "$K/token" --log "$K/requests.log" --state "$K/state.json" \
		--nodes "${nodes%,}" --namespaces default,kube-system,ibm-spectrum-scale-csi-driver \
		>"$K/api.out" 2>&1 &
	API_PID=$!
	i=0
	while ! grep -q '^ready ' "$K/api.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	port=$(sed -n 's/^ready \([0-9][0-9]*\)$/\1/p' "$K/api.out")
	if [ -n "$port" ]; then
		cat >"$K/kubeconfig" <<KCFG
apiVersion: v1
kind: Config
current-context: demo
clusters:
- name: demo
  cluster: { server: "https://127.0.0.1:$port", certificate-authority: ca.pem }
users:
- name: demo
  user: { tokenFile: token }
contexts:
- name: demo
  context: { cluster: demo, user: demo }
KCFG
		sh "$root/tools/openshift-inventory.sh" "$K/kubeconfig" "$inv" "$kinv"
		echo "stand-in Kubernetes API server on 127.0.0.1:$port (the openshift stage applies to it)"
	else
		echo "demo: the stand-in API server did not start: no openshift stage" >&2
	fi
else
	echo "demo: no openssl or python3-yaml (tools/install-deps.sh): no openshift stage" >&2
fi
# Validation short enough for a demo: two ports, two tries, one-second runs.
cat >>"$kinv" <<'YAML'

validate:
  tries: 2
  rdma:
    duration: 1
YAML
sed -i 's/^    compute_hcas: .*/    compute_hcas: [mlx5_0, mlx5_1]/' "$kinv"
run "$B" inventory show -i "$kinv" --host dgx01

step "precheck: what is missing before bring-up"
run "$B" precheck -i "$kinv"

step "deploy --check: the plan, nothing changed"
"$B" deploy -i "$kinv" --state-dir "$STATE" --check >"$OUT/plan.txt" 2>&1
echo "(exit status $?; the plan with its diffs: $OUT/plan.txt)"
sed -n '/^summary:/,$p' "$OUT/plan.txt"
step "deploy: converge (node stages, Spectrum Scale, OpenShift)"
run "$B" deploy -i "$kinv" --state-dir "$STATE"
echo "(run it again and nothing changes: every stage checks before it acts)"
step "precheck after deploy: green"
run "$B" precheck -i "$kinv"

F=$(printf 'dgx%02d' "$N")
step "validate with a seeded fault: $F's port mlx5_1 trained at 1X"
"$B" sim fault "$F" link-degraded mlx5_1
run "$B" validate --no-baseline -i "$kinv" --stage rdma,nccl --html "$OUT/validate.html"
echo "HTML report: $OUT/validate.html"

run_dir=$STATE/$(readlink "$STATE/last")
step "the deploy, replayed in the TUI"
echo "\$ $B tui --replay $run_dir --speed 20"
if [ "${DEMO_TUI:-1}" != 0 ] && [ -t 0 ] && [ -t 1 ]; then
	"$B" tui --replay "$run_dir" --speed 20
else
	echo "(run it on a terminal: q leaves)"
fi

step "done: bringup sim down"
down
trap - EXIT INT TERM

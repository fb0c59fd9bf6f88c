#!/bin/sh
# make demo: the main job on the built-in simulated cluster (real sshd nodes
# on loopback addresses), as a new user would run it:
#   a bare cluster: precheck says what a new cluster lacks; deploy plans,
#   converges (OFED, peer memory, SELinux, memlock, nouveau, subnet manager,
#   the Spectrum Scale client cluster with its remote file system over RDMA),
#   a second deploy changes nothing, and precheck turns green, scale.* too;
#   a ready cluster (as after the whole bring-up): precheck passes, then
#   names exactly the node and port of injected faults.
set -u
B=${BRINGUP:-./bringup}
export BRINGUP_SIM_DIR="${BRINGUP_SIM_DIR:-${HOME:-/tmp}/.local/state/bringup/demo}"
N=${DEMO_NODES:-8}
STATE=$BRINGUP_SIM_DIR-deploy-state

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; echo "(exit status $?)"; }

"$B" sim down >/dev/null 2>&1
trap '"$B" sim down >/dev/null 2>&1' EXIT INT TERM
rm -rf "$STATE"

step "A new cluster: $N DGX-1 nodes, operating system only"
inv=$("$B" sim up -n "$N" --state bare | tee /dev/stderr | sed -n 's/^inventory: //p')
[ -f "$inv" ] || { echo "demo: sim up failed" >&2; exit 1; }
run "$B" inventory show -i "$inv" --host dgx01

step "precheck: what is missing before bring-up"
run "$B" precheck -i "$inv"

step "deploy --check: the plan, nothing changed"
run "$B" deploy -i "$inv" --state-dir "$STATE" --check
step "deploy: converge"
run "$B" deploy -i "$inv" --state-dir "$STATE"
step "deploy again: nothing left to change"
run "$B" deploy -i "$inv" --state-dir "$STATE"
step "precheck after deploy: OFED, peer memory, memlock, subnet manager, Spectrum Scale are green"
run "$B" precheck -i "$inv"
step "the run's records for the OpenShift stage (cluster ID, FS UID, mount point)"
python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])).get("records"), indent=2))' \
	"$STATE/$(readlink "$STATE/last")/journal.json"

"$B" sim down >/dev/null
step "A cluster as after the whole bring-up"
inv=$("$B" sim up -n "$N" --state ready | sed -n 's/^inventory: //p')
run "$B" precheck -i "$inv"

step "Faults: a port trained at 1X on dgx03, a GPU power brake on dgx05, dgx07 hung"
"$B" sim fault dgx03 link-degraded mlx5_1
"$B" sim fault dgx05 gpu-throttle 2
"$B" sim fault dgx07 hang
run "$B" precheck -i "$inv" --timeout 15
run "$B" exec -i "$inv" --timeout 15 -- "ibstatus mlx5_1 | grep rate"

step "bringup sim down"
"$B" sim down
trap - EXIT INT TERM
rm -rf "$STATE"

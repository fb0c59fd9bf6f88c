#!/bin/sh
# make demo: start the built-in simulated cluster (real sshd nodes on
# loopback), then run bringup's main job on it, as a new user would.
set -eu
B=${BRINGUP:-./bringup}
export BRINGUP_SIM_DIR="${BRINGUP_SIM_DIR:-${HOME:-/tmp}/.local/state/bringup/demo}"
N=${DEMO_NODES:-8}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

"$B" sim down >/dev/null 2>&1 || true
step "bringup sim up -n $N --state ready"
out=$("$B" sim up -n "$N" --state ready)
echo "$out"
inv=$(echo "$out" | sed -n 's/^inventory: //p')
trap '"$B" sim down >/dev/null 2>&1' EXIT

step "bringup inventory show -i $inv"
"$B" inventory show -i "$inv" | head -n 30

step "bringup exec -i $inv -- ofed_info -s"
"$B" exec -i "$inv" -- ofed_info -s

node=$("$B" inventory show -i "$inv" -o json | python3 -c \
	'import json,sys; print(json.load(sys.stdin)["hosts"][2]["name"])')
step "bringup sim fault $node link-degraded; sim fault dgx?? hang; then look at every port"
"$B" sim fault "$node" link-degraded
"$B" exec -i "$inv" --timeout 5 -- "ibstat | grep -E \"^CA '|Rate:\"" || echo "(exit status $?: some host differs)"

step "bringup sim down"
"$B" sim down
trap - EXIT

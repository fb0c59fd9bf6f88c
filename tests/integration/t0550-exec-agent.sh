#!/bin/sh
# Keys from ssh-agent: with no key file in the inventory, bringup
# authenticates with the agent's key; without an agent (and no default key
# that fits) it fails as an authentication error, exit 3, naming the host.
. "$(dirname "$0")/lib.sh"
command -v ssh-agent >/dev/null && command -v ssh-add >/dev/null || skip ssh-agent
sim_up -n 2 --state ready
sed '/^    key: /d' "$INV" >"$TEST_DIR/agent.yaml"
grep -q '^    key: ' "$TEST_DIR/agent.yaml" && fail "key line still there"

# A HOME without default keys, so only the agent can succeed.
export HOME="$TEST_DIR/home"
mkdir -p "$HOME/.ssh"
unset SSH_AUTH_SOCK
out=$("$BRINGUP" exec -i "$TEST_DIR/agent.yaml" -- hostname 2>&1)
[ $? -eq 3 ] || fail "without agent or key: want exit 3: $out"
echo "$out" | grep -q 'authentication as .* failed' || fail "no authentication error: $out"

eval "$(ssh-agent -s)" >/dev/null
trap 'kill "$SSH_AGENT_PID" 2>/dev/null; cleanup' EXIT INT TERM
ssh-add -q "$BRINGUP_SIM_DIR/id_ed25519" 2>/dev/null || fail "ssh-add"
out=$("$BRINGUP" exec -i "$TEST_DIR/agent.yaml" -- hostname) || fail "agent auth failed: $out"
echo "$out" | grep -qx dgx01 && echo "$out" | grep -qx dgx02 || fail "hosts missing: $out"
exit 0

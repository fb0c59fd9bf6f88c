# Shared helpers for integration tests; source it first.
# Each test gets its own simulated-cluster directory and always stops its
# cluster on exit, whatever happened.
set -u
: "${BRINGUP:?set BRINGUP to the bringup binary}"
TEST_NAME=$(basename "$0" .sh)
TEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/bringup-$TEST_NAME.XXXXXX")
export BRINGUP_SIM_DIR="$TEST_DIR/sim"

cleanup() {
	"$BRINGUP" sim down >/dev/null 2>&1
	rm -rf "$TEST_DIR"
}
# A signal ends the test (its EXIT trap then cleans up): a trap that only
# cleaned up let a TERM'd test go on looping against a cluster it had
# taken down.
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() { echo "FAIL: $*" >&2; exit 1; }
# skip TOOL WHY: the test cannot run because an optional tool is missing.
# That is the only skip the runner accepts; any other exit 77 fails, so a
# regression cannot hide as a skip.
skip() { t=$1; shift; echo "missing optional tool: $t${*:+ ($*)}"; exit 77; }
# slow N: N seconds scaled for a slow build (make asan sets BRINGUP_TEST_SLOW=3:
# sanitized binaries, two tests at a time on two cores). For the limits a test
# gives healthy hosts; a limit the test waits out on purpose stays unscaled.
slow() { echo $(($1 * ${BRINGUP_TEST_SLOW:-1})); }
# expect_status WANT CMD...: runs CMD, fails the test unless it exits WANT.
expect_status() {
	want=$1; shift
	"$@"; got=$?
	[ "$got" -eq "$want" ] || fail "expected exit $want, got $got: $*"
}
# sim_up ARGS...: starts a cluster; sets INV to its inventory path, PORT and
# USER_ to how its nodes are reached.
sim_up() {
	INV=$("$BRINGUP" sim up "$@" | sed -n 's/^inventory: //p')
	[ -n "$INV" ] && [ -f "$INV" ] || fail "sim up $* printed no inventory"
	# A healthy node's login is a limit for healthy hosts too: under make
	# asan, beside a 64-node precheck, one took over the sim's 10 s in CI.
	if [ "${BRINGUP_TEST_SLOW:-1}" -gt 1 ]; then
		sed -i "s/^    connect_timeout: 10\$/    connect_timeout: $(slow 10)/" "$INV"
	fi
	PORT=$(sed -n 's/^    port: //p' "$INV")
	USER_=$(sed -n 's/^    user: "\(.*\)"$/\1/p' "$INV")
}
# sim_ssh ADDR CMD...: plain OpenSSH to a node, with strict host-key checking.
sim_ssh() {
	a=$1; shift
	ssh -i "$BRINGUP_SIM_DIR/id_ed25519" -o UserKnownHostsFile="$BRINGUP_SIM_DIR/known_hosts" \
		-o StrictHostKeyChecking=yes -o BatchMode=yes -o ConnectTimeout=5 -p "$PORT" \
		"$USER_@$a" "$@"
}
# all_ok N JSON: the deploy report (-o json) says N ok and nothing else.
all_ok() {
	printf '%s' "$2" | python3 -c '
import json, sys
d = json.load(sys.stdin)
want = {"ok": int(sys.argv[1]), "changed": 0, "failed": 0, "skipped": 0, "unreachable": 0}
assert d["totals"] == want, d["totals"]
' "$1"
}
# wait_while_running PID OUT POLLS WHAT CMD...: polls CMD every 0.05 s
# until it holds, for a run started in the background as PID (its output
# in OUT) that a test means to cut at that moment; fails naming WHAT if
# the run ends first or POLLS polls pass.
wait_while_running() {
	_wr_p=$1 _wr_o=$2 _wr_n=$3 _wr_w=$4
	shift 4
	_wr_i=0
	until "$@"; do
		kill -0 "$_wr_p" 2>/dev/null || fail "the run ended before $_wr_w: $(cat "$_wr_o")"
		_wr_i=$((_wr_i + 1))
		[ $_wr_i -lt "$_wr_n" ] || fail "$_wr_w: not within $_wr_n polls"
		sleep 0.05
	done
}
# wait_ready FILE PID: waits (60 s at most) for a helper started in the
# background as PID to print its "ready" line into FILE; fails if it dies.
wait_ready() {
	i=0
	until grep -q '^ready' "$1"; do
		i=$((i + 1))
		[ $i -le 600 ] && kill -0 "$2" 2>/dev/null || fail "helper not ready: $(cat "$1")"
		sleep 0.1
	done
}
# ofed_playbook TGZ: writes $TEST_DIR/pb.yaml, the ofed stage alone on
# gpu_worker with tarball TGZ.
ofed_playbook() {
	cat >"$TEST_DIR/pb.yaml" <<YAML
name: ofed-only
stages:
  - name: ofed
    module: ofed
    hosts: gpu_worker
    params:
      tarball: $1
YAML
}

# fabric_pre NAME [INVENTORY]: precheck's ib.* checks as JSON into
# $TEST_DIR/NAME.json (exit status as precheck's).
fabric_pre() {
	"$BRINGUP" precheck -i "${2:-$INV}" --checks 'ib.*' --timeout 30 -o json --output "$TEST_DIR/$1.json"
}
# fabric_results FILE CHECK...: "host|check|subject|status|found" for the
# failures and for every result of the named (fabric-wide) checks.
fabric_results() {
	python3 - "$@" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["status"] == "fail" or r["check"] in sys.argv[2:]:
        print("|".join([r["host"], r["check"], r["subject"] or "", r["status"], r.get("found") or ""]))
PY
}

# Helpers for the TUI's tests (t1300-t1349): the TUI runs in a tmux pane of
# its own server; keys go in with send-keys, the screen comes back with
# capture-pane. Source lib.sh first.
command -v tmux >/dev/null 2>&1 || skip tmux "drives the TUI in a terminal"
# Each tui_start gets a server of its own: kill-server returns before the
# old server is gone, and a new session on its socket then met a dying
# server ("server exited unexpectedly").
TMUX_N=0
TMUX_SOCK="bringup-$TEST_NAME-$$-0"
T() { tmux -L "$TMUX_SOCK" -f /dev/null "$@"; }
tui_cleanup() {
	k=0
	while [ $k -le $TMUX_N ]; do
		tmux -L "bringup-$TEST_NAME-$$-$k" -f /dev/null kill-server >/dev/null 2>&1
		k=$((k + 1))
	done
	cleanup
}
trap tui_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# tui_start W H CMD: runs CMD in a W x H pane (UTF-8). When CMD ends, the
# pane prints EXIT=<status> and the terminal modes (stty -a) and stays.
tui_start() {
	w=$1 h=$2; shift 2
	TMUX_N=$((TMUX_N + 1))
	TMUX_SOCK="bringup-$TEST_NAME-$$-$TMUX_N"
	cat >"$TEST_DIR/pane.sh" <<SH
cd '$PWD'
trap : INT
$*
echo "EXIT=\$?"
stty -a | tr ';' '\n' | grep -Eo -- '(-)?(icanon|echo)\b' | tr '\n' ' '
echo STTY-DONE
exec sleep 600
SH
	T new-session -d -x "$w" -y "$h" -e LANG=C.UTF-8 -e LC_ALL=C.UTF-8 \
		-e BRINGUP_SIM_DIR="$BRINGUP_SIM_DIR" -e BRINGUP="$BRINGUP" \
		-e NO_COLOR="${NO_COLOR:-}" "sh $TEST_DIR/pane.sh" ||
		fail "tmux cannot start"
}
screen() { T capture-pane -p; }
# wait_screen ERE [SECONDS]: until the screen matches (default 45 s).
wait_screen() {
	echo "$(date +%T) wait $1" >&2
	n=$(( ${2:-45} * 10 ))
	i=0
	until screen | grep -Eq -- "$1"; do
		i=$((i + 1))
		[ $i -le $n ] || { screen >&2; fail "the screen never showed /$1/"; }
		sleep 0.1
	done
}
# row NAME: the matrix row of a host (or a folded node set).
row() { screen | grep -E "^ *[▸▾]? *$1 "; }
keys() { T send-keys "$@"; }
# expect_row NAME ERE: the host's row matches.
expect_row() {
	r=$(row "$1")
	echo "$r" | grep -Eq -- "$2" || { screen >&2; fail "row $1 is '$r', not /$2/"; }
}
# The pane's program ended with EXIT=N and gave the terminal back: the
# alternate screen is off, the cursor shows, the line discipline is cooked.
expect_restored() {
	wait_screen "STTY-DONE" 60
	screen | grep -q "EXIT=$1" || { screen >&2; fail "exit status not $1"; }
	[ "$(T display -p '#{alternate_on}')" = 0 ] || fail "still on the alternate screen"
	[ "$(T display -p '#{cursor_flag}')" = 1 ] || fail "the cursor is hidden"
	screen | grep -q -- "^icanon echo " || { screen >&2; fail "terminal modes not restored"; }
}
# A two-stage playbook (memlock, nouveau) on gpu_worker; SERIAL=1 runs memlock a host at a time.
tui_playbook() {
	{
		echo "name: deploy"
		echo "stages:"
		echo "  - name: memlock"
		echo "    module: memlock"
		echo "    hosts: gpu_worker"
		[ -n "${SERIAL:-}" ] && echo "    serial: $SERIAL"
		echo "  - name: nouveau"
		echo "    module: nouveau"
		echo "    hosts: gpu_worker"
	} >"$TEST_DIR/pb.yaml"
}
# break_memlock NODE: a file stands where limits.d must be a directory.
break_memlock() {
	mkdir -p "$BRINGUP_SIM_DIR/nodes/$1/root/etc/security" &&
		touch "$BRINGUP_SIM_DIR/nodes/$1/root/etc/security/limits.d" || fail "cannot break $1"
}
mend_memlock() { rm -f "$BRINGUP_SIM_DIR/nodes/$1/root/etc/security/limits.d"; }

# matrix_ok [EVENTS]: the matrix does not lie. The rows drawn are one
# contiguous window of the row list: "row N/M" with "↑A" rows hidden above
# and "↓B" below, M-A-B rows drawn with no gap, no empty line while rows hide
# below, and the chosen row N is the one line in reverse video. With EVENTS
# (a finished run's events.jsonl), the header's hosts per state are the
# run's own, counted per host (the worst state of its cells) from the file,
# and no cell reads pending. Retries for up to 3 s (a frame may be on its way).
# The system's python3 where there is one: a version manager's shim costs
# seconds a start on a loaded machine, and matrix_ok runs after every key.
PY3=$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)
matrix_ok() {
	k=0
	while :; do
		T capture-pane -p >"$TEST_DIR/scr.txt"
		T capture-pane -p -e >"$TEST_DIR/scr-e.txt"
		why=$("$PY3" - "$TEST_DIR/scr.txt" "$TEST_DIR/scr-e.txt" "${1:-}" <<'PY'
import json, re, sys
plain = open(sys.argv[1], encoding="utf-8").read().split("\n")
esc = open(sys.argv[2], encoding="utf-8").read().split("\n")
def bad(msg):
    print(msg); sys.exit(0)
sep = next((i for i in range(4, len(plain)) if re.match(r"^[─-]", plain[i])), None)
if sep is None:
    bad("no separator line under the rows")
m = re.search(r" row (\d+)/(\d+)( [↑^](\d+))?( [↓v](\d+))? ", plain[sep])
if not m:
    bad("no 'row N/M' on the separator: " + plain[sep])
n, total = int(m.group(1)), int(m.group(2))
above, below = int(m.group(4) or 0), int(m.group(6) or 0)
region = plain[4:sep]
drawn = [i for i, l in enumerate(region) if l.strip()]
if drawn != list(range(len(drawn))):
    bad("a gap among the rows drawn")
if len(drawn) != total - above - below:
    bad("%d rows drawn, but row %d/%d with %d above and %d below" % (len(drawn), n, total, above, below))
if below and len(drawn) != len(region):
    bad("empty lines below while %d rows hide below" % below)
if above and len(drawn) < len(region):
    bad("empty lines below while %d rows hide above" % above)
if not above + 1 <= n <= above + len(drawn):
    bad("the chosen row %d is not among rows %d-%d" % (n, above + 1, above + len(drawn)))
rev = [i for i in range(4, sep) if re.search(r"\x1b\[(\d+;)*7(;\d+)*m", esc[i])]
if rev != [4 + n - above - 1]:
    bad("reverse video on lines %s, not on the chosen row's line %d" % (rev, 4 + n - above - 1))
if sys.argv[3]:
    worst = {"unreachable": 8, "failed": 7, "running": 6, "pending": 5, "changed": 4, "ok": 3, "skipped": 2}
    cells, hosts = {}, []
    for line in open(sys.argv[3], encoding="utf-8"):
        e = json.loads(line)
        if "bringup_events" in e:
            hosts = e["hosts"]
        elif e.get("ev") == "host_done":
            cells[(e["host"], e["stage"])] = e["result"]
    per = {}
    for h in hosts:
        st = [cells[c] for c in cells if c[0] == h]
        if st:
            s = max(st, key=lambda r: worst[r])
            per[s] = per.get(s, 0) + 1
    want = [per.get(s, 0) for s in ("ok", "changed", "failed", "unreachable", "skipped", "running", "pending")]
    got = [int(x) for x in re.findall(r"(\d+)", plain[1])]
    if got != want:
        bad("header counts %s, the run's are %s (ok changed failed unreach skipped running pending)" % (got, want))
    if any("·" in l or " . " in l for l in region):
        bad("a cell reads pending in a finished run")
PY
)
		[ -z "$why" ] && return 0
		k=$((k + 1))
		[ $k -lt 15 ] || { cat "$TEST_DIR/scr.txt" >&2; fail "matrix: $why"; }
		sleep 0.2
	done
}

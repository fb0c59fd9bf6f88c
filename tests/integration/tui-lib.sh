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
trap tui_cleanup EXIT INT TERM

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

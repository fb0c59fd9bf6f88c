#!/bin/sh
# tools/tui-screenshots.sh [OUTDIR]: the README's screenshots of the TUI.
# A real deploy on the simulated cluster (24 nodes, memlock then nouveau, two
# nodes' limits.d broken so that memlock fails there) runs in a tmux pane;
# once memlock is through and nouveau runs, p pauses new work, a failed host
# is selected (at 80x24 the hosts fold into node sets; Enter opens one),
# and the pane is captured with its colours (capture-pane -e) at 80x24 and
# at 160x40, then drawn to PNG by tools/ansi2png.py. Run from the tree's
# root after make. Needs tmux, python3-pil and fonts-dejavu-core, which only
# making these images needs (they are not in tools/install-deps.sh).
set -eu
B=${BRINGUP:-$PWD/build/bringup}
OUT=${1:-doc}
# Debian's python3 (python3-pil), not one first on PATH without PIL
PY=${PYTHON:-/usr/bin/python3}
W=$(mktemp -d "${TMPDIR:-/tmp}/tui-shots.XXXXXX")
export BRINGUP_SIM_DIR="$W/sim"
SOCK="tui-shots-$$"
T() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'T kill-server >/dev/null 2>&1; "$B" sim down >/dev/null 2>&1; rm -rf "$W"' EXIT INT TERM
mkdir -p "$OUT"
wait_screen() { # ERE SECONDS
	i=0
	until T capture-pane -p | grep -Eq -- "$1"; do
		i=$((i + 1))
		[ $i -le $(($2 * 10)) ] || { T capture-pane -p >&2; echo "never showed /$1/" >&2; exit 1; }
		sleep 0.1
	done
}

INV=$("$B" sim up -n 24 --state bare | sed -n 's/^inventory: //p')
[ -f "$INV" ] || { echo "sim up failed" >&2; exit 1; }
cat >"$W/pb.yaml" <<'YAML'
name: deploy
stages:
  - name: memlock
    module: memlock
    hosts: gpu_worker
  - name: nouveau
    module: nouveau
    hosts: gpu_worker
YAML
# a file stands where /etc/security/limits.d must be a directory
for n in dgx03 dgx17; do
	mkdir -p "$BRINGUP_SIM_DIR/nodes/$n/root/etc/security"
	touch "$BRINGUP_SIM_DIR/nodes/$n/root/etc/security/limits.d"
done

T new-session -d -x 80 -y 24 -e LANG=C.UTF-8 -e LC_ALL=C.UTF-8 -e TERM=xterm-256color \
	-e BRINGUP_SIM_DIR="$BRINGUP_SIM_DIR" \
	"$B tui -i '$INV' -p '$W/pb.yaml' --state-dir '$W/state'; sleep 600"
# memlock done on all (22 changed, 2 failed), nouveau under way
wait_screen 'changed (2[2-9]|[3-9][0-9]) .*failed 2 ' 300
T send-keys p
wait_screen 'paused' 10
T send-keys f
wait_screen 'failures only' 10
T send-keys Home
wait_screen 'dgx03 · memlock · failed' 10
T send-keys f
sleep 0.3
T capture-pane -e -p >"$W/80x24.ans"
T resize-window -x 160 -y 40
sleep 1 # SIGWINCH, then a frame
T capture-pane -e -p >"$W/160x40.ans"
T send-keys p
"$PY" "$(dirname "$0")/ansi2png.py" "$W/80x24.ans" "$OUT/tui-80x24.png" 80 24
"$PY" "$(dirname "$0")/ansi2png.py" "$W/160x40.ans" "$OUT/tui-160x40.png" 160 40
[ -z "${KEEP_CAPTURES:-}" ] || cp "$W"/*.ans "$OUT"/
ls -l "$OUT/tui-80x24.png" "$OUT/tui-160x40.png"

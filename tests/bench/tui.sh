#!/bin/sh
# The TUI's responsiveness at 1,000 hosts: a recorded run of 1,000 hosts and
# 8 stages (events.jsonl written here, ~24,000 events) replayed in a tmux
# pane (200x60) while keys go in; for each key (help on and off, failures
# only on and off), the time from send-keys to the first capture-pane that
# shows its effect. Target: under 100 ms. BENCH_TUI_HOSTS=4 gives the floor
# of the measurement itself (tmux and the pty); BENCH_TUI_BASE=BINARY
# measures that binary too, on the same recorded run, for a comparison.
# Usage: BRINGUP=... sh tests/bench/tui.sh
set -u
: "${BRINGUP:?set BRINGUP to the bringup binary}"
command -v tmux >/dev/null || { echo "tui bench: tmux missing"; exit 0; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-tui.XXXXXX")
sock="bench-tui-$$"
T() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'T kill-server >/dev/null 2>&1; rm -rf "$dir"' EXIT
python3 - "$dir" "${BENCH_TUI_HOSTS:-1000}" <<'PY'
import json, sys, random
random.seed(1)
d = sys.argv[1]
stages = ["ofed", "peermem", "selinux_ib", "memlock", "nouveau", "sm_fabric", "scale", "validate"]
hosts = ["dgx%04d" % i for i in range(1, int(sys.argv[2]) + 1)]
with open(d + "/events.jsonl", "w") as f:
    w = lambda o: f.write(json.dumps(o) + "\n")
    w({"bringup_events": 1, "cluster": "bench", "playbook": "deploy", "stages": stages, "hosts": hosts})
    t = 0.0
    for s in range(len(stages)):
        w({"t": t, "ev": "stage_start", "stage": s, "hosts": "dgx[0001-%04d]" % len(hosts)})
        for h in hosts:
            w({"t": t, "ev": "host_start", "stage": s, "host": h})
            w({"t": t, "ev": "output", "stage": s, "host": h, "msg": "working on " + h})
            fail = random.random() < 0.01
            w({"t": t, "ev": "host_done", "stage": s, "host": h, "result": "failed" if fail else "changed",
               "reason": "boom" if fail else None, "duration_s": 1.0})
            t += 0.004
        w({"t": t, "ev": "stage_done", "stage": s})
    w({"t": t, "ev": "run_done", "interrupted": False})
PY
# One tmux control-mode client (tmux -C) sends the keys and polls capture-pane:
# a new tmux client per poll costs tens of ms on a loaded machine and hid
# the TUI's own time (it measured 94 ms at 4 hosts).
cat >"$dir/measure.py" <<'PY'
import os, subprocess, sys, time, re, statistics
sock = sys.argv[1]
p = subprocess.Popen(["tmux", "-L", sock, "-f", "/dev/null", "-C", "attach"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, bufsize=0)
buf = b""
def cmd(c):
    global buf
    p.stdin.write(c.encode() + b"\n")
    out = []
    inblock = False
    while True:
        while b"\n" not in buf:
            d = os.read(p.stdout.fileno(), 65536)
            if not d: raise SystemExit("tmux control client ended")
            buf += d
        line, buf = buf.split(b"\n", 1)
        if line.startswith(b"%begin"):
            inblock = True; out = []; continue
        if line.startswith(b"%end") or line.startswith(b"%error"):
            if inblock: return b"\n".join(out).decode("utf-8", "replace")
            continue
        if inblock: out.append(line)
cmd("refresh-client")
res = []
def measure(key, ere, shown):
    # the effect: ERE appears (shown) or goes (not shown)
    t0 = time.monotonic()
    cmd("send-keys " + key)
    while bool(re.search(ere, cmd("capture-pane -p"), re.M)) != shown: pass
    res.append((time.monotonic() - t0) * 1000)
for i in range(5):
    measure("'?'", r"bringup tui: help", True); measure("x", r"bringup tui: help", False)
    measure("f", r"\[failures only\]", True); measure("f", r"\[failures only\]", False)
    time.sleep(0.2)
p.stdin.close()
print("%d hosts x 8 stages replay: key -> screen ms: median %.0f, max %.0f (n=%d; target < 100)" % (int(sys.argv[2]), statistics.median(res), max(res), len(res)))
PY
med() { sort -n | awk '{v[NR]=$1} END {if (NR) printf "%.2f", v[int((NR+1)/2)]; else printf "-"}'; }
one() { # BINARY LABEL
	T kill-server >/dev/null 2>&1
	rm -f "$dir/stats"
	# the replay runs for ~30 s at speed 1: keys land while events pour in
	T new-session -d -x 200 -y 60 -e LANG=C.UTF-8 -e BRINGUP_TUI_STATS="$dir/stats" \
		"$1 tui --replay $dir --speed 1; sleep 60"
	sleep 2
	echo "tui$2: $(python3 "$dir/measure.py" "$sock" "${BENCH_TUI_HOSTS:-1000}"), window" \
		"$(T display -p "#{window_width}x#{window_height}"), load $(cut -d' ' -f1 /proc/loadavg)"
	# inside the TUI (BRINGUP_TUI_STATS): the frame's build and the key to its frame written
	[ -s "$dir/stats" ] &&
	echo "tui$2: inside: frame build ms median $(awk '{print $3}' "$dir/stats" | med)" \
		"max $(awk '{print $3}' "$dir/stats" | sort -n | tail -1)," \
		"key to frame written ms median $(awk '$9 >= 0 {print $9}' "$dir/stats" | med)"
	T kill-server >/dev/null 2>&1
}
one "$BRINGUP" ""
[ -z "${BENCH_TUI_BASE:-}" ] || one "$BENCH_TUI_BASE" " (base $BENCH_TUI_BASE)"
exit 0

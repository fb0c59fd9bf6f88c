#!/bin/sh
# make bench (copy): `bringup copy` of one BENCH_COPY_MB MiB file to
# BENCH_COPY_HOSTS simulated hosts, against OpenSSH's scp to the same hosts,
# all at once (xargs -P). bringup's time includes what scp does not do: the
# local SHA-256 (once per run) and sha256sum of each copy on its host.
# Target: bringup within 2x of scp. Runs alternate between the two tools so
# that a shared machine's load falls on both alike.
# Results go to stdout and build/bench/copy.txt.
#
#   BENCH_COPY_MB=256     file size
#   BENCH_COPY_HOSTS=8    hosts (and scp processes at once)
#   BENCH_RUNS=3          runs of each; the medians are compared
set -u
: "${BRINGUP:?set BRINGUP to the bringup binary}"
MB=${BENCH_COPY_MB:-256}
HOSTS=${BENCH_COPY_HOSTS:-8}
RUNS=${BENCH_RUNS:-3}
out_dir=$(pwd)/build/bench
mkdir -p "$out_dir"
results="$out_dir/copy.txt"
export BRINGUP_SIM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/bringup-bench-copy.XXXXXX")
trap '"$BRINGUP" sim down >/dev/null 2>&1; rm -rf "$BRINGUP_SIM_DIR"' EXIT INT TERM

inv=$("$BRINGUP" sim up -n "$HOSTS" --state ready | sed -n 's/^inventory: //p')
[ -f "$inv" ] || { echo "sim up -n $HOSTS failed" >&2; exit 1; }
blob=$BRINGUP_SIM_DIR/blob
head -c "$((MB << 20))" /dev/urandom >"$blob"
field() { sed -n "s/^ *$1: *//p" "$inv" | head -n 1 | tr -d '"'; }
key=$(field key) kh=$(field known_hosts) port=$(field port) user=$(field user)
"$BRINGUP" inventory show -i "$inv" -o json | python3 -c \
	'import json,sys; [print(h["ssh"]["address"]) for h in json.load(sys.stdin)["hosts"]]' \
	>"$BRINGUP_SIM_DIR/addrs"
# scp's own defaults (the SFTP protocol, as bringup): only the identity.
export SCP="scp -q -i $key -P $port -o UserKnownHostsFile=$kh -o StrictHostKeyChecking=yes -o BatchMode=yes"
export blob user

# one FILE CMD...: runs CMD once and appends "WALL_S RSS_KB" (or "fail") to FILE.
one() {
	f=$1; shift
	if /usr/bin/time -f '%e %M' -o "$BRINGUP_SIM_DIR/time" "$@" >"$BRINGUP_SIM_DIR/out" 2>&1; then
		cat "$BRINGUP_SIM_DIR/time" >>"$f"
	else
		echo "bench: failed: $*" >&2
		tail -n 5 "$BRINGUP_SIM_DIR/out" >&2
		echo fail >>"$f"
	fi
}
# col N FILE: column N of FILE's runs, on one line; med N FILE: its median.
col() { cut -d' ' -f"$1" "$2" | tr '\n' ' '; }
med() { cut -d' ' -f"$1" "$2" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

"$BRINGUP" exec -i "$inv" -- true >/dev/null || { echo "cluster not healthy" >&2; exit 1; }
B=$BRINGUP_SIM_DIR/bringup.runs S=$BRINGUP_SIM_DIR/scp.runs
: >"$B"; : >"$S"
for _ in $(seq "$RUNS"); do
	one "$B" "$BRINGUP" copy -i "$inv" -f "$HOSTS" "$blob" /var/tmp/bench-bringup
	one "$S" xargs -a "$BRINGUP_SIM_DIR/addrs" -P "$HOSTS" -I{} \
		sh -c '$SCP "$blob" "$user@$1:/var/tmp/bench-scp"' sh {}
done
grep -q fail "$B" "$S" && { echo "bench: a copy failed; no comparison" >&2; exit 1; }
bw=$(med 1 "$B") sw=$(med 1 "$S")
{
	printf '%-6s %-5s %-26s %7s %7s  %s\n' hosts MiB tool wall_s rss_MB "runs (s)"
	printf '%-6s %-5s %-26s %7s %7s  %s\n' "$HOSTS" "$MB" "bringup copy" "$bw" \
		"$(($(cut -d' ' -f2 "$B" | sort -n | tail -n 1) / 1024))" "$(col 1 "$B")"
	printf '%-6s %-5s %-26s %7s %7s  %s\n' "$HOSTS" "$MB" "scp, $HOSTS at once (xargs)" "$sw" \
		- "$(col 1 "$S")"
	printf '%-6s %-5s %-26s %7s\n' "$HOSTS" "$MB" "ratio (target <= 2.00)" \
		"$(awk "BEGIN{printf \"%.2f\", $bw/$sw}")"
} | tee "$results"
echo "results: $results"

#!/bin/sh
# bringup exec reaches every host and folds identical output under one node
# set; distinct outputs stay apart; --limit and -o json work.
. "$(dirname "$0")/lib.sh"
sim_up -n 8 --state ready

out=$("$BRINGUP" exec -i "$INV" -- echo same) || fail "exec echo failed: $out"
echo "$out" | grep -qx 'dgx\[01-08\] (8)' || fail "no folded group for all 8 hosts: $out"
echo "$out" | grep -qx 'exit 0: dgx\[01-08\]' || fail "no exit summary: $out"
[ "$(echo "$out" | grep -c '^same$')" -eq 1 ] || fail "output printed more than once: $out"

# Each host prints its own name: eight groups of one.
out=$("$BRINGUP" exec -i "$INV" -- hostname) || fail "exec hostname failed"
for n in 01 02 03 04 05 06 07 08; do
	echo "$out" | grep -qx "dgx$n" || fail "dgx$n missing from: $out"
done

# Exit statuses are reported per group and make the run fail.
out=$("$BRINGUP" exec -i "$INV" -- 'case $(hostname) in dgx0[12]) exit 3;; esac; true')
[ $? -eq 1 ] || fail "a failing host must make exec exit 1"
echo "$out" | grep -qx 'exit 3: dgx\[01-02\]' || fail "exit 3 group missing: $out"
echo "$out" | grep -qx 'exit 0: dgx\[03-08\]' || fail "exit 0 group missing: $out"

# --limit with a node set and a group; JSON output.
out=$("$BRINGUP" exec -i "$INV" --limit 'dgx[02-03]' -o json -- hostname) || fail "limit json"
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
hosts = [h["host"] for h in d["hosts"]]
assert hosts == ["dgx02", "dgx03"], hosts
assert all(h["status"] == "ok" and h["exit_status"] == 0 for h in d["hosts"])
assert d["hosts"][0]["stdout"] == "dgx02\n", d["hosts"][0]
' || fail "json output wrong: $out"
n=$("$BRINGUP" exec -i "$INV" --limit scale_quorum -o json -- true | python3 -c \
	'import json,sys; print(len(json.load(sys.stdin)["hosts"]))')
[ "$n" -ge 1 ] && [ "$n" -le 3 ] || fail "group limit selected $n hosts"

# The environment is explicit: C locale whatever the caller has.
out=$(LC_ALL=de_DE.UTF-8 "$BRINGUP" exec -i "$INV" --limit dgx01 -- 'echo $LC_ALL')
echo "$out" | grep -qx C || fail "LC_ALL not C: $out"

# stdin of the remote command is closed: a command reading it does not hang.
out=$("$BRINGUP" exec -i "$INV" --limit dgx01 --timeout 5 -- 'cat; echo done')
echo "$out" | grep -qx done || fail "cat waited on stdin: $out"
exit 0

#!/bin/sh
# bringup copy: a file reaches every host over SFTP intact (checked by
# sha256 on the host), lands in the node's own /opt, and a copy that cannot
# be written fails on that host without leaving a partial file.
. "$(dirname "$0")/lib.sh"
sim_up -n 4 --state ready
blob="$TEST_DIR/blob"
head -c 3000000 /dev/urandom >"$blob"
sum=$(sha256sum <"$blob" | cut -d' ' -f1)
target=/opt/bringup-t0540-$$

out=$("$BRINGUP" copy -i "$INV" --mode 0600 "$blob" "$target") || fail "copy failed: $out"
echo "$out" | grep -qx "copied $blob to $target: dgx\[01-04\]" || fail "summary: $out"
out=$("$BRINGUP" exec -i "$INV" -- "sha256sum < $target | cut -d' ' -f1; stat -c %a $target; ls $target.bringup-part 2>&1 | wc -l")
echo "$out" | grep -qx 'dgx\[01-04\] (4)' || fail "hosts differ: $out"
echo "$out" | grep -qx "$sum" || fail "checksum differs: $out"
echo "$out" | grep -qx 600 || fail "mode not applied: $out"
[ ! -e "$target" ] || fail "the copy landed on this machine, not in the nodes"

out=$("$BRINGUP" copy -i "$INV" "$blob" /nonexistent-dir/x)
[ $? -eq 1 ] || fail "copy into a missing directory must fail with 1: $out"
[ "$(echo "$out" | grep -c '^failed: dgx0[1-4]: ')" -eq 4 ] || fail "not every host named: $out"
exit 0

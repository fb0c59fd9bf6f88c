#!/bin/sh
# ^C during `bringup copy`: the first one stops the transfers in flight
# promptly (not when the file is done), says so per host, exits 1 and keeps
# each part file; the next copy of the same file continues from it and
# lands the whole file, checked by sha256.
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state ready
big="$TEST_DIR/big.bin"
head -c $((768 << 20)) /dev/urandom >"$big" || fail "cannot make the test file"
want=$(sha256sum <"$big" | cut -d' ' -f1)
part=/var/tmp/t0543/big.bin.bringup-part
sim_ssh 127.0.1.1 mkdir -p /var/tmp/t0543 && sim_ssh 127.0.1.2 mkdir -p /var/tmp/t0543 ||
	fail "mkdir"

"$BRINGUP" copy -i "$INV" "$big" /var/tmp/t0543/ >"$TEST_DIR/int.out" 2>&1 &
pid=$!
# Interrupt once both part files hold some bytes: the transfers are running.
i=0
until [ "$(sim_ssh 127.0.1.1 "stat -c %s $part 2>/dev/null || echo 0")" -gt 0 ] &&
      [ "$(sim_ssh 127.0.1.2 "stat -c %s $part 2>/dev/null || echo 0")" -gt 0 ]; do
	i=$((i + 1))
	[ $i -le 600 ] && kill -0 $pid 2>/dev/null || { kill -KILL $pid 2>/dev/null
		fail "the transfers never started (or ended first): $(cat "$TEST_DIR/int.out")"; }
	sleep 0.1
done
t0=$(date +%s)
kill -INT $pid
wait $pid
rc=$?
secs=$(( $(date +%s) - t0 ))
[ $rc -eq 1 ] || fail "exit $rc after ^C, want 1: $(cat "$TEST_DIR/int.out")"
# Well before the rest of 768 MiB could cross a loaded machine's loopback.
[ $secs -le 20 ] || fail "the copy took ${secs}s to stop after ^C"
grep -q '^failed: dgx01: .*upload cancelled after [0-9]* bytes' "$TEST_DIR/int.out" ||
	fail "dgx01 not named cancelled: $(cat "$TEST_DIR/int.out")"
for a in 127.0.1.1 127.0.1.2; do
	have=$(sim_ssh $a "stat -c %s $part") || fail "$a: no part file kept"
	[ "$have" -lt $((768 << 20)) ] || fail "$a: the whole file crossed before ^C took effect"
	sim_ssh $a "test ! -e /var/tmp/t0543/big.bin" || fail "$a: a cut file took the real name"
done

# The next copy continues the part files and lands the whole file.
out=$("$BRINGUP" copy -i "$INV" "$big" /var/tmp/t0543/ 2>&1) || fail "second copy: $out"
for a in 127.0.1.1 127.0.1.2; do
	got=$(sim_ssh $a "sha256sum /var/tmp/t0543/big.bin" | cut -d' ' -f1)
	[ "$got" = "$want" ] || fail "$a: sha256 $got, want $want"
	sim_ssh $a "test ! -e $part" || fail "$a: part file left after the copy"
done
exit 0

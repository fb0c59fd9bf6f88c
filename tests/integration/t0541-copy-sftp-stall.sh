#!/bin/sh
# bringup copy on hosts whose SFTP server stalls: one whose server accepts
# the subsystem and never answers (stalls in init), one whose server stops
# reading after 8 MiB of a 24 MiB file (stalls mid-transfer), one whose
# answers stop reaching us after 2 KiB while it goes on writing. Each fails
# on its own within --timeout with "sftp stalled after N bytes" naming the
# step; the healthy host gets its file; nothing hangs. The last one also
# shows that writes are pipelined: the server wrote well beyond the N
# bytes we saw confirmed (one write at a time, it would be one write
# beyond). The stalling servers are real OpenSSH sftp-servers behind a
# wrapper planted at the path the node's sshd runs (as an admin's broken
# replacement would be).
. "$(dirname "$0")/lib.sh"
sim_up -n 4 --state ready
NODES=$BRINGUP_SIM_DIR/nodes
server=$(sed -n 's/^Subsystem sftp //p' "$NODES/dgx01/sshd_config")
[ -n "$server" ] || skip "the simulated nodes have no SFTP subsystem"
blob="$TEST_DIR/blob"
head -c $((24 << 20)) /dev/urandom >"$blob"
sum=$(sha256sum <"$blob" | cut -d' ' -f1)
target=/var/tmp/t0541-blob

# plant ADDR SCRIPT: the node's sftp server becomes SCRIPT, the real one
# stays beside it as SERVER.real.
plant() {
	sim_ssh "$1" "cp '$server' '$server.real' && cat >'$server' && chmod 755 '$server'" <<EOF ||
#!/bin/sh
$2
EOF
		fail "cannot plant a stalling sftp server on $1"
}
plant 127.0.1.2 'exec sleep 3600'
plant 127.0.1.3 "{ stdbuf -o0 head -c $((8 << 20)); exec sleep 3600; } | '$server.real'"
plant 127.0.1.4 "'$server.real' | { stdbuf -o0 head -c 2048; exec sleep 3600; }"

start=$(date +%s)
out=$(timeout 300 "$BRINGUP" copy -i "$INV" --timeout 10 "$blob" "$target"); rc=$?
took=$(($(date +%s) - start))
[ $rc -ne 124 ] || fail "copy hung on a stalled sftp server: $out"
[ $rc -eq 1 ] || fail "exit $rc, want 1: $out"
echo "$out" | grep -Eq '^failed: dgx02: host dgx02: sftp stalled after 0 bytes \(init: no answer in 10 s\)$' ||
	fail "dgx02 (silent server) not reported as a stall in init: $out"
line=$(echo "$out" | grep '^failed: dgx03: ')
n=$(echo "$line" | sed -n 's/.*sftp stalled after \([0-9]*\) bytes (write: no answer in 10 s)$/\1/p')
[ -n "$n" ] || fail "dgx03 (server stopped mid-transfer) not reported as a stall in write: $out"
[ "$n" -gt 0 ] && [ "$n" -le $((8 << 20)) ] || fail "dgx03 stalled after $n bytes, want 1..8 MiB"
line=$(echo "$out" | grep '^failed: dgx04: ')
m=$(echo "$line" | sed -n 's/.*sftp stalled after \([0-9]*\) bytes (write: no answer in 10 s)$/\1/p')
[ -n "$m" ] || fail "dgx04 (answers lost) not reported as a stall in write: $out"
wrote=$(stat -c %s "$NODES/dgx04/root$target.bringup-part")
[ "$wrote" -ge $((m + (1 << 20))) ] ||
	fail "dgx04 wrote $wrote bytes, $m confirmed: writes were not pipelined"
echo "$out" | grep -qx "copied $blob to $target: dgx01" || fail "dgx01 did not get its copy: $out"
[ "$took" -lt 240 ] || fail "the stalls took $took s to be cut with --timeout 10"

got=$(sim_ssh 127.0.1.1 "sha256sum <$target | cut -d' ' -f1")
[ "$got" = "$sum" ] || fail "dgx01's copy is corrupt"
[ ! -e "$NODES/dgx03/root$target" ] || fail "a half file under the real name on dgx03"
[ -f "$NODES/dgx03/root$target.bringup-part" ] || fail "dgx03's part file is gone: nothing to resume"

# Without --timeout, the inventory's command_timeout bounds the steps.
sed -i 's/^    connect_timeout: .*/&\n    command_timeout: 2/' "$INV"
grep -qx '    command_timeout: 2' "$INV" || fail "cannot set command_timeout in $INV"
out=$(timeout 300 "$BRINGUP" copy -i "$INV" -l dgx02 "$blob" "$target"); rc=$?
[ $rc -eq 1 ] || fail "exit $rc with the inventory's command_timeout: $out"
echo "$out" | grep -q 'sftp stalled after 0 bytes (init: no answer in 2 s)' ||
	fail "the inventory's command_timeout did not bound the upload: $out"
exit 0

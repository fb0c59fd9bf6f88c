#!/bin/sh
# bringup copy where the destination is a directory, and where someone
# planted things in a directory others can write to (/tmp):
# - `copy F /tmp` and `copy F /tmp/` land at /tmp/F (as scp does), with no
#   stray /tmp.bringup-part or /tmp/tmp.bringup-part;
# - a symlink planted at NAME.bringup-part is never written through (the
#   file it points to keeps its content) and the host fails naming it;
# - a part file owned by another user is not continued;
# - a symlink at the final name is replaced, not followed; one to a
#   directory is refused with a hint instead of moving the file into it.
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state ready
NODES=$BRINGUP_SIM_DIR/nodes
blob="$TEST_DIR/blob"
head -c 3000000 /dev/urandom >"$blob"
sum=$(sha256sum <"$blob" | cut -d' ' -f1)
copy() { "$BRINGUP" copy -i "$INV" "$@"; }
on() { a=$1; shift; sim_ssh "$a" "$@" || fail "on $a: $*"; }

# A directory, with and without the slash.
out=$(copy "$blob" /tmp) || fail "copy to /tmp: $out"
echo "$out" | grep -qx "copied $blob to /tmp/blob: dgx\[01-02\]" || fail "summary: $out"
out=$(copy "$blob" /var/tmp/) || fail "copy to /var/tmp/: $out"
echo "$out" | grep -qx "copied $blob to /var/tmp/blob: dgx\[01-02\]" || fail "summary: $out"
for a in 127.0.1.1 127.0.1.2; do
	got=$(on $a "sha256sum </tmp/blob | cut -d' ' -f1; sha256sum </var/tmp/blob | cut -d' ' -f1")
	[ "$got" = "$sum
$sum" ] || fail "$a: the copies in /tmp and /var/tmp are not the file"
	left=$(on $a "ls -d /tmp.bringup-part /tmp/tmp.bringup-part /var/tmp.bringup-part \
		/tmp/blob.bringup-part /var/tmp/blob.bringup-part 2>/dev/null; true")
	[ -z "$left" ] || fail "$a: stray part files: $left"
done
out=$(copy "$blob" /nonexistent-dir/); [ $? -eq 1 ] || fail "copy into a missing dir/: $out"
echo "$out" | grep -q '^failed: dgx01: .*/nonexistent-dir/blob.bringup-part' ||
	fail "the missing directory is not named: $out"

# A planted symlink at the part file's name.
on 127.0.1.1 'echo precious >/etc/victim; ln -s /etc/victim /tmp/t0542.bringup-part'
out=$(copy -l dgx01 "$blob" /tmp/t0542); rc=$?
[ $rc -eq 1 ] || fail "a planted part symlink: exit $rc: $out"
echo "$out" | grep -q "^failed: dgx01: .*/tmp/t0542.bringup-part is a symbolic link" ||
	fail "the planted symlink is not named: $out"
[ "$(on 127.0.1.1 cat /etc/victim)" = precious ] || fail "the upload wrote through the symlink"
[ -z "$(on 127.0.1.1 'ls /tmp/t0542 2>/dev/null; true')" ] || fail "a file landed anyway"

# Another user's part file: not continued, not renamed into place.
on 127.0.1.2 'head -c 4096 /dev/urandom >/tmp/t0542.bringup-part; chown 65534 /tmp/t0542.bringup-part'
out=$(copy -l dgx02 "$blob" /tmp/t0542); rc=$?
[ $rc -eq 1 ] || fail "a foreign part file: exit $rc: $out"
echo "$out" | grep -q "^failed: dgx02: .*/tmp/t0542.bringup-part is owned by uid 65534" ||
	fail "the foreign part file is not named: $out"
[ -z "$(on 127.0.1.2 'ls /tmp/t0542 2>/dev/null; true')" ] || fail "the foreign part became the file"

# Symlinks at the final name: to a file (replaced), to a directory (refused).
on 127.0.1.1 'echo precious >/etc/victim2; ln -s /etc/victim2 /tmp/t0542-link;
	mkdir -p /etc/victim.d; ln -s /etc/victim.d /tmp/t0542-dirlink'
out=$(copy -l dgx01 "$blob" /tmp/t0542-link) || fail "copy over a symlink: $out"
[ "$(on 127.0.1.1 cat /etc/victim2)" = precious ] || fail "the rename followed the symlink"
[ "$(on 127.0.1.1 "stat -c %F /tmp/t0542-link; sha256sum </tmp/t0542-link | cut -d' ' -f1")" = \
  "regular file
$sum" ] || fail "the symlink was not replaced by the file"
out=$(copy -l dgx01 "$blob" /tmp/t0542-dirlink); rc=$?
[ $rc -eq 1 ] || fail "a symlink to a directory: exit $rc: $out"
echo "$out" | grep -q "/tmp/t0542-dirlink is a symbolic link to a directory: write /tmp/t0542-dirlink/" ||
	fail "no hint for a symlink to a directory: $out"
[ -z "$(on 127.0.1.1 'ls -A /etc/victim.d')" ] || fail "the file went into the link's directory"
exit 0

#!/bin/sh
# Every broken inventory under tests/fixtures/inventory/bad-*.yaml is refused
# with exit status 2 and a message that starts with the file:line:column its
# first line names ("# expect: LINE:COL: message"); the good ones pass check.
. "$(dirname "$0")/lib.sh"
fixtures=$(cd "$(dirname "$0")/../fixtures/inventory" && pwd)
n=0
for f in "$fixtures"/bad-*.yaml; do
	want=$(sed -n '1s/^# expect: //p' "$f")
	[ -n "$want" ] || fail "$f has no '# expect: LINE:COL: message' first line"
	"$BRINGUP" inventory show -i "$f" >"$TEST_DIR/out" 2>"$TEST_DIR/err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "$(basename "$f"): exit $rc, expected 2"
	[ -s "$TEST_DIR/out" ] && fail "$(basename "$f"): printed on stdout"
	got=$(cat "$TEST_DIR/err")
	[ "$got" = "bringup: $f:$want" ] ||
		fail "$(basename "$f"): got '$got', expected 'bringup: $f:$want'"
	n=$((n + 1))
done
[ "$n" -ge 15 ] || fail "only $n bad fixtures found"

for f in "$fixtures"/good-*.yaml; do
	out=$("$BRINGUP" inventory check -i "$f") || fail "$(basename "$f") refused"
	case $out in "$f: ok, "*) ;; *) fail "check printed '$out'";; esac
done

# NUL and control characters in real files of every encoding libyaml reads
# (UTF-8, UTF-16LE and UTF-16BE after a byte order mark): raw ones are
# refused by libyaml's reader, escaped ones by ours; either way at the
# character's line and column, never loaded as a name cut at the NUL.
python3 - "$TEST_DIR" <<'PY' || fail "cannot write the encoded inventories"
import sys
d = sys.argv[1]
raw = 'cluster:\n  name: poc\nhosts:\n  dgx\0evil:\n'
esc = 'cluster:\n  name: poc\nhosts:\n  "dgx\\0evil":\n'
for name, text in (("raw", raw), ("esc", esc)):
    open(f"{d}/{name}-utf16le.yaml", "wb").write(b"\xff\xfe" + text.encode("utf-16-le"))
    open(f"{d}/{name}-utf16be.yaml", "wb").write(b"\xfe\xff" + text.encode("utf-16-be"))
    open(f"{d}/{name}-utf8bom.yaml", "wb").write(b"\xef\xbb\xbf" + text.encode())
PY
for enc in utf16le utf16be utf8bom; do
	case $enc in utf16*) text=UTF-16;; *) text=UTF-8;; esac
	f="$TEST_DIR/raw-$enc.yaml"
	expect_status 2 "$BRINGUP" inventory show -i "$f" >/dev/null 2>"$TEST_DIR/err"
	[ "$(cat "$TEST_DIR/err")" = "bringup: $f:4:6: control characters are not allowed, expected $text text" ] ||
		fail "raw NUL in $enc: $(cat "$TEST_DIR/err")"
	f="$TEST_DIR/esc-$enc.yaml"
	expect_status 2 "$BRINGUP" inventory show -i "$f" >/dev/null 2>"$TEST_DIR/err"
	[ "$(cat "$TEST_DIR/err")" = "bringup: $f:4:4: found control character 0x00 as character 4 of 'dgx\x00evil', expected text without control characters (tab and newline allowed)" ] ||
		fail "escaped NUL in $enc: $(cat "$TEST_DIR/err")"
done

# A missing file is an I/O failure, not an inventory error.
expect_status 1 "$BRINGUP" inventory check -i "$TEST_DIR/absent.yaml" 2>/dev/null
# Usage errors.
expect_status 2 "$BRINGUP" inventory show 2>/dev/null
expect_status 2 "$BRINGUP" inventory show -i "$fixtures/good-minimal.yaml" -o xml 2>/dev/null
expect_status 2 "$BRINGUP" inventory frobnicate -i "$fixtures/good-minimal.yaml" 2>/dev/null
echo "$n bad inventories refused with their positions"

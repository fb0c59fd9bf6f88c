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

# A missing file is an I/O failure, not an inventory error.
expect_status 1 "$BRINGUP" inventory check -i "$TEST_DIR/absent.yaml" 2>/dev/null
# Usage errors.
expect_status 2 "$BRINGUP" inventory show 2>/dev/null
expect_status 2 "$BRINGUP" inventory show -i "$fixtures/good-minimal.yaml" -o xml 2>/dev/null
expect_status 2 "$BRINGUP" inventory frobnicate -i "$fixtures/good-minimal.yaml" 2>/dev/null
echo "$n bad inventories refused with their positions"

#!/bin/sh
# exec keeps every byte a host prints: output that is not UTF-8 (Latin-1, a
# multi-byte character cut by the 4 MiB cap) is not dropped from -o json, it
# comes back exactly in stdout_base64; a capped output says so in both formats.
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state ready

# printf 'caf\351': Latin-1, which jansson alone would drop.
"$BRINGUP" exec -i "$INV" -o json -- "printf 'caf\\351'; printf 'ok\\n' >&2" \
	>"$TEST_DIR/latin1.json" || fail "exec failed: $(cat "$TEST_DIR/latin1.json")"
python3 - "$TEST_DIR/latin1.json" <<'PY' || fail "latin-1 output lost: $(cat "$TEST_DIR/latin1.json")"
import base64, json, sys
d = json.load(open(sys.argv[1]))
assert len(d["hosts"]) == 2, d
for h in d["hosts"]:
    assert h["stdout"] == "caf\ufffd", h
    assert base64.b64decode(h["stdout_base64"]) == b"caf\xe9", h
    assert h["stderr"] == "ok\n" and "stderr_base64" not in h, h
    assert h["truncated"] is False, h
PY

# 4 MiB - 1 bytes of 'a', then a two-byte e-acute: the cap cuts it in half.
big="yes a | tr -d '\\n' | head -c $((4 * 1024 * 1024 - 1)); printf '\303\251tail'"
"$BRINGUP" exec -i "$INV" --limit dgx01 -o json -- "$big" >"$TEST_DIR/big.json" ||
	fail "exec of a big output failed"
python3 - "$TEST_DIR/big.json" <<'PY' || fail "capped output wrong"
import base64, json, sys
h = json.load(open(sys.argv[1]))["hosts"][0]
raw = base64.b64decode(h["stdout_base64"])
assert len(raw) == 4 * 1024 * 1024, len(raw)
assert raw == b"a" * (4 * 1024 * 1024 - 1) + b"\xc3", raw[-8:]
assert h["stdout"].endswith("a\ufffd"), h["stdout"][-4:]
assert h["truncated"] is True, h["truncated"]
PY
out=$("$BRINGUP" exec -i "$INV" --limit dgx01 -- "$big" | tail -n 2)
echo "$out" | grep -qx '(output truncated at 4 MiB)' || fail "text output does not say it was cut: $out"
exit 0

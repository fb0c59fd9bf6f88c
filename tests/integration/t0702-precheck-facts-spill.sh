#!/bin/sh
# precheck's facts wait in an unlinked file in $TMPDIR while each host's
# script runs (engine/facts.c): nothing is left there, the facts read back
# are whole (every section, byte for byte what the host printed), and where
# $TMPDIR cannot take a file the output is held in memory with the same
# verdict.
. "$(dirname "$0")/lib.sh"
sim_up -n 4 --state ready
spill=$TEST_DIR/spill
mkdir "$spill"

TMPDIR=$spill "$BRINGUP" precheck -i "$INV" --timeout "$(slow 60)" -o json \
	--output "$TEST_DIR/a.json" --facts "$TEST_DIR/a-facts.json" 2>"$TEST_DIR/a.err" ||
	fail "precheck with a spill directory: $(cat "$TEST_DIR/a.err")"
[ -z "$(ls -A "$spill")" ] || fail "files left in TMPDIR: $(ls -A "$spill")"

# Whole: a section no parser takes is what the node prints, to the byte.
sim_ssh 127.0.1.2 "sh -c 'cat /etc/security/limits.conf /etc/security/limits.d/*.conf 2>/dev/null; true'" \
	>"$TEST_DIR/limits" || fail "ssh to dgx02"
[ -s "$TEST_DIR/limits" ] || fail "dgx02 has no limits files to compare"
python3 - "$TEST_DIR/a-facts.json" "$TEST_DIR/limits" <<'PY' || fail "facts not whole"
import json, sys
f = json.load(open(sys.argv[1]))["hosts"]
assert sorted(f) == ["dgx01", "dgx02", "dgx03", "dgx04"], sorted(f)
want = open(sys.argv[2]).read()
got = f["dgx02"]["raw"]["memlock-limits"]["output"]
assert got == want, (got, want)
for h, v in f.items():
    assert "error" not in v, (h, v["error"])
    # every family's sections came back and parsed
    for sec in ("hostname", "ibstat", "nvidia-smi-q", "mmgetstate", "lspci"):
        assert sec in v["raw"], (h, sec)
    for sec in ("ibstat", "nvidia-smi-q", "mmgetstate", "lspci"):
        assert sec in v["parsed"], (h, sec)
PY

# No file to be had: the same verdict from memory.
TMPDIR=$TEST_DIR/missing "$BRINGUP" precheck -i "$INV" --timeout "$(slow 60)" -o json \
	--output "$TEST_DIR/b.json" 2>"$TEST_DIR/b.err" ||
	fail "precheck without a spill directory: $(cat "$TEST_DIR/b.err")"
python3 - "$TEST_DIR/a.json" "$TEST_DIR/b.json" <<'PY' || fail "verdicts differ"
import json, sys
def verdicts(p):
    return sorted((r["host"], r["check"], r["subject"] or "", r["status"])
                  for r in json.load(open(p))["results"])
a, b = verdicts(sys.argv[1]), verdicts(sys.argv[2])
assert len(a) > 100, len(a)
assert a == b, set(a) ^ set(b)
PY
exit 0

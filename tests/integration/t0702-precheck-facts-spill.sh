#!/bin/sh
# precheck's facts wait in an unlinked file in $TMPDIR while each host's
# script runs (engine/facts/facts.c): such a file is open while hosts run,
# nothing is left there after, the facts read back are whole (every
# section, byte for byte what the host printed), and where $TMPDIR cannot
# take a file, or fills up mid-output, the output is held in memory with
# the same verdicts.
. "$(dirname "$0")/lib.sh"
sim_up -n 4 --state ready
spill=$TEST_DIR/spill
mkdir "$spill"

TMPDIR=$spill "$BRINGUP" precheck -i "$INV" --timeout "$(slow 60)" -o json \
	--output "$TEST_DIR/a.json" --facts "$TEST_DIR/a-facts.json" 2>"$TEST_DIR/a.err" &
pid=$!
# While the hosts' scripts run (a second at least: the port counters are
# read twice, a second apart), precheck holds a file in $spill, unnamed,
# with their output in it.
seen=""
while kill -0 "$pid" 2>/dev/null && [ -z "$seen" ]; do
	for fd in /proc/"$pid"/fd/*; do
		case $(readlink "$fd" 2>/dev/null) in
		"$spill"/*"(deleted)")
			[ "$(stat -L -c %s "$fd" 2>/dev/null || echo 0)" -gt 0 ] && seen=$(readlink "$fd") ;;
		esac
	done
	sleep 0.05
done
wait "$pid" || fail "precheck with a spill directory: $(cat "$TEST_DIR/a.err") $(fabric_results "$TEST_DIR/a.json")"
[ -n "$seen" ] || fail "no output in an unlinked file in TMPDIR while the hosts ran"
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

# No file to be had, or a file that fills up after 4 KB (a full $TMPDIR;
# the report goes through a pipe, out of the limit's reach): the same
# verdicts from memory.
TMPDIR=$TEST_DIR/missing "$BRINGUP" precheck -i "$INV" --timeout "$(slow 60)" -o json \
	--output "$TEST_DIR/b.json" 2>"$TEST_DIR/b.err" ||
	fail "precheck without a spill directory: $(cat "$TEST_DIR/b.err") $(fabric_results "$TEST_DIR/b.json")"
(
	trap '' XFSZ
	TMPDIR=$spill sh -c 'ulimit -f 8 && exec "$@"' sh "$BRINGUP" precheck -i "$INV" \
		--timeout "$(slow 60)" -o json 2>"$TEST_DIR/c.err"
) | cat >"$TEST_DIR/c.json"
[ -s "$TEST_DIR/c.json" ] || fail "precheck with a full spill directory: $(cat "$TEST_DIR/c.err")"
for other in b c; do
	python3 - "$TEST_DIR/a.json" "$TEST_DIR/$other.json" <<'PY' || fail "verdicts differ ($other)"
import json, sys
def verdicts(p):
    return sorted((r["host"], r["check"], r["subject"] or "", r["status"])
                  for r in json.load(open(p))["results"])
a, b = verdicts(sys.argv[1]), verdicts(sys.argv[2])
assert len(a) > 100, len(a)
assert a == b, set(a) ^ set(b)
PY
done
exit 0

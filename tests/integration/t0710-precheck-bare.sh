#!/bin/sh
# On a bare cluster precheck fails with the reasons a new cluster has: no
# OFED, no peer memory, no subnet manager, memlock limited.
. "$(dirname "$0")/lib.sh"
sim_up -n 4 --state bare
out=$("$BRINGUP" precheck -i "$INV" -o json)
rc=$?
[ $rc -eq 1 ] || fail "precheck on a bare cluster exited $rc, want 1"
printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
failed = {(r["check"], r["host"]) for r in d["results"] if r["status"] == "fail"}
for check in ("ofed.version", "peermem.loaded", "memlock.unlimited", "ib.hca_present"):
    for h in ("dgx01", "dgx02", "dgx03", "dgx04"):
        assert (check, h) in failed, (check, h, sorted(failed))
assert ("sm.master", "dgx01") in failed, sorted(failed)
ofed = [r for r in d["results"] if r["check"] == "ofed.version" and r["host"] == "dgx01"][0]
assert ofed["found"] == "not installed", ofed
assert d["summary"]["unreachable"] == 0
' || fail "bare-cluster reasons missing"
exit 0

#!/bin/sh
# Runs every tests/integration/tNNNN-*.sh against the simulated cluster.
# A test exits 0 (pass), 77 (skip; it prints why) or anything else (fail).
# Last line: "integration: N passed, N failed, N skipped".
here=$(cd "$(dirname "$0")" && pwd)
: "${BRINGUP:?set BRINGUP to the bringup binary}"
export BRINGUP
pass=0 fail=0 skip=0
for t in "$here"/t[0-9]*.sh; do
	[ -e "$t" ] || continue
	[ -n "$TESTS" ] && case " $TESTS " in *" $(basename "$t" .sh) "*) ;; *) continue;; esac
	name=$(basename "$t" .sh)
	log=$(mktemp)
	start=$(date +%s)
	sh "$t" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "ok   $name (${secs}s)";;
	77) skip=$((skip + 1)); echo "skip $name: $(tail -n 1 "$log")";;
	*) fail=$((fail + 1)); echo "FAIL $name (exit $rc, ${secs}s)"; sed 's/^/    | /' "$log" | tail -n 60;;
	esac
	rm -f "$log"
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

#!/bin/sh
# make check: every unit test binary, then every integration test. The last
# line is the closing count CI reads: "check: N passed, N failed[, N skipped]".
# Counts are test programs/scripts; cmocka prints per-case counts above.
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0 skip=0 failed=""
for t in "$@"; do
	if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $t"; fi
done
out=$(mktemp) st=$(mktemp)
# The runner's own status, not tee's: a pipe's status is its last command's.
{ sh "$here/integration/run.sh"; echo $? >"$st"; } | tee "$out"
status=$(cat "$st")
line=$(grep -E '^integration: [0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
rm -f "$out" "$st"
ip=$(echo "$line" | sed -E 's/^integration: ([0-9]+) passed.*/\1/')
if_=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
is=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
pass=$((pass + ${ip:-0})); fail=$((fail + ${if_:-0})); skip=$((skip + ${is:-0}))
[ -n "$line" ] || { fail=$((fail + 1)); failed="$failed integration-runner"; }
[ -n "$failed" ] && echo "failed:$failed"
echo "check: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "${status:-1}" -eq 0 ]

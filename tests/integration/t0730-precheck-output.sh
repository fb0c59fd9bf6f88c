#!/bin/sh
# precheck's machine outputs: JUnit valid against the Jenkins xUnit schema,
# Prometheus text format with one gauge per host and check, JSON, --output,
# --checks/--skip-checks, the failure grouping of the text view, NO_COLOR.
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || skip xmllint "libxml2-utils"
sim_up -n 8 --state ready
xsd="$(dirname "$0")/../fixtures/junit/junit-10.xsd"
for n in dgx03 dgx04 dgx05; do "$BRINGUP" sim fault $n nouveau-loaded; done

"$BRINGUP" precheck -i "$INV" -o junit --output "$TEST_DIR/r.xml"
[ $? -eq 1 ] || fail "junit run must exit 1"
xmllint --noout --schema "$xsd" "$TEST_DIR/r.xml" || fail "JUnit output not valid"
grep -q '<testcase classname="precheck.dgx04" name="nouveau.absent" time="0">' "$TEST_DIR/r.xml" ||
	fail "no testcase for dgx04/nouveau.absent"
[ "$(grep -c '<failure ' "$TEST_DIR/r.xml")" -eq 3 ] || fail "want 3 failures"

"$BRINGUP" precheck -i "$INV" -o prom --output "$TEST_DIR/r.prom"
grep -qx 'bringup_precheck_check_ok{host="dgx04",check="nouveau.absent",severity="fail"} 0' \
	"$TEST_DIR/r.prom" || fail "prom gauge for the failure missing"
grep -qx 'bringup_precheck_check_ok{host="dgx01",check="nouveau.absent",severity="fail"} 1' \
	"$TEST_DIR/r.prom" || fail "prom gauge for a pass missing"
grep -v '^#' "$TEST_DIR/r.prom" | grep -vE '^[a-z_]+(\{[^}]*\})? [0-9.e+-]+$' && fail "bad prom line"

out=$(NO_COLOR=1 "$BRINGUP" precheck -i "$INV")
echo "$out" | grep -q "$(printf '\033')" && fail "colour with NO_COLOR"
echo "$out" | grep -q '^FAIL nouveau.absent *dgx\[03-05\]$' || fail "failures not grouped: $out"

expect_status 0 "$BRINGUP" precheck -i "$INV" --skip-checks nouveau.absent -o json --output /dev/null
n=$("$BRINGUP" precheck -i "$INV" --checks 'ib.*' -o json | python3 -c \
	'import json,sys; print(sorted({r["check"] for r in json.load(sys.stdin)["results"]}))')
[ "$n" = "['ib.fabric_isl', 'ib.fabric_links', 'ib.fabric_size', 'ib.hca_present', 'ib.link_layer', 'ib.netdev', 'ib.port_counters', 'ib.port_rate', 'ib.port_state']" ] || fail "--checks: $n"
expect_status 2 "$BRINGUP" precheck -i "$INV" --checks no.such.check
exit 0

#!/bin/sh
# mmaddnode carries on past a node it cannot reach (issue 28, simulator
# fidelity, from the real capture in tests/fixtures/other-tools/mmaddnode/):
# it lists the node as not added and still exits 0. Two clients (dgx04,
# dgx05) are out of a ready cluster and dgx05 refuses the cluster's remote
# shell (fault peer-ssh-denied). A deploy runs one mmaddnode for both:
# scale_cluster fails dgx05 alone, naming mmaddnode's reason; dgx04 has
# joined with its client licence and is active, and nothing was asked of
# GPFS for dgx05 after mmaddnode (no licence, no start). With the fault
# cleared the next deploy adds dgx05; the one after changes nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scale-lib.sh"
sim_up -n 5 --state ready
scale_deploy_setup
members() { mm mmlscluster | awk '$2 ~ /^dgx/ { printf "%s ", $2 }'; }

mm mmshutdown -N dgx04,dgx05 >/dev/null && mm mmdelnode -N dgx04,dgx05 >/dev/null || fail "mmdelnode"
[ "$(members)" = "dgx01 dgx02 dgx03 " ] || fail "members before: $(members)"
"$BRINGUP" sim fault dgx05 peer-ssh-denied >/dev/null || fail "fault"

out=$(deploy 2>&1) && fail "deploy succeeded with dgx05 not added: $out"
log=$(last_log)
grep -q "^\$ '/usr/lpp/mmfs/bin/mmaddnode' '-N' 'dgx04:client,dgx05:client'$" "$log" ||
	fail "not one mmaddnode for both: $(grep mmaddnode "$log")"
echo "$out" | grep -q "^  scale_cluster  *failed  *dgx05: mmaddnode on dgx01 could not add it to GPFS cluster dgx01: dgx05 cannot be reached.; the other nodes joined" ||
	fail "dgx05 not failed with mmaddnode's reason: $out"
echo "$out" | grep -Eq "^  scale_cluster +changed +dgx01$" || fail "scale_cluster did not change for the others: $out"
[ "$(members)" = "dgx01 dgx02 dgx03 dgx04 " ] || fail "members after: $(members)"
mm mmlslicense -Y | grep -q ':dgx04:client:client:' || fail "dgx04's licence: $(mm mmlslicense -Y)"
grep "^\$ '/usr/lpp/mmfs/bin/mm\(chlicense\|startup\|chnodeclass\|crnodeclass\)'" "$log" | grep dgx05 &&
	fail "GPFS was asked to act on dgx05 after mmaddnode left it out"
mm mmgetstate -N dgx04 | grep -q ' dgx04  *active' || fail "dgx04 not active: $(mm mmgetstate -a)"

"$BRINGUP" sim fault dgx05 clear >/dev/null || fail "clear"
out=$(deploy 2>&1) || fail "deploy after clear: $out"
grep -q "^\$ '/usr/lpp/mmfs/bin/mmaddnode' '-N' 'dgx05:client'$" "$(last_log)" || fail "dgx05 not added: $out"
[ "$(members)" = "dgx01 dgx02 dgx03 dgx04 dgx05 " ] || fail "members at the end: $(members)"
out=$(deploy 2>&1) || fail "last deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "a converged deploy changed something: $out"
exit 0

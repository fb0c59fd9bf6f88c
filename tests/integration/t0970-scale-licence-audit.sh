#!/bin/sh
# Licences audited every run (issue 28): scale_cluster reads `mmlslicense
# -Y` on every deploy, not only for the nodes it adds. On a ready cluster
# (dgx01-03 quorum with server licences, dgx04 a client) the licences are
# right and a deploy changes nothing. Then, behind bringup's back, dgx04
# loses its licence (none) and quorum-manager dgx02 is left with a client
# one (sim-gpfs-license, as a node re-added by hand would be): the
# stand-in's mmlslicense says so; --check names exactly those two nodes
# with their licence and the one each needs, changing nothing; a deploy
# runs one `mmchlicense server --accept -N dgx02` and one `mmchlicense
# client --accept -N dgx04`, nothing for the others; the next deploy
# changes nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scale-lib.sh"
sim_up -n 4 --state ready
scale_deploy_setup
D=$BRINGUP_SIM_DIR
licence() { "$D/bin/sim-gpfs-license" "$D/nodes/dgx01" "$D/cluster" "$@"; }
# the (required, designated) pair of every node, as mmlslicense -Y says
designations() { mm mmlslicense -Y | awk -F: '$3 != "HEADER" { printf "%s=%s/%s ", $7, $8, $9 }'; }

want="dgx01=server/server dgx02=server/server dgx03=server/server dgx04=client/client "
[ "$(designations)" = "$want" ] || fail "ready cluster's licences: $(designations)"
out=$(deploy) || fail "first deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "a ready cluster's deploy changed something: $out"

licence dgx04 none || fail "sim-gpfs-license dgx04 none"
licence dgx02 client || fail "sim-gpfs-license dgx02 client"
[ "$(designations)" = "dgx01=server/server dgx02=server/client dgx03=server/server dgx04=client/none " ] ||
	fail "mmlslicense does not show the licences taken: $(designations)"
mm mmlslicense | grep -qx "Number of nodes still requiring server license designation:      1" &&
	mm mmlslicense | grep -qx "Number of nodes still requiring client license designation:      1" ||
	fail "mmlslicense summary: $(mm mmlslicense)"

before=$(cd "$D" && find cluster/gpfs -type f -exec sha256sum {} + | LC_ALL=C sort)
out=$(deploy --check) || fail "check: $out"
for w in \
	"licence of dgx02: client (mmlslicense), a quorum-manager node needs a server licence: mmchlicense server --accept -N dgx02" \
	"licence of dgx04: none (mmlslicense), a client node needs a client licence: mmchlicense client --accept -N dgx04"; do
	echo "$out" | grep -qF -- "$w" || fail "--check does not say '$w': $out"
done
[ "$(echo "$out" | grep -c "licence of ")" = 2 ] || fail "--check names other nodes' licences: $out"
after=$(cd "$D" && find cluster/gpfs -type f -exec sha256sum {} + | LC_ALL=C sort)
[ "$before" = "$after" ] || fail "--check changed the cluster"

out=$(deploy) || fail "deploy: $out"
echo "$out" | grep -Eq '^  scale_cluster +changed +dgx01$' || fail "scale_cluster did not change: $out"
log=$(last_log)
lic=$(grep "^\$ '/usr/lpp/mmfs/bin/mmchlicense'" "$log")
[ "$lic" = "\$ '/usr/lpp/mmfs/bin/mmchlicense' 'server' '--accept' '-N' 'dgx02'
\$ '/usr/lpp/mmfs/bin/mmchlicense' 'client' '--accept' '-N' 'dgx04'" ] ||
	fail "mmchlicense was not run exactly for dgx02 (server) and dgx04 (client): $lic"
[ "$(designations)" = "$want" ] || fail "licences after the deploy: $(designations)"

out=$(deploy) || fail "last deploy: $out"
echo "$out" | grep -q "changed=0 failed=0" || fail "a converged deploy changed something: $out"
exit 0

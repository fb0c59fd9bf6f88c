#!/bin/sh
# The storage side checks keys (issue 28): with the simulated storage
# cluster accepting only the clients its administrator authorised
# (sim-gpfs-storage-admin policy strict), a deploy whose mount it refuses
# stops at scale_remote_mount with this cluster's public key saved in the
# run directory and the exact commands for the storage administrator
# (mmauth add CLIENT -k FILE, mmauth grant CLIENT -f FS). The key added
# but the file system not granted is refused too, with the same commands;
# after the grant, a deploy mounts on every node.
. "$(dirname "$0")/lib.sh"
sim_up -n 3 --state ready
STATE=$TEST_DIR/state
D=$BRINGUP_SIM_DIR
deploy() { "$BRINGUP" deploy -i "$INV" --state-dir "$STATE" --tags scale_remote_mount "$@"; }
mm() { sim_ssh 127.0.1.1 "/usr/lpp/mmfs/bin/$*"; }
storage() { "$D/bin/sim-gpfs-storage-admin" "$D/nodes/dgx01" "$D/cluster" "$@"; }
mounted() { mm mmlsmount ess3000_4M -L | grep -c ' dgx0[1-3] '; }

[ "$(mounted)" = 3 ] || fail "the ready cluster is not mounted: $(mm mmlsmount ess3000_4M -L)"
storage policy strict || fail "policy strict"
mm mmumount ess3000_4M -a >/dev/null || fail "mmumount"

out=$(deploy 2>&1) && fail "deploy mounted with the key not authorised: $out"
key=$(ls "$STATE"/runs/*/dgx01.pub 2>/dev/null | head -1)
[ -n "$key" ] || fail "no key saved in the run directory: $out"
cmp -s "$key" "$D/nodes/dgx01/root/var/mmfs/ssl/id_rsa.pub" || fail "the saved key is not the cluster's"
for want in \
	"apply: mmmount ess3000_4M failed on every node (dgx01,dgx02,dgx03): mmmount: Cluster ess3000.bda.scale.ibm.com has not authorized this cluster (dgx01)" \
	"The storage cluster ess3000.bda.scale.ibm.com has not authorised this cluster (dgx01) to mount ess3000_4M. This cluster's public key (/var/mmfs/ssl/id_rsa.pub on dgx01) is saved in $key: give it to the storage administrator, who runs on a node of ess3000.bda.scale.ibm.com:" \
	"  mmauth add dgx01 -k dgx01.pub" \
	"  mmauth grant dgx01 -f ess3000_4M" \
	"then run \`bringup deploy\` again: it mounts once the grant is in"; do
	echo "$out" | grep -qF -- "$want" || fail "the refusal does not say '$want': $out"
done
[ "$(mounted)" = 0 ] || fail "mounted somewhere after the refusal"

# the key, but not the file system
storage mmauth add dgx01 -k "$key" >/dev/null || fail "storage mmauth add"
out=$(deploy 2>&1) && fail "deploy mounted without the grant: $out"
echo "$out" | grep -qF "has not granted this cluster (dgx01) access to file system ess3000_4M" ||
	fail "no refusal of the file system: $out"
echo "$out" | grep -qF "  mmauth grant dgx01 -f ess3000_4M" || fail "no grant command: $out"

storage mmauth grant dgx01 -f ess3000_4M >/dev/null || fail "storage mmauth grant"
out=$(deploy 2>&1) || fail "deploy after the grant: $out"
echo "$out" | grep -Eq '^  scale_remote_mount +changed +dgx01$' || fail "scale_remote_mount: $out"
[ "$(mounted)" = 3 ] || fail "not mounted on every node after the grant: $(mm mmlsmount ess3000_4M -L)"

# a new key of this cluster is not the one the storage holds: refused again
mm mmumount ess3000_4M -a >/dev/null && mm mmauth genkey new >/dev/null || fail "new key"
out=$(deploy 2>&1) && fail "deploy mounted with a key the storage never saw: $out"
echo "$out" | grep -qF "has not authorized this cluster (dgx01)" || fail "new key not refused: $out"
exit 0

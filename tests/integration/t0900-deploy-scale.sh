#!/bin/sh
# The Spectrum Scale stages of the built-in playbook from a bare cluster of
# 8 nodes with the remote storage cluster: --check shows the whole plan
# (install, cluster, configuration diff, mount) and changes nothing; a
# deploy of 6 nodes creates the cluster, the full deploy adds the other two
# with one mmaddnode; GPFS administration runs once per cluster or node
# class, never per node; precheck is green, scale.* included; a second
# deploy changes nothing; the run's journal records the cluster ID, FS UID
# and mount point; a pagepool changed behind bringup's back shows in
# --check with its diff and the next deploy sets it back.
. "$(dirname "$0")/lib.sh"
sim_up -n 8 --state bare
STATE=$TEST_DIR/state
G=$BRINGUP_SIM_DIR/cluster/gpfs
deploy() { "$BRINGUP" deploy -i "$INV" --state-dir "$STATE" "$@"; }
mm() { sim_ssh 127.0.1.1 "/usr/lpp/mmfs/bin/$*"; }
last_log() { echo "$STATE/$(readlink "$STATE/last")/hosts/dgx01.log"; }
# count CMD LOG: how many times the run ran mm command CMD (on the manager).
count() { grep -c "^\$ '/usr/lpp/mmfs/bin/$1'" "$2"; }

out=$("$BRINGUP" precheck -i "$INV" --checks 'scale.*') && fail "precheck green on a bare cluster: $out"
echo "$out" | grep -q "^FAIL scale.state  *dgx\[01-08\]" && echo "$out" | grep -q "found Spectrum Scale not installed" || fail "bare: $out"

before=$(cd "$BRINGUP_SIM_DIR" && find cluster/gpfs nodes/*/state -type f -exec sha256sum {} + | LC_ALL=C sort)
out=$(deploy --check) || fail "check: $out"
for want in \
	'install Spectrum Scale 5.0.4.3 Data Management edition (rpm packages from' \
	'build the GPFS portability layer (mmbuildgpl) for kernel 3.10.0-957.el7.x86_64' \
	'create GPFS cluster .* with 8 nodes: dgx01:quorum-manager,dgx02:quorum-manager,dgx03:quorum,dgx04:client' \
	'accept server licences (mmchlicense server --accept): dgx01,dgx02,dgx03' \
	'create node class dgx (mmcrnodeclass): dgx01,dgx02,dgx03,dgx04,dgx05,dgx06,dgx07,dgx08' \
	'mmchconfig -N dgx \[dgx\]: verbsRdma (unset) -> enable, verbsRdmaSend (unset) -> yes, verbsPorts (unset) -> mlx5_0/1 mlx5_1/1 mlx5_2/1 mlx5_3/1, pagepool (unset) -> 16G' \
	'start GPFS (mmstartup -N) and wait until active: dgx01 (new)' \
	'define remote cluster ess3000.bda.scale.ibm.com' \
	'mount ess3000_4M at /gpfs/ess3000_4M (mmmount -N) on: dgx01,dgx02,dgx03,dgx04,dgx05,dgx06,dgx07,dgx08'; do
	echo "$out" | grep -q -- "$want" || fail "--check does not plan '$want': $out"
done
echo "$out" | grep -qx '+verbsPorts mlx5_0/1 mlx5_1/1 mlx5_2/1 mlx5_3/1' || fail "no config diff: $out"
after=$(cd "$BRINGUP_SIM_DIR" && find cluster/gpfs nodes/*/state -type f -exec sha256sum {} + | LC_ALL=C sort)
[ "$before" = "$after" ] || fail "--check changed the cluster"

out=$(deploy --limit 'dgx[01-06]') || fail "deploy of 6 nodes: $out"
log=$(last_log)
[ "$(count mmcrcluster "$log")" = 1 ] || fail "mmcrcluster not run once"
out=$(deploy) || fail "deploy from 6 to 8 nodes: $out"
echo "$out" | grep -Eq '^  scale_install +changed +dgx\[07-08\]$' || fail "scale_install: $out"
log=$(last_log)
grep -q "^\$ '/usr/lpp/mmfs/bin/mmaddnode' '-N' 'dgx07:client,dgx08:client'$" "$log" ||
	fail "the two nodes were not added in one mmaddnode: $(grep mmaddnode "$log")"
# administration: per cluster or class, not per node
for c in mmaddnode mmchnodeclass mmstartup; do
	[ "$(count $c "$log")" = 1 ] || fail "$c ran $(count $c "$log") times"
done
# ess3000_4M is automount yes: the daemons mount it as they start (IBM,
# sim/README.md), so the mount check finds nothing owed; at most one mmmount
[ "$(count mmmount "$log")" -le 1 ] || fail "mmmount ran $(count mmmount "$log") times"
[ "$(mm mmlsmount ess3000_4M -L | grep -c ' dgx0[78] ')" = 2 ] ||
	fail "dgx07 and dgx08 not mounted: $(mm mmlsmount ess3000_4M -L)"
[ "$(count mmchlicense "$log")" = 1 ] || fail "mmchlicense for the clients: $(count mmchlicense "$log")"
mm mmlscluster | grep -c ' dgx0[1-8] ' | grep -qx 8 || fail "not 8 members: $(mm mmlscluster)"
mm mmlsnodeclass dgx | grep -q 'dgx01,dgx02,dgx03,dgx04,dgx05,dgx06,dgx07,dgx08' || fail "node class"

out=$("$BRINGUP" precheck -i "$INV") || fail "precheck after deploy: $out"
out=$(deploy -o json) || fail "second deploy: $out"
all_ok 93 "$out" || fail "second deploy was not all ok: $out"
python3 - "$STATE/$(readlink "$STATE/last")/journal.json" <<'PY' || fail "records"
import json, sys
r = json.load(open(sys.argv[1]))["records"]
assert r["scale.cluster_id"].isdigit(), r
assert r["scale.filesystem_uid"] == "099B6A7A:5EB99743", r
assert r["scale.mount_point"] == "/gpfs/ess3000_4M", r
# every daemon runs with its configuration: no restart owed
owed = {k: v for k, v in r.items() if k.startswith("scale.restart_owed.")}
assert len(owed) == 8 and not any(owed.values()), owed
PY

# drift: a node's own pagepool beats its class
mm mmchconfig pagepool=1G -N dgx03 -i >/dev/null || fail "mmchconfig behind bringup's back"
out=$(deploy --check) || fail "check after drift: $out"
echo "$out" | grep -q 'mmchconfig -N dgx03 -i: node override pagepool 1G (the class.s 16G applies again) removed' ||
	fail "drift not planned: $out"
echo "$out" | grep -qx -- '-pagepool 1G' || fail "no diff of the drift: $out"
out=$(deploy) || fail "deploy after drift: $out"
echo "$out" | grep -Eq '^  scale_tune +changed +dgx01$' || fail "scale_tune after drift: $out"
mm mmlsconfig | grep -q '^\[dgx03\]' && fail "the override is still there"
# -i: the running daemon drops the 1G at once and takes the class's 16G
# (mmchconfig pagepool=DEFAULT -N dgx03 -i deletes the node's own value)
sim_ssh 127.0.1.3 /usr/lpp/mmfs/bin/mmdiag --config | grep -q '^ ! pagepool 17179869184$' ||
	fail "dgx03 does not run the class's pagepool 16G: $(sim_ssh 127.0.1.3 /usr/lpp/mmfs/bin/mmdiag --config | grep pagepool)"

# mmlsconfig folds the nodes (and classes) sharing a value into one stanza:
# [dgx04,dgx05] is two node overrides, and [dgx,dgx06] is the class's own
# value as well as dgx06's, which leaves the class converged
mm mmchconfig pagepool=2G -N dgx04,dgx05 -i >/dev/null || fail "mmchconfig of two nodes"
mm mmchconfig workerThreads=1024 -N dgx06 >/dev/null || fail "mmchconfig of dgx06"
mm mmlsconfig | grep -qx '\[dgx04,dgx05\]' && mm mmlsconfig | grep -qx '\[dgx,dgx06\]' ||
	fail "no shared stanzas: $(mm mmlsconfig)"
out=$(deploy --check) || fail "check after the shared stanzas: $out"
for n in dgx04 dgx05; do
	echo "$out" | grep -q "mmchconfig -N $n -i: node override pagepool 2G (the class.s 16G applies again) removed" ||
		fail "$n's override in [dgx04,dgx05] not planned: $out"
done
echo "$out" | grep -q 'mmchconfig -N dgx \[dgx\]' && fail "the class's value in [dgx,dgx06] was not seen: $out"
out=$(deploy) || fail "deploy after the shared stanzas: $out"
mm mmlsconfig | grep -q '^\[dgx04' && fail "the two-node override is still there: $(mm mmlsconfig)"
exit 0

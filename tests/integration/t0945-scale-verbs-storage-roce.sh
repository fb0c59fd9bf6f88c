#!/bin/sh
# verbsPorts from the adapters that reach the storage (issue 28): on the
# HGX profile the storage is two 200GbE RoCE ports (storage_hcas mlx5_8,
# mlx5_9) beside eight NDR compute ports. scale_tune wants verbsPorts on
# the storage ports, with verbsRdmaCm enable (a RoCE port opens RDMA only
# through the RDMA connection manager); a class configured on the compute
# ports without it is planned back, applied through the restarts, and the
# running daemons then use RDMA on exactly mlx5_8 and mlx5_9 (scale_rdma).
# Without verbsRdmaCm the RoCE ports never open: scale_rdma fails.
. "$(dirname "$0")/lib.sh"
sim_up -n 3 --profile hgx-h100-ndr --state ready
STATE=$TEST_DIR/state
deploy() { "$BRINGUP" deploy -i "$INV" --state-dir "$STATE" --timeout "$(slow 300)" "$@"; }
mm() { sim_ssh 127.0.1.1 "/usr/lpp/mmfs/bin/$*"; }

grep -qx '    storage_hcas: \[mlx5_8, mlx5_9\]' "$INV" || fail "the HGX inventory has no storage HCAs"
# the ready cluster is what scale_tune builds: converged
out=$(deploy --check --tags scale_tune,scale_rdma -o json) || fail "check on the ready HGX cluster: $out"
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
st = {s["name"]: s["hosts"] for s in d["stages"]}
assert st["scale_tune"]["hgx01"]["status"] == "ok", st["scale_tune"]
' || fail "scale_tune not converged on the ready HGX cluster: $out"
mm mmlsconfig | grep -qx 'verbsPorts mlx5_8/1 mlx5_9/1' && mm mmlsconfig | grep -qx 'verbsRdmaCm enable' ||
	fail "ready HGX config: $(mm mmlsconfig)"

# the class on the compute fabric, as bringup configured it before
mm mmchconfig "'verbsPorts=mlx5_0/1 mlx5_1/1 mlx5_2/1 mlx5_3/1 mlx5_4/1 mlx5_5/1 mlx5_6/1 mlx5_7/1'" -N hgx >/dev/null &&
	mm mmchconfig verbsRdmaCm=disable -N hgx >/dev/null || fail "mmchconfig behind bringup's back"
out=$(deploy --check --tags scale_tune) || fail "check: $out"
echo "$out" | grep -q 'mmchconfig -N hgx \[hgx\]: verbsPorts mlx5_0/1 mlx5_1/1 mlx5_2/1 mlx5_3/1 mlx5_4/1 mlx5_5/1 mlx5_6/1 mlx5_7/1 -> mlx5_8/1 mlx5_9/1, verbsRdmaCm disable -> enable' ||
	fail "the storage ports with verbsRdmaCm are not planned: $out"
out=$(deploy --tags scale_tune,scale_remote_mount,scale_rdma) || fail "deploy of the storage ports: $out"
echo "$out" | grep -Eq '^  scale_rdma +ok +hgx\[01-03\]$' || fail "scale_rdma after the change: $out"
for a in 127.0.1.1 127.0.1.2 127.0.1.3; do
	v=$(sim_ssh $a /usr/lpp/mmfs/bin/mmfsadm test verbs status)
	echo "$v" | grep -qx 'VERBS RDMA status: started' || fail "$a: $v"
done
sim_ssh 127.0.1.2 /usr/lpp/mmfs/bin/mmdiag --config | grep -qx ' ! verbsPorts mlx5_8/1 mlx5_9/1' ||
	fail "hgx02 does not run on the storage ports: $(sim_ssh 127.0.1.2 /usr/lpp/mmfs/bin/mmdiag --config | grep verbs)"

# RoCE without the RDMA connection manager: the ports do not open
mm mmchconfig verbsRdmaCm=disable -N hgx03 >/dev/null || fail "mmchconfig verbsRdmaCm on hgx03"
mm mmshutdown -N hgx03 >/dev/null && mm mmstartup -N hgx03 >/dev/null || fail "restart hgx03"
i=0
until mm mmgetstate -N hgx03 | grep -q 'hgx03 *active$'; do
	i=$((i + 1)); [ $i -lt 80 ] || fail "hgx03 not active"; sleep 0.25
done
out=$(deploy --check --tags scale_rdma 2>&1) && fail "scale_rdma passed with RoCE ports and no verbsRdmaCm: $out"
echo "$out" | grep -Eq '^  scale_rdma +failed +hgx03: ' || fail "scale_rdma hgx03: $out"
exit 0

#!/bin/sh
# validate's rdma stage runs each end of ib_write_bw under numactl on the
# NUMA node that the host's sysfs gives for the HCA
# (/sys/class/infiniband/DEV/device/numa_node, which the simulated nodes
# answer: on a DGX-1, mlx5_0-1 on node 0, mlx5_2-3 on node 1), and unpinned
# where it says -1 (no NUMA, as in a VM): dgx02's mlx5_3 here. numactl's
# stand-in logs every binding on the node that ran it. validate.rdma.numa
# false runs nothing under numactl.
. "$(dirname "$0")/lib.sh"
sim_up -n 2 --state ready
printf '\nvalidate:\n  tries: 1\n  rdma:\n    duration: 1\n' >>"$INV"
N=$BRINGUP_SIM_DIR/nodes
"$BRINGUP" exec -i "$INV" -- cat /sys/class/infiniband/mlx5_0/device/numa_node \
	/sys/class/infiniband/mlx5_3/device/numa_node >"$TEST_DIR/sysfs" || fail "exec"
grep -q '^ *0$' "$TEST_DIR/sysfs" && grep -q '^ *1$' "$TEST_DIR/sysfs" ||
	fail "sysfs over SSH: $(cat "$TEST_DIR/sysfs")"
echo -1 >"$N/dgx02/state/sys/class/infiniband/mlx5_3/device/numa_node" || fail "no sysfs file"

expect_status 0 "$BRINGUP" validate --no-baseline -i "$INV" --stage rdma -o json --output "$TEST_DIR/r.json"
# "cpunodebind=N membind=N sh -c ib_write_bw -d 'HCA' ..." -> "HCA N" per test
bound() { sed -n "s/^cpunodebind=\([0-9]\) membind=\1 sh -c ib_write_bw -d '\([a-z0-9_]*\)' .*/\2 \1/p" \
	"$N/$1/log/numactl.log" 2>/dev/null | sort -u | tr '\n' ' '; }
[ "$(bound dgx01)" = "mlx5_0 0 mlx5_1 0 mlx5_2 1 mlx5_3 1 " ] || fail "dgx01 bindings: $(bound dgx01)"
[ "$(bound dgx02)" = "mlx5_0 0 mlx5_1 0 mlx5_2 1 " ] || fail "dgx02 bindings: $(bound dgx02)"
[ "$(wc -l <"$N/dgx01/log/numactl.log")" -eq 4 ] || fail "one binding a test: $(cat "$N/dgx01/log/numactl.log")"
python3 - "$TEST_DIR/r.json" <<'PY' || fail "report"
import json, sys
s = json.load(open(sys.argv[1]))["stages"][0]
assert s["status"] == "pass" and len(s["results"]) == 4, s
PY

rm -f "$N/dgx01/log/numactl.log" "$N/dgx02/log/numactl.log"
printf '    numa: false\n' >>"$INV"
expect_status 0 "$BRINGUP" validate --no-baseline -i "$INV" --stage rdma -o json --output "$TEST_DIR/r2.json"
[ ! -e "$N/dgx01/log/numactl.log" ] && [ ! -e "$N/dgx02/log/numactl.log" ] || fail "numa: false still pinned"
exit 0

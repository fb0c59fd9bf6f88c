#!/bin/sh
# Proves the GPU and benchmark stand-ins of the simulated nodes (nvidia-smi,
# lspci, dmesg, ib_write_bw, all_reduce_perf, tf_cnn_benchmarks, multiproc.py) print the
# real tools' layouts (checked against the real captures in
# tests/fixtures/sim-gpu/real and tests/fixtures/tools/nvidia-smi, one
# nvidia-smi table per driver generation, and the reviewed outputs in
# tests/fixtures/sim-gpu/expected) and
# that the GPU, IB and memlock faults change exactly what they should.
# Runs the stand-ins directly on node directories; no sshd involved.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../fixtures/sim-gpu/mknode.sh"
for t in flock md5sum awk; do
	command -v $t >/dev/null || skip "$t"
done

mknode "$D/dgx01" dgx01 0 2 ready dgx1
mknode "$D/dgx02" dgx02 1 2 ready dgx1
mknode "$D/h01" h01 0 1 ready h100
mknode "$D/bare01" bare01 0 1 bare dgx1
for n in dgx01 dgx02 h01 bare01; do
	initnode "$D/$n" "$CLUSTER" || fail "init of $n failed"
done
N1=$D/dgx01 N2=$D/dgx02 H=$D/h01

# same_as NAME: compares $OUT/NAME with the reviewed expected output.
same_as() {
	diff -u "$FIX/expected/$1" "$OUT/$1" || fail "$1 differs from expected"
}

# --- nvidia-smi ---------------------------------------------------------------
on "$H" nvidia-smi >"$OUT/h100-table" || fail "nvidia-smi failed"
# The H100 table is the real capture's layout exactly (values aside).
sed 1d "$OUT/h100-table" | shape >"$OUT/a"
{ sed 1d "$FIX/real/h100_8x_550_healthy.txt"; echo; } | shape >"$OUT/b"
diff -u "$OUT/b" "$OUT/a" || fail "nvidia-smi table layout differs from the H100 capture"
# The DGX-1's 440 driver prints the narrow table of the real DGX-1 capture
# (384): every line with no value the same, every field ending in the same
# column (values right-aligned as nvidia-smi aligns them), and the version
# line's labels where the capture has them.
DGX1=$FIX/real/v100_sxm2_32gb_8x_384_183_dgx1_gpu0_100pct_no_processes_visible.txt
on "$N1" nvidia-smi >"$OUT/dgx1-table" || fail "nvidia-smi (440) failed"
sed '1d;3d' "$OUT/dgx1-table" >"$OUT/a"
sed '1d;3d' "$DGX1" >"$OUT/b"
grep -v '[0-9]' "$OUT/a" >"$OUT/a.fixed"
grep -v '[0-9]' "$OUT/b" >"$OUT/b.fixed"
diff -u "$OUT/b.fixed" "$OUT/a.fixed" || fail "nvidia-smi (440) lines without values differ from the DGX-1 capture"
colends <"$OUT/b" >"$OUT/b.cols"
colends <"$OUT/a" >"$OUT/a.cols"
diff -u "$OUT/b.cols" "$OUT/a.cols" || fail "nvidia-smi (440) fields end elsewhere than in the DGX-1 capture"
for f in "$DGX1" "$OUT/dgx1-table"; do sed -n 3p "$f"; done >"$OUT/v"
[ "$(awk '{ print index($0, "Driver Version:"), index($0, "CUDA Version:"), length($0) }' "$OUT/v" | sort -u | wc -l)" -eq 1 ] ||
	fail "nvidia-smi (440) version line differs: $(cat "$OUT/v")"

# Each driver generation prints the layout of its real capture
# (tests/fixtures/tools/nvidia-smi, sources in SOURCES.md there). A node
# running the capture's driver, CUDA version and GPU model prints, up to the
# end of the capture's first GPU: every line without a value as the capture
# has it (borders, column heads, MIG row), and in every line with values
# each field ending in the capture's column (nvidia-smi right-aligns its
# values; the version line thus has its labels where the capture has them).
# Only the timestamp line, trailing blanks (the copies differ) and the
# values (bus ids, temperatures, power, memory) may differ. The 540 capture
# is a Jetson whose GPU cells are all N/A, which the stand-in never prints:
# there N/A counts as a value and only the cell borders of the GPU rows are
# compared.
SMI=$(cd "$(dirname "$0")/../fixtures/tools/nvidia-smi" && pwd)

# smi_node NAME DRIVER CUDA MODEL [state]: a DGX-1 node with that driver and
# GPU model; with "state" the driver is one a runfile installed and a boot
# loaded (state/gpu_driver, state/gpu_driver_loaded) over the image's 440;
# its CUDA version is then the one the driver's branch reports (sim-lib.sh's
# sim_cuda_of_driver), checked against the capture's below.
smi_node() {
	mknode "$D/$1" "$1" 0 1 ready dgx1
	sed -i "s|^GPU_MODEL=.*|GPU_MODEL='$4'|" "$D/$1/node.conf"
	[ "${5:-}" = state ] ||
		sed -i "s|^GPU_DRIVER=.*|GPU_DRIVER='$2'|; s|^CUDA_VERSION=.*|CUDA_VERSION='$3'|" "$D/$1/node.conf"
	initnode "$D/$1" "$CLUSTER" || fail "init of $1 failed"
	if [ "${5:-}" = state ]; then
		echo "$2" >"$D/$1/state/gpu_driver"
		echo "$2" >"$D/$1/state/gpu_driver_loaded"
	fi
}

# smi_layout CAPTURE OUTPUT [cells]: OUTPUT has CAPTURE's layout, as above;
# with "cells", GPU rows are compared by their cell borders only.
smi_layout() {
	k=$(wc -l <"$1")
	na=
	[ "${3:-}" = cells ] && na='s|N/A|0/0|g; s|Not Supported|0000000000000|'
	sed "1d; s/ *\$//; $na" "$1" >"$OUT/b"
	head -n "$k" "$2" | sed "1d; s/ *\$//; $na" >"$OUT/a"
	grep -v '[0-9]' "$OUT/b" >"$OUT/b.fixed"
	grep -v '[0-9]' "$OUT/a" >"$OUT/a.fixed"
	diff -u "$OUT/b.fixed" "$OUT/a.fixed" || return 1
	if [ "${3:-}" = cells ]; then
		for f in a b; do
			{ sed -n 2p "$OUT/$f" | colends; grep '[0-9]' "$OUT/$f" | sed 's/[^|]/ /g; s/ *$//'; } >"$OUT/$f.cols"
		done
	else
		for f in a b; do grep '[0-9]' "$OUT/$f" | colends >"$OUT/$f.cols"; done
	fi
	diff -u "$OUT/b.cols" "$OUT/a.cols"
}

# smi_parses CAPTURE OUTPUT: bringup's parser reads OUTPUT (ok, 8 GPUs, no
# processes) with the fields it finds in the real CAPTURE: the same driver
# version, GPU name as cut, version fields and per-GPU fields (MIG mode from
# 450 on). The Jetson's N/A cells are values the stand-in does not print.
smi_parses() {
	"$BRINGUP" parse nvidia-smi "$1" >"$OUT/b.json" || return 1
	"$BRINGUP" parse nvidia-smi "$2" >"$OUT/a.json" || return 1
	python3 - "$OUT/b.json" "$OUT/a.json" <<'PY'
import json, sys
b, a = (json.load(open(f)) for f in sys.argv[1:])
top = lambda j: sorted(set(j) - {"processes", "timestamp"})
bad = []
if a["ok"] is not True or len(a["gpus"]) != 8 or a["processes"] != []:
    bad.append("not 8 GPUs without processes")
for k in ("driver_version", "smi_version"):
    if a[k] != b[k]:
        bad.append("%s %r, capture %r" % (k, a[k], b[k]))
if a["gpus"][0]["name"] != b["gpus"][0]["name"]:
    bad.append("name %r, capture %r" % (a["gpus"][0]["name"], b["gpus"][0]["name"]))
if top(a) != top(b):
    bad.append("fields %s, capture %s" % (top(a), top(b)))
if "temperature_c" in b["gpus"][0] and sorted(a["gpus"][0]) != sorted(b["gpus"][0]):
    bad.append("GPU fields %s, capture %s" % (sorted(a["gpus"][0]), sorted(b["gpus"][0])))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

# GENERATION DRIVER CUDA PERSISTENCE CAPTURE MODEL, one a line (persistence
# as the capture shows it, set with -pm 0 where it is Off).
# 410.48's banner has no CUDA Version field; 470 adds the MIG M. row to the
# narrow table; 535/540 have the 22-wide Bus-Id column; 580 a +---+ rule
# under the banner; 610 KMD/CUDA UMD Version. 580 and 610 come as runfile
# upgrades, the others as the image's driver. The RTX 3080's full name is
# longer than the column and is cut as the capture shows.
while read -r v drv cuda pm cap model <&3; do
	how=
	case $v in 580 | 610) how=state;; esac
	smi_node "smi$v" "$drv" "$cuda" "$model" $how
	[ "$pm" = Off ] && { on "$D/smi$v" nvidia-smi -pm 0 >/dev/null || fail "-pm 0 ($v)"; }
	on "$D/smi$v" nvidia-smi >"$OUT/smi$v" || fail "nvidia-smi ($v) failed"
	[ "$how" != state ] || grep -Eq "CUDA (UMD )?Version: $cuda " "$OUT/smi$v" ||
		fail "nvidia-smi ($drv) after a runfile install: not CUDA $cuda: $(sed -n 3p "$OUT/smi$v")"
	mode=
	[ "$v" = 540 ] && mode=cells
	smi_layout "$SMI/$cap" "$OUT/smi$v" $mode || fail "nvidia-smi ($drv) layout differs from $cap"
	smi_parses "$SMI/$cap" "$OUT/smi$v" || fail "bringup parse nvidia-smi ($drv) differs from its capture"
done 3<<LIST
410 410.48 10.0 Off v100_dgxs_410_48_no_cuda_version_gpu_table_excerpt.txt Tesla V100-DGXS-32GB
470 470.256.02 11.4 On a10g_470_256_narrow_mig_row_gpu_table_excerpt.txt NVIDIA A10G
535 535.230.02 12.2 On t4_535_230_narrow_bus_id_gpu_table_excerpt.txt Tesla T4
540 540.4.0 N/A On jetson_orin_540_all_na_gpu_table_excerpt.txt Orin (nvgpu)
580 580.126.09 13.0 On t4_580_126_plus_rule_under_banner_gpu_table_excerpt.txt Tesla T4
610 610.43.03 13.3 Off r610_kmd_umd_banner_rtx3080_gpu_table_excerpt.txt NVIDIA GeForce RTX 3080 Laptop GPU
LIST
# The Processes box: as wide as the table for 530-549 (the GTX 1050 Ti 535
# capture), and in the 79-column table with GI/CI columns from 450 on (the
# 510 capture), without them before (410.104). No capture shows one of 580
# or 610; they print 550's, which the H100 test above compares.
for p in "535 gtx1050ti_535_power_na_err_two_processes.txt" \
	"470 geforce_2x_510_processes_without_names.txt" \
	"410 v100_sxm2_32gb_8x_410_104_dgx1_busy_7_processes.txt"; do
	set -- $p
	sed -n '/^| Processes:/,/^|==/p' "$SMI/$2" | sed 's/ *$//' >"$OUT/b"
	sed -n '/^| Processes:/,/^|==/p' "$OUT/smi$1" | diff -u "$OUT/b" - ||
		fail "nvidia-smi ($1) Processes box differs from $2"
done

# -q: every line has the layout of a line of the real 535 capture.
on "$H" nvidia-smi -q | sed 's/: .*/: V/' >"$OUT/a"
sed 's/: .*/: V/' "$FIX/real/h100_8x_535_hw_slowdown_active_degraded.txt" >"$OUT/b"
lines_within "$OUT/a" "$OUT/b" || fail "nvidia-smi -q has lines the real one has not"
# An older driver's -q has the layout of the real 460 capture (bus ids aside).
on "$N1" nvidia-smi -q | sed 's/: .*/: V/; s/[0-9A-F]/9/g' >"$OUT/a"
sed 's/: .*/: V/; s/[0-9A-F]/9/g' "$FIX/real/a100_sxm4_8x_460_healthy_full.txt" >"$OUT/b"
lines_within "$OUT/a" "$OUT/b" || fail "nvidia-smi -q (440) has lines the real 460 one has not"
on "$N1" nvidia-smi -q -i 0 | sed '/^Timestamp/d' >"$OUT/nvidia-smi-q-dgx1.txt"
same_as nvidia-smi-q-dgx1.txt
grep -q '^    Clocks Throttle Reasons$' "$OUT/nvidia-smi-q-dgx1.txt" ||
	fail "a 440 driver must say Clocks Throttle Reasons"
[ "$(on "$H" nvidia-smi -q | grep -c '^    Clocks Event Reasons$')" -eq 8 ] ||
	fail "a 550 driver must say Clocks Event Reasons for each GPU"

on "$N1" nvidia-smi topo -m >"$OUT/nvidia-smi-topo-dgx1.txt"
same_as nvidia-smi-topo-dgx1.txt
on "$H" nvidia-smi topo -m >"$OUT/a"
sed -n '/^Legend:/,/^  NV#/p' "$FIX/real/topo_m_8x_a100_nv12_10_nics_pxb.txt" >"$OUT/b"
sed -n '/^Legend:/,/^  NV#/p' "$OUT/a" | diff -u "$OUT/b" - || fail "topo legend differs"
grep -q '^NIC Legend:$' "$OUT/a" || fail "a 550 driver prints the NIC legend"
# one NIC per GPU, behind the same PCIe switch (PXB, as in the capture)
awk -F '\t' '/^GPU[0-7]\t/ { g = substr($1, 4); if ($(10 + g) != "PXB") bad = 1 } END { exit bad }' "$OUT/a" ||
	fail "GPU k and NIC k must share a switch"
awk -F '\t' 'NR == 1 { n = NF } NF > 1 && NF != n { exit 1 }' "$OUT/a" ||
	fail "topo rows do not have as many cells as the header"

Q=name,driver_version,count,pci.bus_id,clocks_throttle_reasons.hw_power_brake_slowdown,remapped_rows.pending,remapped_rows.failure
on "$N1" nvidia-smi --query-gpu=$Q --format=csv >"$OUT/query-dgx1.csv"
same_as query-dgx1.csv
on "$N1" nvidia-smi --query-gpu=clocks_event_reasons.hw_power_brake_slowdown --format=csv >/dev/null &&
	fail "clocks_event_reasons is not a field of a 440 driver"
[ "$(on "$H" nvidia-smi --query-gpu=clocks_event_reasons.hw_power_brake_slowdown --format=csv,noheader | sort -u)" = "Not Active" ] ||
	fail "healthy H100 reports a power brake"

# persistence mode: off on a bare node until -pm 1, which every node sees
on "$D/bare01" nvidia-smi | grep -c '^|   [0-7]  Tesla V100-SXM2\.\.\.  Off  |' | grep -qx 8 ||
	fail "a bare node's GPUs do not show persistence mode off"
on "$D/bare01" nvidia-smi -pm 1 -i 0 >"$OUT/a" || fail "nvidia-smi -pm failed"
printf '%s\n' "Enabled persistence mode for GPU 00000000:06:00.0." "All done." | diff -u - "$OUT/a" ||
	fail "-pm 1 output"
[ "$(on "$D/bare01" nvidia-smi --query-gpu=persistence_mode --format=csv,noheader | sort | uniq -c | tr -s ' ')" = "$(printf ' 7 Disabled\n 1 Enabled')" ] ||
	fail "-pm 1 -i 0 must enable GPU 0 only"

# a node without GPUs (storage, masters) has no driver at all
mknode "$D/cpu01" cpu01 0 1 ready dgx1
sed -i "s/^GPU_COUNT=.*/GPU_COUNT='0'/" "$D/cpu01/node.conf"
initnode "$D/cpu01" "$CLUSTER" || fail "init of cpu01 failed"
on "$D/cpu01" nvidia-smi 2>/dev/null
[ $? -eq 127 ] || fail "nvidia-smi must be absent without GPUs"
[ "$(on "$D/cpu01" lspci | grep -c 'Infiniband controller')" -eq 4 ] && ! on "$D/cpu01" lspci | grep -q NVIDIA ||
	fail "a GPU-less node shows its HCAs only"

# --- lspci ----------------------------------------------------------------------
on "$H" lspci -vvv >"$OUT/h100-lspci"
# Every line but the IB class title and the NUMA node is one of the real
# capture's lines (the capture's NIC runs Ethernet, NUMA node 0).
grep -v 'Infiniband controller\|NUMA node\|^$' "$OUT/h100-lspci" |
	sed 's/^[0-9a-f][0-9a-f]:00\.0 3D/19:00.0 3D/' >"$OUT/a"
lines_within "$OUT/a" "$FIX/real/h100_host_gpu_nic_gen5_ok_switch_port_downgraded.txt" ||
	fail "lspci -vvv has lines the real one has not"
[ "$(grep -c '^19:00.0 3D controller: NVIDIA Corporation Device 2330 (rev a1)$' "$OUT/h100-lspci")" -eq 1 ] ||
	fail "H100 GPU 0 not at 19:00.0"
on "$N1" lspci >"$OUT/lspci-dgx1.txt"
same_as lspci-dgx1.txt
on "$N1" lspci -s 0000:0a:00.0 -vvv >"$OUT/lspci-s-dgx1.txt"
same_as lspci-s-dgx1.txt

# --- faults ---------------------------------------------------------------------
echo 2 >"$N1/faults/gpu-throttle"
on "$N1" nvidia-smi --query-gpu=clocks_throttle_reasons.hw_power_brake_slowdown --format=csv,noheader >"$OUT/a"
[ "$(sed -n 3p "$OUT/a")" = Active ] && [ "$(grep -c '^Active$' "$OUT/a")" -eq 1 ] ||
	fail "gpu-throttle 2 must brake GPU 2 only: $(cat "$OUT/a")"
[ "$(on "$N1" nvidia-smi -q | grep -c 'HW Power Brake Slowdown       : Active')" -eq 1 ] ||
	fail "-q must show one power brake"
[ "$(on "$N1" nvidia-smi -q | grep -c '^        HW Slowdown  *: Active$')" -eq 1 ] ||
	fail "-q must show one HW slowdown"
on "$N1" nvidia-smi -q -d PERFORMANCE -i 2 | sed -n '/^GPU/,$p' >"$OUT/a"
{ echo "GPU 00000000:0A:00.0"; sed -n '/^    Performance State/,/^        Display Clock/p' "$OUT/nvidia-smi-q-dgx1.txt" |
	sed 's/\(HW Slowdown  *: \).*/\1Active/; s/\(HW Power Brake Slowdown  *: \).*/\1Active/'; echo; } |
	diff -u - "$OUT/a" || fail "-q -d PERFORMANCE must print that section only"
rm "$N1/faults/gpu-throttle"
: >"$N1/faults/row-remap-pending"
[ "$(on "$N1" nvidia-smi --query-gpu=remapped_rows.pending --format=csv,noheader | tr '\n' ' ')" = "Yes No No No No No No No " ] ||
	fail "row-remap-pending must mark GPU 0 only"
on "$N1" nvidia-smi -q -i 0 | grep -q '^        Pending                           : Yes$' ||
	fail "-q must show the pending remap"
rm "$N1/faults/row-remap-pending"
echo 1 >"$N1/faults/pcie-degraded"
on "$N1" lspci -s 07:00.0 -vvv | grep -q "$(printf '^\t\tLnkSta:\tSpeed 5GT/s (downgraded), Width x8 (downgraded)$')" ||
	fail "pcie-degraded must lower GPU 1's LnkSta"
on "$N1" lspci -s 06:00.0 -vvv | grep -q "$(printf '^\t\tLnkSta:\tSpeed 8GT/s (ok), Width x16 (ok)$')" ||
	fail "pcie-degraded must leave GPU 0 alone"
on "$N1" nvidia-smi --query-gpu=pcie.link.width.current --format=csv,noheader,nounits | tr '\n' ' ' |
	grep -qx '16 8 16 16 16 16 16 16 ' || fail "nvidia-smi must see the x8 link"
rm "$N1/faults/pcie-degraded"
on "$N1" dmesg | grep -q Xid && fail "dmesg shows an Xid without the fault"
: >"$N1/faults/xid"
on "$N1" dmesg | grep -q '^\[ *[0-9.]*\] NVRM: Xid (PCI:0000:06:00): 79, pid=0, GPU has fallen off the bus\.$' ||
	fail "xid fault must log Xid 79 on GPU 0"
echo "48 3" >"$N1/faults/xid"
on "$N1" dmesg | grep -q 'NVRM: Xid (PCI:0000:0b:00): 48, ' || fail "xid 48 on GPU 3 expected"
rm "$N1/faults/xid"
on "$N1" nvidia-smi --query-gpu=$Q --format=csv | diff -u "$FIX/expected/query-dgx1.csv" - ||
	fail "clearing the faults must restore the node"

# --- all_reduce_perf --------------------------------------------------------------
on "$N1" all_reduce_perf -b 8 -e 256M -f 2 -g 8 >"$OUT/ar" || fail "all_reduce_perf failed"
sed -n '/^#  *out-of-place/,/^#  *(B)/p' "$FIX/real/all_reduce_2x8_h100_gcp_a3mega_new_format_footer.txt" >"$OUT/b"
sed -n '/^#  *out-of-place/,/^#  *(B)/p' "$OUT/ar" | diff -u "$OUT/b" - || fail "nccl-tests header differs"
# right-aligned columns: each field ends where the real one does
grep '^ ' "$OUT/ar" | colends | sort -u >"$OUT/a"
grep '^ ' "$FIX/real/all_reduce_2x8_h100_gcp_a3mega_new_format_footer.txt" | colends | sort -u >"$OUT/b"
lines_within "$OUT/a" "$OUT/b" || fail "nccl-tests rows do not have the real layout"
[ "$(grep -c '^ ' "$OUT/ar")" -eq 26 ] || fail "8 B..256 MB is 26 sizes"
grep -q '^# Avg bus bandwidth    : [0-9.]* $' "$OUT/ar" || fail "no Avg bus bandwidth line"
bw() { awk '$1 == 268435456 { print int($8) }' "$1"; }
b0=$(bw "$OUT/ar")
[ "$b0" -ge 100 ] && [ "$b0" -le 140 ] || fail "DGX-1V busbw at 256 MB should be ~130 GB/s, got $b0"
echo 5 >"$N1/faults/gpu-throttle"
on "$N1" all_reduce_perf -b 8 -e 256M -f 2 -g 8 >"$OUT/ar2"
b1=$(bw "$OUT/ar2")
[ "$b1" -lt $((b0 * 6 / 10)) ] || fail "a throttled GPU must slow the ring: $b1 vs $b0"
rm "$N1/faults/gpu-throttle"
on "$N1" all_reduce_perf -b 8 -e 8 -g 9 >/dev/null && fail "9 GPUs on an 8-GPU node must fail"

# --- tf_cnn_benchmarks ------------------------------------------------------------
tf() { on "$N1" tf_cnn_benchmarks --model=resnet50 --batch_size=64 --num_gpus="$1" | sed -n 's/^total images\/sec: //p'; }
on "$N1" tf_cnn_benchmarks --model=resnet50 --batch_size=64 --num_gpus=8 >"$OUT/tf"
# numbers collapsed to one digit; newer versions say total_loss
sed -n '/^Step/,$p' "$OUT/tf" | sed 's/[0-9][0-9]*/9/g' >"$OUT/a"
sed 's/[0-9][0-9]*/9/g; s/Img\/sec\tloss/Img\/sec\ttotal_loss/' \
	"$FIX/real/tf_cnn_benchmarks_resnet50_1gpu_synthetic_2017.txt" >"$OUT/b"
lines_within "$OUT/a" "$OUT/b" || fail "tf_cnn_benchmarks lines do not have the real layout"
t1=$(tf 1) t8=$(tf 8)
awk -v a="$t1" -v b="$t8" 'BEGIN { exit !(a > 300 && a < 420 && b > 6 * a) }' ||
	fail "ResNet-50 on V100: 1 GPU $t1, 8 GPUs $t8"
echo 0 >"$N1/faults/gpu-throttle"
t8t=$(tf 8)
awk -v a="$t8t" -v b="$t8" 'BEGIN { exit !(a < 0.6 * b) }' || fail "throttled: $t8t vs $t8"
rm "$N1/faults/gpu-throttle"

# --- multiproc.py (DeepLearningExamples PyTorch ResNet-50) ----------------------
# Run as the real capture was (FP32, fanin, dali-cpu, 12 iterations): every
# line but DLLogger's PARAMETER line is a line of the capture once digits
# and the lambda's address are masked, and PARAMETER has the capture's keys
# in its order (the bare debug numbers and libibverbs warnings of the
# capture are not the benchmark's).
DLE=$FIX/real/pytorch_rn50_2x8_v100_dllogger_train_total_ips_libibverbs_warnings.txt
on "$N1" multiproc.py --nproc_per_node 8 ./main.py --data-backend dali-cpu --arch resnet50 \
	-c fanin -b 128 --epochs 1 --prof 12 --training-only --no-checkpoints /data/image >"$OUT/dle" ||
	fail "multiproc.py failed"
mask() { grep -v ' - PARAMETER ' "$1" | sed 's/0x[0-9a-f]*/0xH/; s/[0-9][0-9]*/9/g'; }
mask "$OUT/dle" >"$OUT/a"
mask "$DLE" >"$OUT/b"
lines_within "$OUT/a" "$OUT/b" || fail "multiproc.py lines do not have the real layout"
[ "$(grep -c 'Iteration: ' "$OUT/dle")" = 12 ] || fail "--prof 12: 12 iterations"
keys() { sed -n 's/.* - PARAMETER //p' "$1" | awk -F'  ' '{ for (i = 1; i <= NF; i++) { sub(/ :.*/, "", $i); printf "%s ", $i } }'; }
[ "$(keys "$OUT/dle")" = "$(keys "$DLE")" ] || fail "PARAMETER keys: $(keys "$OUT/dle")"
# The figure (bringup's own parser) follows GPU model, count, AMP and throttling.
dle() {
	on "$1" multiproc.py --nproc_per_node "$2" ./main.py --arch resnet50 -b 256 --amp \
		--data-backend synthetic --prof 20 --training-only --no-checkpoints /data/imagenet |
		"$BRINGUP" parse dle-resnet50 | python3 -c 'import json, sys; print(json.load(sys.stdin)["images_per_sec"])'
}
d1=$(dle "$N1" 1) d8=$(dle "$N1" 8) h1=$(dle "$H" 1)
awk -v a="$d1" -v b="$d8" -v h="$h1" 'BEGIN { exit !(a > 1000 && a < 1300 && b > 6.8 * a && b < 8 * a && h > 3.5 * a) }' ||
	fail "DLE ResNet-50 AMP: V100 1 GPU $d1, 8 GPUs $d8; H100 1 GPU $h1"
echo 5 >"$N1/faults/gpu-throttle"
d8t=$(dle "$N1" 8) d4t=$(dle "$N1" 4)
awk -v a="$d8t" -v b="$d8" -v c="$d4t" -v d="$d1" 'BEGIN { exit !(a < 0.55 * b && c > 3.4 * d) }' ||
	fail "throttled GPU 5: 8 GPUs $d8t (healthy $d8), 4 GPUs $d4t must not see it"
rm "$N1/faults/gpu-throttle"
on "$N1" multiproc.py --nproc_per_node 9 ./main.py --arch resnet50 >"$OUT/dle9" 2>&1 &&
	fail "9 GPUs on an 8-GPU node must fail"
"$BRINGUP" parse dle-resnet50 "$OUT/dle9" | grep -q '"error": "RuntimeError: CUDA error: invalid device ordinal"' ||
	fail "9 GPUs: $(cat "$OUT/dle9")"

# --- ib_write_bw --------------------------------------------------------------------
on "$D/bare01" ib_write_bw -d mlx5_1 2>/dev/null
[ $? -eq 127 ] || fail "a bare node has no perftest"

# pair [ARGS...]: runs a server on dgx02 and a client on dgx01 (both with
# -d mlx5_1 ARGS), outputs in $OUT/srv $OUT/cli (stderr in .err), statuses
# in SRV CLI.
pair() {
	BRINGUP_SIM_PERFTEST_WAIT=20 on "$N2" ib_write_bw -d mlx5_1 "$@" >"$OUT/srv" 2>"$OUT/srv.err" &
	pid=$!
	i=0
	while [ ! -f "$CLUSTER/perftest/dgx02:18515.srv" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	on "$N1" ib_write_bw -d mlx5_1 "$@" 10.10.1.2 >"$OUT/cli" 2>"$OUT/cli.err"
	CLI=$?
	wait $pid
	SRV=$?
}
avg() { awk '$1 == 65536 { print int($4) }' "$1"; }
# near WANT GOT: GOT within the stand-in's run-to-run noise (+/-1%) of WANT.
near() { awk -v w="$1" -v g="$2" 'BEGIN { exit !(g >= w * 0.985 && g <= w * 1.015) }'; }
pair
[ "$CLI" -eq 0 ] && [ "$SRV" -eq 0 ] || fail "healthy pair failed: $CLI $SRV $(cat "$OUT/cli.err" "$OUT/srv.err")"
# The client prints the seed capture's layout (which starts with a CPU
# frequency warning and stops before the closing dashes).
sed 1d "$FIX/real/ib_write_bw_edr_dgx1_11264MBps_seed_reconstructed.txt" | shape >"$OUT/b"
sed '$d' "$OUT/cli" | shape >"$OUT/a"
diff -u "$OUT/b" "$OUT/a" || fail "ib_write_bw client layout differs from the capture"
near 11264 "$(avg "$OUT/cli")" || fail "EDR pair should give ~11264 MB/sec, got $(avg "$OUT/cli")"
near 11264 "$(avg "$OUT/srv")" || fail "server reports the client's result"
head -4 "$OUT/srv" | grep -q '^\* Waiting for client to connect\.\.\. \*$' || fail "no server banner"
# -a: 2 B..8 MiB; small messages are bound by the message rate
pair -a
[ "$CLI" -eq 0 ] && [ "$(grep -c '^ [0-9]' "$OUT/cli")" -eq 23 ] || fail "-a must print 23 sizes"
awk '$1 == 2 { r = $5 } $1 == 8388608 { b = $4 } END { exit !(r > 2.4 && r < 2.8 && b > 11000 && b < 11600) }' "$OUT/cli" ||
	fail "sweep: 2 B must run at ~2.6 Mpps and 8 MiB at ~11.3 GB/s"
echo mlx5_1 >"$N2/faults/link-degraded"
pair
near 2816 "$(avg "$OUT/cli")" || fail "a 1X EDR server port gives a quarter: $(avg "$OUT/cli")"
rm "$N2/faults/link-degraded"
echo mlx5_1 >"$N1/faults/port-down"
pair
[ "$CLI" -ne 0 ] && grep -q "^ Unable to Connect the HCA's through the link$" "$OUT/cli.err" ||
	fail "a down port must fail at RTR"
rm "$N1/faults/port-down"
: >"$N1/faults/memlock-limited"
pair
[ "$CLI" -ne 0 ] || fail "memlock-limited must fail"
diff -u "$FIX/real/ib_write_bw_couldnt_allocate_mr_memlock_failure.txt" "$OUT/cli.err" ||
	fail "MR failure differs from the capture"
rm "$N1/faults/memlock-limited"
pair
[ "$CLI" -eq 0 ] && near 11264 "$(avg "$OUT/cli")" || fail "clearing faults restores the pair"
ls "$CLUSTER/perftest" | grep -q . && fail "rendezvous files left behind"
exit 0

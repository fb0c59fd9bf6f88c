#!/bin/sh
# bringup parse: every real sample in tests/fixtures/tools/ turns into valid
# JSON with the values the capture shows; every malformed sample fails with
# exit 1 and names its tool and line; unknown tools and empty input fail.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || skip python3 "needed to check the JSON"
FIX=$(cd "$(dirname "$0")/../fixtures/tools" && pwd)
OUT="$TEST_DIR/out.json"
ERR="$TEST_DIR/err.txt"

# expect TOOL FILE PATH WANT: parse FILE now, check PATH (a/0/b) = WANT in
# check_all (one python run for every check: python starts slowly)
CHECKS="$TEST_DIR/checks.tsv"
: >"$CHECKS"
nexp=0
expect() {
	nexp=$((nexp + 1))
	"$BRINGUP" parse "$1" "$FIX/$1/$2" >"$TEST_DIR/e$nexp.json" || fail "parse $1 $2 failed"
	printf '%s\t%s\t%s\t%s\n' "$TEST_DIR/e$nexp.json" "$3" "$4" "$1 $2" >>"$CHECKS"
}
# check_json FILE...: every FILE is valid JSON (as python3 -m json.tool reads it)
check_json() {
	python3 -c 'import json, sys
for f in sys.argv[1:]:
    try:
        json.load(open(f))
    except ValueError as e:
        sys.exit("%s: invalid JSON: %s" % (f, e))' "$@" || fail "invalid JSON"
}
check_all() {
	python3 - "$CHECKS" <<'PY' || fail "values differ from the captures"
import json, sys
bad = 0
for line in open(sys.argv[1]):
    path_, where, want, label = line.rstrip("\n").split("\t")
    v = json.load(open(path_))
    try:
        for part in where.split("/"):
            v = v[int(part)] if isinstance(v, list) else v[part]
    except (KeyError, IndexError):
        v = "(missing)"
    got = v if isinstance(v, str) else json.dumps(v)
    if got != want:
        print("%s: %s is %r, want %r" % (label, where, got, want))
        bad = 1
sys.exit(bad)
PY
}

# --list and --help
"$BRINGUP" parse --list >"$OUT" || fail "--list failed"
for t in getenforce ibnetdiscover ibstat ibstatus ibv_devinfo lsmod lspci mmgetstate mmlscluster \
	mmlsconfig mmlsmount mmremotecluster mmremotefs nccl-tests nvidia-smi \
	nvidia-smi-q nvidia-smi-topo ofed_info os-release perftest sminfo tf_cnn_benchmarks \
	dle-resnet50 nccl-debug horovod-synthetic kubectl-get-nodes kubectl-get-nodes-yaml kubectl-describe-node saquery \
	mmlsfileset mmlslicense; do
	grep -q "^  $t " "$OUT" || fail "--list lacks $t"
	[ -d "$FIX/$t" ] || fail "no fixtures for $t"
done
"$BRINGUP" parse --help | grep -q "usage: bringup parse TOOL" || fail "--help"

# every real sample: exit 0 and JSON that python accepts (a fragment_ file
# is a few lines quoted from a run, which unit tests complete)
n=0
for f in "$FIX"/*/*; do
	case $f in */SOURCES.md | */malformed_* | */fragment_*) continue ;; esac
	tool=$(basename "$(dirname "$f")")
	n=$((n + 1))
	"$BRINGUP" parse "$tool" "$f" >"$TEST_DIR/all$n.json" 2>"$ERR" ||
		fail "parse $tool $f: $(cat "$ERR")"
done
[ "$n" -ge 40 ] || fail "only $n samples found"
check_json "$TEST_DIR"/all*.json
# and json.tool itself, as a user would check it
python3 -m json.tool "$TEST_DIR/all1.json" >/dev/null || fail "json.tool rejects all1.json"

# stdin gives the same result as the file
"$BRINGUP" parse ibstat <"$FIX/ibstat/a100_hdr200_8x_ib_healthy.txt" >"$TEST_DIR/stdin.json" || fail "stdin"
"$BRINGUP" parse ibstat "$FIX/ibstat/a100_hdr200_8x_ib_healthy.txt" >"$OUT"
cmp -s "$OUT" "$TEST_DIR/stdin.json" || fail "stdin and file differ"

# values the captures show
expect ibstatus dgx1_4x_edr100_healthy_seed_reconstructed.txt cas/1/ports/0/port_guid 0xec0d9a030044d608
expect ibstatus dgx1_4x_edr100_healthy_seed_reconstructed.txt cas/1/ports/0/rate 100
expect ibstat cx6_hdr200_one_active_one_down_disabled_excerpt.txt cas/1/ports/0/state Down
expect ibstat h100_ndr400_8x_ib_plus_bond_eth_healthy.txt cas/8/ports/0/link_layer Ethernet
expect ibv_devinfo ibv_devinfo_vv_cx6_hdr_port_active_and_port_down_disabled.txt cas/0/ports/0/rate 200
expect sminfo sminfo_master_healthy.txt state_name SMINFO_MASTER
expect sminfo sminfo_iberror_cannot_open_umad_port_failure.txt ok false
expect ofed_info ofed_info_s_mlnx_ofed_4_7.txt version 4.7-1.0.0.1
expect lsmod lsmod_grep_nvidia_peermem_loaded_rhel7.txt modules/1/used_by/5 nvidia_peermem
expect lspci h100_host_gpu_nic_gen5_ok_switch_port_downgraded.txt devices/0/lnksta/speed_state downgraded
expect lspci a100_gen4_x16_ok_grep_lnkcap_lnksta.txt devices/0/lnksta/width 16
expect lspci openshift_worker_grep_downgraded_unknown_speed_pcilib_vpd_error.txt devices/0/lnksta/speed unknown
expect nvidia-smi h100_8x_550_healthy.txt driver_version 550.90.07
expect nvidia-smi h100_8x_550_healthy.txt gpus/7/bus_id 00000000:DB:00.0
expect nvidia-smi geforce_2x_510_processes_without_names.txt processes/5/pid 167726
expect nvidia-smi gtx1050ti_535_power_na_err_two_processes.txt gpus/0/power_cap_w ERR!
expect nvidia-smi t4_535_230_narrow_bus_id_gpu_table_excerpt.txt gpus/0/memory_total_mib 15360
expect nvidia-smi-q h100_8x_535_hw_slowdown_active_degraded.txt gpus/5/clocks_event_reasons/hw_power_brake_slowdown true
expect nvidia-smi-q a100_sxm4_8x_460_healthy_full.txt gpus/0/clocks_event_reasons/idle true
expect nvidia-smi-q a100_sxm4_8x_460_healthy_full.txt gpus/0/pcie/gen_max 4
expect nvidia-smi-topo topo_m_8x_a100_nv12_10_nics_pxb.txt devices/0/links/NIC0 PXB
expect nvidia-smi-topo topo_m_8x_a100_nv12_10_nics_pxb.txt devices/17/nic_name mlx5_9
expect perftest ib_write_bw_edr_dgx1_11264MBps_seed_reconstructed.txt results/0/bw_average 11264.11
expect perftest ib_write_bw_couldnt_allocate_mr_memlock_failure.txt errors/0 "Couldn't allocate MR"
expect perftest ib_write_bw_bnxt_re_3qp_rdma_cm_gbits_363gbps_spaces.txt remote/2/qpn 0x2c71
expect nccl-tests all_reduce_2x8_v100_dgx1_edr_ib_openshift_footer_seed_reconstructed.txt avg_bus_bandwidth 12.3088
expect nccl-tests all_reduce_2x8_h100_gcp_a3mega_new_format_footer.txt rows/30/out_of_place/busbw 338.82
expect nccl-tests all_reduce_2x_a100_80gb_nccl_debug_info_socket_excerpt.txt nccl_version 2.20.5+cuda12.4
expect nccl-tests all_reduce_2_ranks_rtx5090_socket_version_line_2_18_0.txt nccl_version 2.29.7
expect nccl-debug nccl_2_x_dgx1_ib_ports_bare_gdr_line_dell_isilon_reconstructed.txt hosts/DGX1-1/net_peers/0/gdr true
expect nccl-debug nccl_2_27_5_roce_8_hcas_gid_index_3_gdrdma_ofi_plugin_fallback_excerpt.txt network IB
expect horovod-synthetic tf2_synthetic_resnet50_8gpu_p100_elided.txt total_images_per_sec 1399.1
expect kubectl-get-nodes wide_3_nodes_centos7_docker_containerd_kubeadm.txt nodes/2/os_image "CentOS Linux 7 (Core)"
expect kubectl-describe-node eks_g6e_l40s_4_gpus_taint_conditions_allocated.txt taints/0/effect NoSchedule
expect tf_cnn_benchmarks tf_cnn_benchmarks_resnet101_horovod_2gpu_mpijob_elided.txt total_images_per_sec 308.27
expect tf_cnn_benchmarks tf_cnn_benchmarks_resnet101_horovod_2gpu_mpijob_elided.txt num_gpus 2
expect dle-resnet50 pytorch_rn50_2x8_v100_dllogger_train_total_ips_libibverbs_warnings.txt parameters/world_size 16
expect dle-resnet50 derived_traceback_cuda_error_after_iteration_3.txt error "RuntimeError: CUDA error: an illegal memory access was encountered"
expect mmgetstate mmgetstate_a_3_nodes_active.txt nodes/2/state active
expect mmlscluster mmlscluster_cnsa_3_workers_quorum_manager.txt cluster/repository_type CCR
expect mmlsconfig mmlsconfig_nodeclass_stanza_dgx_verbs_rdma_seed_excerpt.txt nodeclasses/dgx/verbsRdma enable
expect mmlsmount mmlsmount_all_L_remote_fs_mounted.txt filesystems/0/mounted_on 7
expect mmremotecluster mmremotecluster_show_all_ess3000.txt clusters/0/file_systems/0/remote ess3k_fs1
expect mmremotefs mmremotefs_show_all.txt filesystems/0/mount_point /mnt/fs1
expect os-release debian_12_bookworm.txt VERSION_ID 12
expect getenforce permissive.txt mode Permissive
expect ibnetdiscover ibnetdiscover_ndr_mqm9701_leaf_dgx_hcas_sharp_node_excerpt.txt nodes/0/ports/17/peer/desc "MF0;A10-P1-IBSPINE-02:MQM9701/U1"
expect ibnetdiscover ibnetdiscover_edr_switchib_fabric_one_isl_at_4xddr_excerpt.txt nodes/1/ports/10/speed DDR
expect ibnetdiscover ibnetdiscover_p_edr_ports_with_unconnected_sdr_and_unknown_speed_excerpt.txt ports/8/speed SDR
check_all

# malformed samples: exit 1, "TOOL: line N:" from the file name
m=0
for f in "$FIX"/*/malformed_line*; do
	tool=$(basename "$(dirname "$f")")
	line=$(basename "$f" | sed 's/^malformed_line\([0-9]*\)_.*/\1/')
	expect_status 1 "$BRINGUP" parse "$tool" "$f" >"$OUT" 2>"$ERR"
	grep -q "$tool: line $line: " "$ERR" || fail "$f: stderr '$(cat "$ERR")' lacks '$tool: line $line:'"
	[ -s "$OUT" ] && fail "$f: printed JSON on failure"
	m=$((m + 1))
done
[ "$m" -ge 20 ] || fail "only $m malformed samples found"

# empty input, unknown tool, missing file, no tool
expect_status 1 "$BRINGUP" parse ibstat </dev/null 2>"$ERR"
grep -q "ibstat: no ibstat output" "$ERR" || fail "empty input: $(cat "$ERR")"
expect_status 2 "$BRINGUP" parse no-such-tool "$FIX/ibstat/a100_hdr200_8x_ib_healthy.txt" 2>"$ERR"
grep -q "unknown tool 'no-such-tool'" "$ERR" && grep -q "^  nvidia-smi-q " "$ERR" || fail "unknown tool: $(cat "$ERR")"
expect_status 1 "$BRINGUP" parse ibstat "$TEST_DIR/does-not-exist" 2>/dev/null
expect_status 2 "$BRINGUP" parse 2>/dev/null

# A value that is not UTF-8 (Latin-1 in os-release) is kept, not dropped:
# jansson refuses such strings, so the field used to vanish from the JSON.
printf 'NAME="caf\351"\nID=rhel\n' >"$TEST_DIR/latin1-os-release"
"$BRINGUP" parse os-release "$TEST_DIR/latin1-os-release" >"$OUT" || fail "parse latin-1 os-release"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d == {"NAME": "caf\ufffd", "ID": "rhel", "ok": True}, d
' "$OUT" || fail "latin-1 value lost: $(cat "$OUT")"
exit 0

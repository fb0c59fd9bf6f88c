/* engine/facts/parse-bench.c: nccl-tests (both layouts), tf_cnn_benchmarks and
 * DeepLearningExamples ResNet-50 (DLLogger). */
#include "parse-fixture.h"

/* Two DGX-1 over 4x EDR in OpenShift: pre-2021 layout, a NCCL INFO line
 * inside the table, Avg with a trailing space. */
static void test_nccl_dgx1_openshift_old_layout(void **state)
{
	json_t *j = parse_fixture("nccl-tests", "all_reduce_2x8_v100_dgx1_edr_ib_openshift_footer_seed_reconstructed.txt");

	(void)state;
	assert_jstr_at(j, "format", "old");
	assert_jnum_at(j, "avg_bus_bandwidth", 12.3088);
	assert_jint_at(j, "out_of_bounds", 0);
	assert_jbool_at(j, "out_of_bounds_ok", 1);
	assert_jsize_at(j, "devices", 16);
	assert_jint_at(j, "devices/15/rank", 15);
	assert_jstr_at(j, "devices/15/host", "nccl-test-mpi-worker-1");
	assert_jstr_at(j, "devices/15/bus_id", "0x8a");
	assert_jstr_at(j, "devices/15/name", "Tesla V100-SXM2-16GB");
	assert_jsize_at(j, "rows", 26);
	assert_jint_at(j, "rows/25/size", 268435456);
	assert_jint_at(j, "rows/25/count", 67108864);
	assert_jstr_at(j, "rows/25/type", "float");
	assert_jstr_at(j, "rows/25/redop", "sum");
	assert_null(jpath(j, "rows/25/root"));
	assert_jnum_at(j, "rows/25/out_of_place/busbw", 55.21);
	assert_jnum_at(j, "rows/25/in_place/busbw", 55.22);
	assert_jnum_at(j, "rows/25/in_place/time_us", 9115.3);
	assert_jnum_at(j, "rows/25/in_place/error", 5e-07);
	json_decref(j);
}

/* GCP A3 Mega: the newer layout with root and #wrong columns. */
static void test_nccl_h100_new_layout(void **state)
{
	json_t *j = parse_fixture("nccl-tests", "all_reduce_2x8_h100_gcp_a3mega_new_format_footer.txt");

	(void)state;
	assert_jstr_at(j, "format", "new");
	assert_jnum_at(j, "avg_bus_bandwidth", 70.742);
	assert_jint_at(j, "params/nGpus", 1);
	assert_jint_at(j, "params/maxBytes", 8589934592LL);
	assert_jint_at(j, "devices/8/group", 0);
	assert_jstr_at(j, "devices/8/host", "ztan-mig-gq73");
	assert_jstr_at(j, "devices/8/bus_id", "0000:04:00");
	assert_jstr_at(j, "devices/8/name", "NVIDIA H100 80GB HBM3");
	assert_jsize_at(j, "rows", 31);
	assert_jint_at(j, "rows/30/size", 8589934592LL);
	assert_jint_at(j, "rows/30/root", -1);
	assert_jnum_at(j, "rows/30/out_of_place/busbw", 338.82);
	assert_jint_at(j, "rows/30/in_place/wrong", 0);
	json_decref(j);
}

/* NCCL_DEBUG=INFO: INFO lines around and inside the table, the NCCL version
 * line, and the whole capture indented by a markdown code block. */
static void test_nccl_debug_info_indented(void **state)
{
	json_t *j = parse_fixture("nccl-tests", "all_reduce_2x_a100_80gb_nccl_debug_info_socket_excerpt.txt");

	(void)state;
	assert_jstr_at(j, "nccl_version", "2.20.5+cuda12.4");
	assert_jint_at(j, "params/nGpus", 2);
	assert_jsize_at(j, "devices", 2);
	assert_jstr_at(j, "devices/1/bus_id", "0xa9");
	assert_jsize_at(j, "rows", 3);
	assert_jnum_at(j, "rows/2/out_of_place/busbw", 192.43);
	assert_jnum_at(j, "rows/2/in_place/busbw", 192.18);
	assert_jnum_at(j, "avg_bus_bandwidth", 179.465);
	assert_null(jpath(j, "warnings"));
	/* the transport verdict: no IB device, sockets */
	assert_jstr_at(j, "nccl_info/network", "Socket");
	assert_jsize_at(j, "nccl_info/ib_devices", 0);
	/* per host too (under mpirun every rank prints its own lines) */
	assert_jstr_at(j, "nccl_info/hosts/3767c65d25c4/network", "Socket");
	json_decref(j);
}

/* The Redpaper's NET/IB lines (4 HCAs, a GDRDMA ring), with the footer of
 * the same run appended so that the text is a whole nccl-tests output. */
static void test_nccl_debug_info_ib_gdrdma(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	(void)state;
	fixture_read("nccl-tests", "fragment_nccl_info_net_ib_4_hcas_and_gdrdma_ring_openshift_excerpt.txt", &sb);
	strbuf_addstr(&sb, "# Avg bus bandwidth    : 12.3088 \n");
	j = parse_text("nccl-tests", sb.buf, sb.len);
	assert_jsize_at(j, "nccl_info/ib_devices", 4);
	assert_jstr_at(j, "nccl_info/ib_devices/0", "mlx5_3:1/IB");
	assert_int_equal(json_integer_value(json_object_get(jpath(j, "nccl_info/transports"),
							    "NET/IB/GDRDMA")), 1);
	/* the ring line came from worker-11: its host has the GDRDMA channel */
	assert_int_equal(json_integer_value(json_object_get(
		jpath(j, "nccl_info/hosts/nccl-test-mpi-worker-11/transports"), "NET/IB/GDRDMA")), 1);
	assert_null(jpath(j, "nccl_info/hosts/nccl-test-mpi-worker-1/transports"));
	json_decref(j);
	strbuf_release(&sb);
}

/* Open MPI's launcher writes its own diagnostics into the ranks' stream
 * (a soak run saw this one on the simulated cluster): a warning, the table
 * still read; a line merely starting with '[' is still refused. */
static void test_nccl_mpirun_diagnostic_is_a_warning(void **state)
{
	static const char diag[] = "[dgx01:25207] plm:rsh: Warning: setpgid(25217,25217) failed in "
				   "parent with errno=Permission denied\n";
	struct strbuf sb = STRBUF_INIT;
	struct err e = ERR_INIT;
	json_t *j;

	(void)state;
	strbuf_addstr(&sb, diag);
	fixture_read("nccl-tests", "all_reduce_4x_dgx_a100_32gpu_slurm_1M_4G_footer.txt", &sb);
	j = parse_text("nccl-tests", sb.buf, sb.len);
	assert_jsize_at(j, "rows", 13);
	assert_jstr_at(j, "warnings/0", "[dgx01:25207] plm:rsh: Warning: setpgid(25217,25217) failed "
		       "in parent with errno=Permission denied");
	json_decref(j);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "[dgx01] not a launcher line\n");
	fixture_read("nccl-tests", "all_reduce_4x_dgx_a100_32gpu_slurm_1M_4G_footer.txt", &sb);
	j = NULL;
	assert_int_not_equal(parse_nccl_tests(sb.buf, sb.len, &j, &e), 0);
	assert_non_null(strstr(err_msg(&e), "line 1: not a result row"));
	json_decref(j);
	err_clear(&e);
	strbuf_release(&sb);
}

static void test_nccl_other_samples(void **state)
{
	json_t *j = parse_fixture("nccl-tests", "all_reduce_4x_dgx_a100_32gpu_slurm_1M_4G_footer.txt");

	(void)state;
	assert_jnum_at(j, "avg_bus_bandwidth", 113.289);
	assert_jsize_at(j, "rows", 13);
	assert_jint_at(j, "rows/12/out_of_place/time_us", 43557);
	assert_jnum_at(j, "rows/12/in_place/busbw", 191.56);
	assert_null(jpath(j, "devices"));
	json_decref(j);
	j = parse_fixture("nccl-tests", "all_reduce_single_node_8x_v100_nvlink_old_format_footer.txt");
	assert_jnum_at(j, "avg_bus_bandwidth", 25.9598);
	assert_jsize_at(j, "devices", 8);
	assert_jnum_at(j, "rows/24/out_of_place/busbw", 129.14);
	json_decref(j);
	expect_error("nccl-tests", "malformed_line5_row_without_in_place.txt",
		     "nccl-tests: line 5: not a result row");
}

/* Horovod on 2 GPUs: header, elided steps, one line per rank per step. */
static void test_tf_cnn_horovod(void **state)
{
	json_t *j = parse_fixture("tf_cnn_benchmarks", "tf_cnn_benchmarks_resnet101_horovod_2gpu_mpijob_elided.txt");

	(void)state;
	assert_jstr_at(j, "model", "resnet101");
	assert_jint_at(j, "batch_size", 128);
	assert_jint_at(j, "batch_per_device", 64);
	assert_jint_at(j, "num_gpus", 2);
	assert_jstr_at(j, "header/variables", "horovod");
	assert_jsize_at(j, "steps", 14);
	assert_jint_at(j, "steps/0/step", 40);
	assert_jnum_at(j, "steps/1/jitter", 4.1);
	assert_jnum_at(j, "steps/13/loss", 8.542);
	assert_jnum_at(j, "total_images_per_sec", 308.27);
	json_decref(j);
}

static void test_tf_cnn_single_gpu_tabs_and_spaces(void **state)
{
	json_t *j = parse_fixture("tf_cnn_benchmarks", "tf_cnn_benchmarks_resnet50_1gpu_synthetic_2017.txt");

	(void)state;
	assert_jsize_at(j, "steps", 11);
	assert_jnum_at(j, "steps/10/images_per_sec", 139.2);
	assert_jnum_at(j, "total_images_per_sec", 138.95);
	assert_null(jpath(j, "model")); /* this capture starts at the steps */
	json_decref(j);
	j = parse_fixture("tf_cnn_benchmarks", "tf_cnn_benchmarks_resnet50_1gpu_ps_spaces_2021.txt");
	assert_jsize_at(j, "steps", 11);
	assert_jnum_at(j, "steps/1/stddev", 2.3);
	assert_jnum_at(j, "steps/1/jitter", 7.3);
	assert_jnum_at(j, "total_images_per_sec", 133.81);
	json_decref(j);
	expect_error("tf_cnn_benchmarks", "malformed_line3_step_without_numbers.txt",
		     "tf_cnn_benchmarks: line 3: bad step row");
}

/* Two DGX-1 nodes, 16 V100, FP32 (DLPerf's NGC 20.03 log of node 0): the
 * shell trace, model config, two bare debug numbers, eight libibverbs
 * warnings, then 12 iterations; the figure is the mean of the last 6. */
static void test_dle_2x8_v100(void **state)
{
	json_t *j = parse_fixture("dle-resnet50", "pytorch_rn50_2x8_v100_dllogger_train_total_ips_libibverbs_warnings.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jsize_at(j, "iterations", 12);
	assert_jint_at(j, "iterations/0/iteration", 1);
	assert_jnum_at(j, "iterations/0/train.total_ips", 267.44);
	assert_jnum_at(j, "iterations/11/train.loss", 6.67351);
	assert_jint_at(j, "warmup_iterations", 6);
	/* (10879.48 + 10044.52 + 10547.30 + 10007.33 + 9872.60 + 10393.54) / 6 */
	assert_jnum_at(j, "images_per_sec", 10290.795);
	assert_jint_at(j, "parameters/world_size", 16);
	assert_jint_at(j, "parameters/batch_size", 128);
	assert_jstr_at(j, "parameters/arch", "resnet50");
	assert_jstr_at(j, "parameters/pretrained_weights", "");
	assert_jstr_at(j, "parameters/amp", "False");
	/* 8 libibverbs lines and the two bare numbers: kept, not used */
	assert_jsize_at(j, "warnings", 10);
	assert_jstr_at(j, "warnings/0", "98");
	assert_jstr_at(j, "warnings/2", "libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0");
	json_decref(j);
}

/* The tool's own failures: a traceback (its exception line is the error,
 * the iterations before it stay), the shell's "command not found". */
static void test_dle_failures(void **state)
{
	json_t *j = parse_fixture("dle-resnet50", "derived_traceback_cuda_error_after_iteration_3.txt");
	struct err e = ERR_INIT;
	const char *nf = "bash: multiproc.py: command not found\n";

	(void)state;
	assert_jbool_at(j, "ok", 0);
	assert_jstr_at(j, "error", "RuntimeError: CUDA error: an illegal memory access was encountered");
	assert_jsize_at(j, "iterations", 3);
	json_decref(j);
	j = NULL;
	assert_int_equal(parse_dle_resnet50(nf, strlen(nf), &j, &e), 0);
	assert_jbool_at(j, "ok", 0);
	assert_jstr_at(j, "error", "bash: multiproc.py: command not found");
	assert_null(jpath(j, "images_per_sec"));
	json_decref(j);
	expect_error("dle-resnet50", "malformed_line23_pair_without_colon.txt",
		     "dle-resnet50: line 23: not a DLLogger line");
	/* Nothing to measure is an error, not a figure of zero. */
	j = NULL;
	assert_int_equal(parse_dle_resnet50("RUNNING EPOCHS FROM 0 TO 1\n", 27, &j, &e), ERR_PARSE);
	assert_string_equal(err_msg(&e), "dle-resnet50: no train.total_ips (no iteration, no summary)");
	err_clear(&e);
}

/* Issue 26: the nccl-tests version line keeps NCCL's version (NCCL_VERSION_
 * CODE 22907 = 2.29.7); a run that fails before its table names
 * nccl-tests' own failure line; a bare NCCL log is still no nccl-tests
 * output. */
static void test_nccl_tests_version_line_and_failure(void **state)
{
	json_t *j = parse_fixture("nccl-tests", "all_reduce_2_ranks_rtx5090_socket_version_line_2_18_0.txt");

	(void)state;
	assert_jstr_at(j, "nccl_tests_version", "2.18.0");
	assert_jstr_at(j, "nccl_version", "2.29.7");
	assert_jstr_at(j, "nccl_library_version", "2.29.7");
	assert_jsize_at(j, "rows", 25);
	json_decref(j);
	j = parse_fixture("nccl-tests", "failure_duplicate_gpu_test_nccl_failure_invalid_usage.txt");
	assert_tool_failure(j, "Test NCCL failure common.cu:210 'invalid usage'");
	assert_null(jpath(j, "format"));
	json_decref(j);
	expect_error("nccl-tests", "../nccl-debug/nccl_2_27_5_roce_8_hcas_gid_index_3_gdrdma_ofi_plugin_fallback_excerpt.txt",
		     "nccl-tests: no result rows");
}

static long long transport_count(json_t *o, const char *kind)
{
	return json_integer_value(json_object_get(json_object_get(o, "transports"), kind));
}

/* Issue 26: a NCCL_DEBUG=INFO log without a results table parses (nccl-
 * debug): network, IB devices, transports; NCCL 2.x's bare "3 -> 0 via
 * NET/IB/3/GDRDMA" path and "IB Ports :" lines (Dell EMC's DGX-1 log); GDR
 * per GPU/HCA and per network peer; a WARN that reports an error fails. */
static void test_nccl_debug(void **state)
{
	json_t *j = parse_fixture("nccl-debug", "nccl_2_x_dgx1_ib_ports_bare_gdr_line_dell_isilon_reconstructed.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_int_equal(transport_count(j, "NET/IB/GDRDMA"), 1);
	assert_int_equal(transport_count(j, "P2P/IPC"), 1);
	assert_jstr_at(j, "hosts/DGX1-1/net_peers/0/from", "3");
	assert_jstr_at(j, "hosts/DGX1-1/net_peers/0/to", "0");
	assert_jbool_at(j, "hosts/DGX1-1/net_peers/0/gdr", 1);
	assert_jsize_at(j, "ib_ports/1", 4);
	assert_jstr_at(j, "ib_ports/0/3/port", "mlx5_0/1");
	assert_jstr_at(j, "ib_ports/0/3/path", "PIX");
	json_decref(j);

	/* healthy RoCE with GDRDMA, no table */
	j = parse_fixture("nccl-debug", "nccl_2_27_5_roce_8_hcas_gid_index_3_gdrdma_ofi_plugin_fallback_excerpt.txt");
	assert_jbool_at(j, "ok", 1);
	assert_jstr_at(j, "network", "IB");
	assert_jsize_at(j, "ib_devices", 8);
	assert_int_equal(transport_count(j, "NET/IB/GDRDMA"), 20);
	assert_jbool_at(j, "hosts/tpgds-aihub0008/net_peers/0/gdr", 1);
	json_decref(j);

	/* GDR refused per GPU: PCI distance */
	j = parse_fixture("nccl-debug", "nccl_2_4_ib_gdr_disabled_distance_via_net_ib_0_no_gdrdma_excerpt.txt");
	assert_jbool_at(j, "hosts/master_node/gdr/0/enabled", 0);
	assert_jstr_at(j, "hosts/master_node/gdr/0/gpu", "2");
	assert_jstr_at(j, "hosts/master_node/gdr/0/why", "distance 3 >= 2");
	assert_jbool_at(j, "hosts/master_node/net_peers/0/gdr", 0);
	json_decref(j);

	/* no IB device: NCCL's own words */
	j = parse_fixture("nccl-debug", "nccl_aws_no_ib_device_socket_ring_via_net_socket_excerpt.txt");
	assert_jstr_at(j, "ib_error", "NET/IB : No device found.");
	assert_jsize_at(j, "ib_devices", 0);
	json_decref(j);

	/* the run's failure */
	j = parse_fixture("nccl-debug", "nccl_ib_gdr_completion_error_5_vendor_err_249_hang_excerpt.txt");
	assert_jbool_at(j, "ok", 0);
	assert_non_null(strstr(json_string_value(json_object_get(j, "error")), "Got completion from peer"));
	json_decref(j);

	expect_error_text("nccl-debug", "Loading model\nepoch 1\n", 21,
			  "nccl-debug: not nccl-debug output");
}

/* Issue 26: Horovod's synthetic benchmark ("Total img/sec on N GPU(s)"),
 * TF2 and PyTorch alike, also under mpirun --tag-output; other benchmarks'
 * output is not its own. */
static void test_horovod_synthetic(void **state)
{
	json_t *j = parse_fixture("horovod-synthetic", "tf2_synthetic_resnet50_8gpu_p100_elided.txt");

	(void)state;
	assert_jstr_at(j, "model", "ResNet50");
	assert_jint_at(j, "batch_size", 32);
	assert_jint_at(j, "num_devices", 8);
	assert_jsize_at(j, "iterations", 10);
	assert_jnum_at(j, "iterations/9/images_per_sec", 177.8);
	assert_jnum_at(j, "images_per_sec_per_device", 174.9);
	assert_jint_at(j, "total_devices", 8);
	assert_jnum_at(j, "total_images_per_sec", 1399.1);
	assert_jnum_at(j, "total_conf", 29.3);
	json_decref(j);
	j = parse_fixture("horovod-synthetic", "tf2_synthetic_resnet50_8gpu_mpirun_tag_output_elided.txt");
	assert_jnum_at(j, "total_images_per_sec", 4800.1);
	assert_jsize_at(j, "iterations", 10);
	json_decref(j);
	j = parse_fixture("horovod-synthetic", "pytorch_synthetic_resnet50_4gpu_issue_712.txt");
	assert_jstr_at(j, "model", "resnet50");
	assert_jnum_at(j, "total_images_per_sec", 432.8);
	assert_jint_at(j, "total_devices", 4);
	json_decref(j);
	expect_error("horovod-synthetic", "../tf_cnn_benchmarks/tf_cnn_benchmarks_resnet50_1gpu_synthetic_2017.txt",
		     "horovod-synthetic: line 1: not a Horovod synthetic benchmark line");
	expect_error_text("horovod-synthetic", "Model: ResNet50\n", 16,
			  "horovod-synthetic: not horovod-synthetic output");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nccl_tests_version_line_and_failure),
		cmocka_unit_test(test_nccl_debug),
		cmocka_unit_test(test_horovod_synthetic),
		cmocka_unit_test(test_nccl_dgx1_openshift_old_layout),
		cmocka_unit_test(test_nccl_h100_new_layout),
		cmocka_unit_test(test_nccl_debug_info_indented),
		cmocka_unit_test(test_nccl_debug_info_ib_gdrdma),
		cmocka_unit_test(test_nccl_mpirun_diagnostic_is_a_warning),
		cmocka_unit_test(test_nccl_other_samples),
		cmocka_unit_test(test_tf_cnn_horovod),
		cmocka_unit_test(test_tf_cnn_single_gpu_tabs_and_spaces),
		cmocka_unit_test(test_dle_2x8_v100),
		cmocka_unit_test(test_dle_failures),
	};
	return cmocka_run_group_tests_name("parse-bench", tests, NULL, NULL);
}

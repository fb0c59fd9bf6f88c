/* engine/facts/parse-nvidia.c on real nvidia-smi, nvidia-smi -q and
 * nvidia-smi topo -m samples (tests/fixtures/tools/, see SOURCES.md). */
#include "parse-fixture.h"

#include <malloc.h>

static void test_smi_table_h100(void **state)
{
	json_t *j = parse_fixture("nvidia-smi", "h100_8x_550_healthy.txt");

	(void)state;
	assert_jstr_at(j, "timestamp", "Mon Jan 20 10:18:26 2025");
	assert_jstr_at(j, "driver_version", "550.90.07");
	assert_jstr_at(j, "cuda_version", "12.4");
	assert_jsize_at(j, "gpus", 8);
	assert_jint_at(j, "gpus/3/index", 3);
	assert_jstr_at(j, "gpus/3/name", "NVIDIA H100 80GB HBM3");
	assert_jstr_at(j, "gpus/3/bus_id", "00000000:5D:00.0");
	assert_jstr_at(j, "gpus/3/persistence_mode", "On");
	assert_jint_at(j, "gpus/3/temperature_c", 23);
	assert_jint_at(j, "gpus/3/power_draw_w", 72);
	assert_jint_at(j, "gpus/3/power_cap_w", 700);
	assert_jint_at(j, "gpus/3/memory_used_mib", 1);
	assert_jint_at(j, "gpus/3/memory_total_mib", 81559);
	assert_jint_at(j, "gpus/3/utilization_percent", 0);
	assert_jint_at(j, "gpus/3/ecc_uncorrected", 0);
	assert_jstr_at(j, "gpus/3/fan", "N/A");
	assert_jstr_at(j, "gpus/3/mig_mode", "Disabled");
	assert_jstr_at(j, "gpus/7/bus_id", "00000000:DB:00.0");
	assert_jsize_at(j, "processes", 0);
	json_decref(j);
	expect_error("nvidia-smi", "malformed_line9_gpu_row_two_cells.txt",
		     "nvidia-smi: line 9: expected a 3-column GPU row");
}

/* Narrow pre-530 table: a fan of "27%" must not look like a GPU index, and
 * processes may have no name. */
static void test_smi_table_510_blank_process_names(void **state)
{
	json_t *j = parse_fixture("nvidia-smi", "geforce_2x_510_processes_without_names.txt");

	(void)state;
	assert_jstr_at(j, "driver_version", "510.54");
	assert_jsize_at(j, "gpus", 2);
	assert_jstr_at(j, "gpus/0/fan", "27%");
	assert_jint_at(j, "gpus/0/power_cap_w", 180);
	assert_jstr_at(j, "gpus/1/bus_id", "00000000:41:00.0");
	assert_jint_at(j, "gpus/1/memory_used_mib", 586);
	assert_jint_at(j, "gpus/1/memory_total_mib", 11264);
	assert_jstr_at(j, "gpus/1/ecc_uncorrected", "N/A");
	assert_jsize_at(j, "processes", 6);
	assert_jint_at(j, "processes/3/gpu", 1);
	assert_jint_at(j, "processes/3/pid", 166699);
	assert_jstr_at(j, "processes/3/type", "G");
	assert_jstr_at(j, "processes/3/process_name", "");
	assert_jint_at(j, "processes/3/memory_mib", 448);
	json_decref(j);
}

/* ERR! and N/A where numbers belong stay strings; names keep their dots. */
static void test_smi_table_err_values(void **state)
{
	json_t *j = parse_fixture("nvidia-smi", "geforce_525_fan_err_exclusive_process_mode.txt");

	(void)state;
	assert_jstr_at(j, "gpus/0/fan", "ERR!");
	/* issue 26: a field NVML could not read is a warning */
	assert_jsize_at(j, "warnings", 1);
	assert_jstr_at(j, "warnings/0", "GPU 0: fan is ERR! (NVML could not read it)");
	assert_jint_at(j, "gpus/0/temperature_c", 38);
	assert_jstr_at(j, "gpus/0/name", "NVIDIA GeForce ...");
	assert_jstr_at(j, "gpus/0/compute_mode", "E. Process");
	assert_jint_at(j, "gpus/0/memory_used_mib", 2021);
	assert_null(jpath(j, "processes"));
	json_decref(j);
	j = parse_fixture("nvidia-smi", "gtx1050ti_535_power_na_err_two_processes.txt");
	assert_jstr_at(j, "timestamp", "Fri Dec 15 20:10:59 2023");
	assert_jstr_at(j, "gpus/0/power_draw_w", "N/A");
	assert_jstr_at(j, "gpus/0/power_cap_w", "ERR!");
	assert_jstr_at(j, "warnings/0", "GPU 0: power_cap_w is ERR! (NVML could not read it)");
	assert_jstr_at(j, "processes/1/process_name", "...libexec/gnome-remote-desktop-daemon");
	assert_jint_at(j, "processes/1/pid", 2515);
	assert_jint_at(j, "processes/1/memory_mib", 1);
	json_decref(j);
}

/* Driver 535 says "Clocks Event Reasons"; HW Power Brake is active on all 8. */
static void test_smi_q_h100_power_brake(void **state)
{
	json_t *j = parse_fixture("nvidia-smi-q", "h100_8x_535_hw_slowdown_active_degraded.txt");
	json_t *gpu;
	size_t i;

	(void)state;
	assert_jstr_at(j, "driver_version", "535.161.08");
	assert_jstr_at(j, "cuda_version", "12.2");
	assert_jint_at(j, "attached_gpus", 8);
	assert_jsize_at(j, "gpus", 8);
	assert_jstr_at(j, "gpus/0/id", "00000000:19:00.0");
	assert_jstr_at(j, "gpus/0/product_name", "NVIDIA H100 80GB HBM3");
	assert_jstr_at(j, "gpus/0/serial", "1650124031592");
	assert_jstr_at(j, "gpus/0/uuid", "GPU-ee7954ec-da95-fd7a-ddfd-c6b32cc2f8aa");
	assert_jstr_at(j, "gpus/0/bus_id", "00000000:19:00.0");
	assert_jint_at(j, "gpus/0/pcie/gen_max", 5);
	assert_jint_at(j, "gpus/0/pcie/gen_current", 5);
	assert_jint_at(j, "gpus/0/pcie/width_max", 16);
	assert_jint_at(j, "gpus/0/pcie/width_current", 16);
	assert_jint_at(j, "gpus/0/remapped_rows/correctable", 0);
	assert_jbool_at(j, "gpus/0/remapped_rows/pending", 0);
	assert_jbool_at(j, "gpus/0/remapped_rows/failure_occurred", 0);
	json_array_foreach(json_object_get(j, "gpus"), i, gpu) {
		assert_jbool_at(gpu, "clocks_event_reasons/hw_power_brake_slowdown", 1);
		assert_jbool_at(gpu, "clocks_event_reasons/hw_slowdown", 1);
		assert_jbool_at(gpu, "clocks_event_reasons/hw_thermal_slowdown", 0);
		assert_jbool_at(gpu, "clocks_event_reasons/sw_power_cap", 0);
	}
	assert_jstr_at(j, "gpus/0/clocks_event_reasons_active/1", "hw_power_brake_slowdown");
	assert_jstr_at(j, "gpus/7/serial", "1650124007084");
	assert_null(json_object_get(j, "warnings"));
	json_decref(j);
}

/*
 * The same capture cut before its eighth GPU (a GPU lost mid-listing, or a
 * cut output): seven GPUs, and a warning that says eight were attached,
 * not a quiet seven.
 */
static void test_smi_q_fewer_gpu_sections_than_attached(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const char *eighth;
	json_t *j;

	(void)state;
	fixture_read("nvidia-smi-q", "h100_8x_535_hw_slowdown_active_degraded.txt", &sb);
	eighth = sb.buf;
	for (int i = 0; i < 8; i++) {
		eighth = strstr(eighth + 1, "\nGPU 00000000:");
		assert_non_null(eighth);
	}
	j = parse_text("nvidia-smi-q", sb.buf, (size_t)(eighth - sb.buf + 1));
	assert_jbool_at(j, "ok", 1);
	assert_jint_at(j, "attached_gpus", 8);
	assert_jsize_at(j, "gpus", 7);
	assert_jsize_at(j, "warnings", 1);
	assert_jstr_at(j, "warnings/0", "Attached GPUs is 8 but 7 GPU sections follow: a GPU lost "
		       "while listing, or the output cut (or -i)");
	json_decref(j);
	strbuf_release(&sb);
}

/* Driver 460 says "Clocks Throttle Reasons": same keys come out. */
static void test_smi_q_a100_old_throttle_name(void **state)
{
	json_t *j = parse_fixture("nvidia-smi-q", "a100_sxm4_8x_460_healthy_full.txt");

	(void)state;
	assert_jstr_at(j, "driver_version", "460.32.03");
	assert_jsize_at(j, "gpus", 8);
	assert_jstr_at(j, "gpus/0/product_name", "A100-SXM4-40GB");
	assert_jstr_at(j, "gpus/0/serial", "1323120035212");
	assert_jstr_at(j, "gpus/0/uuid", "GPU-b01e9f90-c60c-4ad1-2052-154833662357");
	assert_jbool_at(j, "gpus/0/clocks_event_reasons/idle", 1);
	assert_jbool_at(j, "gpus/0/clocks_event_reasons/hw_power_brake_slowdown", 0);
	assert_jsize_at(j, "gpus/0/clocks_event_reasons", 9);
	assert_jint_at(j, "gpus/0/pcie/gen_max", 4);
	assert_jint_at(j, "gpus/0/remapped_rows/uncorrectable", 0);
	assert_jstr_at(j, "gpus/4/id", "0000000B:00:00.0");
	json_decref(j);
	expect_error("nvidia-smi-q", "malformed_line11_three_space_indent.txt",
		     "nvidia-smi-q: line 11: unexpected indentation");
}

/*
 * Found by fuzzing: a top-level "key : value" after a GPU section dropped the
 * section names without freeing them. Heap in use must not grow per parse
 * (mallinfo2 counts in a plain build; LeakSanitizer sees it under ASan).
 */
static void test_smi_q_top_field_after_gpu_frees_path(void **state)
{
	static const char buf[] = "GPU 0\n    Product Name : X\n"
				  "    PCI\n        Bus : 1\nDriver Version : 1\n";
	struct mallinfo2 before, after;

	(void)state;
	for (int round = 0; round < 2; round++) {
		before = mallinfo2();
		for (int i = 0; i < 1000; i++) {
			struct err e = ERR_INIT;
			json_t *j = NULL;

			assert_int_equal(parse_nvidia_smi_q(buf, sizeof(buf) - 1, &j, &e), 0);
			assert_string_equal(json_string_value(json_object_get(j,
					    "driver_version")), "1");
			json_decref(j);
		}
		after = mallinfo2();
	}
	/* 1000 parses that each leaked "GPU 0" and "PCI" grew it by ~64 kB */
	assert_true(after.uordblks <= before.uordblks + 4096);
}

static void check_topo_a100(json_t *j)
{
	assert_jsize_at(j, "devices", 18);
	assert_jstr_at(j, "devices/0/name", "GPU0");
	assert_jstr_at(j, "devices/0/links/GPU1", "NV12");
	assert_jstr_at(j, "devices/0/links/NIC0", "PXB");
	assert_jstr_at(j, "devices/0/links/NIC2", "SYS");
	assert_null(jpath(j, "devices/0/links/GPU0"));
	assert_jstr_at(j, "devices/0/cpu_affinity", "48-63,176-191");
	assert_jint_at(j, "devices/0/numa_affinity", 3);
	assert_jstr_at(j, "devices/4/cpu_affinity", "112-127,240-255");
	assert_jstr_at(j, "devices/17/name", "NIC9");
	assert_jstr_at(j, "devices/17/nic_name", "mlx5_9");
	assert_jstr_at(j, "devices/17/links/NIC8", "PIX");
	assert_null(jpath(j, "devices/17/cpu_affinity"));
	assert_jstr_at(j, "nics/NIC0", "mlx5_0");
	assert_jstr_at(j, "legend/PIX", "Connection traversing at most a single PCIe bridge");
}

static void test_topo_a100_tabs_and_spaces(void **state)
{
	struct strbuf raw = STRBUF_INIT, spaced = STRBUF_INIT;
	json_t *j = parse_fixture("nvidia-smi-topo", "topo_m_8x_a100_nv12_10_nics_pxb.txt");

	(void)state;
	check_topo_a100(j);
	json_decref(j);
	fixture_read("nvidia-smi-topo", "topo_m_8x_a100_nv12_10_nics_pxb.txt", &raw);
	expand_tabs(&raw, &spaced);
	assert_null(memchr(spaced.buf, '\t', spaced.len));
	j = parse_text("nvidia-smi-topo", spaced.buf, spaced.len);
	check_topo_a100(j);
	json_decref(j);
	strbuf_release(&raw);
	strbuf_release(&spaced);
	expect_error("nvidia-smi-topo", "malformed_line3_row_cut_short.txt",
		     "nvidia-smi-topo: line 3: row does not have one cell per column");
	expect_error("nvidia-smi-topo", "../lsmod/lsmod_grep_nvidia_peermem_loaded_rhel7.txt",
		     "nvidia-smi-topo: line 1: expected the device header with CPU Affinity");
}

/* Drivers before 5xx print the narrow 79-column table: names cut with
 * "...", two rows per GPU, "Processes: ... GPU Memory" on one line. */
static void test_smi_table_narrow_pre_5xx(void **state)
{
	json_t *j = parse_fixture("nvidia-smi", "v100_sxm2_32gb_8x_410_104_dgx1_busy_7_processes.txt");

	(void)state;
	assert_jstr_at(j, "driver_version", "410.104");
	assert_jsize_at(j, "gpus", 8);
	assert_jstr_at(j, "gpus/7/name", "Tesla V100-SXM2...");
	assert_jstr_at(j, "gpus/7/bus_id", "00000000:8A:00.0");
	assert_jint_at(j, "gpus/7/memory_total_mib", 32480);
	assert_jint_at(j, "processes/0/pid", 51918);
	assert_jstr_at(j, "processes/0/process_name", "cdva");
	assert_jint_at(j, "processes/0/memory_mib", 26729);
	assert_true(json_is_true(jpath(j, "ok")));
	json_decref(j);
	j = parse_fixture("nvidia-smi", "p100_pcie_2x_384_90_narrow_table_busy_processes.txt");
	assert_jsize_at(j, "gpus", 2);
	assert_jint_at(j, "gpus/0/utilization_percent", 94);
	assert_jsize_at(j, "processes", 6);
	json_decref(j);
	j = parse_fixture("nvidia-smi", "v100_sxm2_32gb_8x_384_183_dgx1_gpu0_100pct_no_processes_visible.txt");
	assert_jsize_at(j, "gpus", 8);
	assert_jsize_at(j, "processes", 0);
	json_decref(j);
}

/* A trailing infoROM warning (gpu-operator#20 quotes the line) is kept and
 * does not stop the table; NVML's failure is ok false with its words. */
static void test_smi_warning_and_failure(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	(void)state;
	fixture_read("nvidia-smi", "p100_pcie_2x_384_90_narrow_table_busy_processes.txt", &sb);
	strbuf_addstr(&sb, "WARNING: infoROM is corrupted at gpu 0000:03:00.0\n");
	j = parse_text("nvidia-smi", sb.buf, sb.len);
	assert_jsize_at(j, "gpus", 2);
	assert_jstr_at(j, "warnings/0", "WARNING: infoROM is corrupted at gpu 0000:03:00.0");
	assert_true(json_is_true(jpath(j, "ok")));
	json_decref(j);
	strbuf_release(&sb);
	fixture_read("nvidia-smi-q", "a100_sxm4_8x_460_healthy_full.txt", &sb);
	strbuf_addstr(&sb, "WARNING: infoROM is corrupted at gpu 00000000:07:00.0\n");
	j = parse_text("nvidia-smi-q", sb.buf, sb.len);
	assert_jsize_at(j, "gpus", 8);
	assert_jstr_at(j, "warnings/0", "WARNING: infoROM is corrupted at gpu 00000000:07:00.0");
	json_decref(j);
	strbuf_release(&sb);
	j = parse_fixture("nvidia-smi", "failed_to_initialize_nvml_driver_library_version_mismatch.txt");
	assert_tool_failure(j, "Failed to initialize NVML: Driver/library version mismatch");
	json_decref(j);
	j = parse_fixture("nvidia-smi", "failed_to_initialize_nvml_mismatch_with_nvml_library_version_570.txt");
	assert_tool_failure(j, "Failed to initialize NVML: Driver/library version mismatch");
	assert_jstr_at(j, "errors/1", "NVML library version: 570.124");
	assert_null(jpath(j, "timestamp"));
	json_decref(j);
	j = parse_text("nvidia-smi-q", "Failed to initialize NVML: Driver/library version mismatch\n", 59);
	assert_tool_failure(j, NULL);
	json_decref(j);
	j = parse_text("nvidia-smi-topo", "bash: nvidia-smi: command not found\n", 36);
	assert_tool_failure(j, NULL);
	json_decref(j);
}

/* topo -m with the GPU NUMA ID column (R535+) and without (DGX-1, old
 * legend, NIC rows with only their link cells). */
static void test_topo_numa_id_and_old_legend(void **state)
{
	json_t *j = parse_fixture("nvidia-smi-topo", "topo_m_8x_h100_nv18_9_nics_gpu_numa_id_spaces_excerpt.txt");

	(void)state;
	assert_jsize_at(j, "devices", 6);
	assert_jstr_at(j, "devices/3/links/NIC4", "PIX");
	assert_jstr_at(j, "devices/3/cpu_affinity", "24-47,120-143");
	assert_jint_at(j, "devices/3/numa_affinity", 1);
	assert_jstr_at(j, "devices/3/gpu_numa_id", "N/A");
	json_decref(j);
	j = parse_fixture("nvidia-smi-topo", "topo_m_dgx1_v100_8gpu_4x_mlx5_nv1_nv2_old_legend_tabs.txt");
	assert_jsize_at(j, "devices", 12);
	assert_jstr_at(j, "devices/0/links/GPU3", "NV2");
	assert_jstr_at(j, "devices/0/links/mlx5_1", "PHB");
	assert_jstr_at(j, "devices/4/cpu_affinity", "20-39,60-79");
	assert_jstr_at(j, "devices/8/name", "mlx5_0");
	assert_jstr_at(j, "devices/8/links/GPU0", "PIX");
	assert_null(jpath(j, "devices/8/cpu_affinity"));
	json_decref(j);
}

/* A GPU row one cell short, or one too long (a wrapped or pasted line),
 * is an error on that line, never cells under the wrong columns. */
static void test_topo_wrong_shape_rows(void **state)
{
	struct strbuf sb = STRBUF_INIT, bad = STRBUF_INIT;
	char *nl;

	(void)state;
	fixture_read("nvidia-smi-topo", "topo_m_dgx1_v100_8gpu_4x_mlx5_nv1_nv2_old_legend_tabs.txt", &sb);
	/* GPU2's row without its CPU affinity */
	nl = strstr(sb.buf, "\t0-19,40-59\nGPU3");
	strbuf_add(&bad, sb.buf, nl - sb.buf);
	strbuf_addstr(&bad, nl + strlen("\t0-19,40-59"));
	expect_error_text("nvidia-smi-topo", bad.buf, bad.len, "line 4: row does not have one cell per column");
	strbuf_reset(&bad);
	/* mlx5_0's row with one cell too many */
	nl = strstr(sb.buf, "\nmlx5_2");
	strbuf_add(&bad, sb.buf, nl - sb.buf);
	strbuf_addstr(&bad, "\tSYS");
	strbuf_addstr(&bad, nl);
	expect_error_text("nvidia-smi-topo", bad.buf, bad.len, "line 10:");
	strbuf_release(&bad);
	strbuf_release(&sb);
}

/* Newer banners: R580 rules the banner off with "+---+", R610 names the
 * driver "KMD Version" and CUDA "CUDA UMD Version". */
static void test_smi_table_580_and_610_banners(void **state)
{
	json_t *j = parse_fixture("nvidia-smi", "t4_580_126_plus_rule_under_banner_gpu_table_excerpt.txt");

	(void)state;
	assert_jstr_at(j, "timestamp", "Mon Mar  2 23:57:58 2026");
	assert_jstr_at(j, "driver_version", "580.126.09");
	assert_jstr_at(j, "cuda_version", "13.0");
	assert_jsize_at(j, "gpus", 1);
	assert_jstr_at(j, "gpus/0/name", "Tesla T4");
	assert_jstr_at(j, "gpus/0/bus_id", "00000000:00:1E.0");
	assert_jint_at(j, "gpus/0/ecc_uncorrected", 0);
	assert_jint_at(j, "gpus/0/power_draw_w", 9);
	assert_jint_at(j, "gpus/0/power_cap_w", 70);
	assert_jint_at(j, "gpus/0/memory_total_mib", 15360);
	assert_jstr_at(j, "gpus/0/mig_mode", "N/A");
	json_decref(j);

	j = parse_fixture("nvidia-smi", "r610_kmd_umd_banner_rtx3080_gpu_table_excerpt.txt");
	assert_jbool_at(j, "ok", 1);
	assert_jstr_at(j, "timestamp", "Mon Jul 20 06:15:02 2026");
	assert_jstr_at(j, "smi_version", "610.43.03");
	assert_jstr_at(j, "driver_version", "610.43.03");
	assert_jstr_at(j, "cuda_version", "13.3");
	assert_jstr_at(j, "gpus/0/name", "NVIDIA GeForce RTX 3080 ...");
	assert_jint_at(j, "gpus/0/power_draw_w", 751);
	assert_jint_at(j, "gpus/0/power_cap_w", 80);
	assert_jint_at(j, "gpus/0/memory_used_mib", 14);
	assert_jint_at(j, "gpus/0/memory_total_mib", 16384);
	assert_jint_at(j, "gpus/0/utilization_percent", 6);
	json_decref(j);
}

/* GPUs on the host's memory print "Not Supported" for Memory-Usage (GB10)
 * and N/A nearly everywhere (Jetson): kept as strings, not an error. */
static void test_smi_table_memory_not_supported(void **state)
{
	json_t *j = parse_fixture("nvidia-smi", "gb10_580_126_memory_not_supported.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_null(jpath(j, "timestamp"));
	assert_jstr_at(j, "gpus/0/name", "NVIDIA GB10");
	assert_jstr_at(j, "gpus/0/bus_id", "0000000F:01:00.0");
	assert_jint_at(j, "gpus/0/temperature_c", 36);
	assert_jint_at(j, "gpus/0/power_draw_w", 3);
	assert_jstr_at(j, "gpus/0/power_cap_w", "N/A");
	assert_jstr_at(j, "gpus/0/memory_used_mib", "Not Supported");
	assert_jstr_at(j, "gpus/0/memory_total_mib", "Not Supported");
	assert_jint_at(j, "gpus/0/utilization_percent", 0);
	assert_jstr_at(j, "gpus/0/compute_mode", "Default");
	json_decref(j);

	j = parse_fixture("nvidia-smi", "jetson_orin_540_all_na_gpu_table_excerpt.txt");
	assert_jstr_at(j, "driver_version", "540.4.0");
	assert_jstr_at(j, "cuda_version", "N/A");
	assert_jstr_at(j, "gpus/0/name", "Orin (nvgpu)");
	assert_jstr_at(j, "gpus/0/persistence_mode", "N/A");
	assert_jstr_at(j, "gpus/0/bus_id", "N/A");
	assert_jstr_at(j, "gpus/0/temperature_c", "N/A");
	assert_jstr_at(j, "gpus/0/performance_state", "N/A");
	assert_jstr_at(j, "gpus/0/memory_used_mib", "Not Supported");
	assert_jstr_at(j, "gpus/0/utilization_percent", "N/A");
	json_decref(j);
}

/* R470's narrow table with the MIG M. row; R410.48 printed no CUDA
 * version at all. */
static void test_smi_table_470_and_410_48(void **state)
{
	json_t *j = parse_fixture("nvidia-smi", "a10g_470_256_narrow_mig_row_gpu_table_excerpt.txt");

	(void)state;
	assert_jstr_at(j, "driver_version", "470.256.02");
	assert_jstr_at(j, "cuda_version", "11.4");
	assert_jstr_at(j, "gpus/0/name", "NVIDIA A10G");
	assert_jstr_at(j, "gpus/0/persistence_mode", "On");
	assert_jstr_at(j, "gpus/0/fan", "0%");
	assert_jint_at(j, "gpus/0/temperature_c", 25);
	assert_jint_at(j, "gpus/0/memory_total_mib", 22731);
	assert_jstr_at(j, "gpus/0/mig_mode", "N/A");
	json_decref(j);

	j = parse_fixture("nvidia-smi", "v100_dgxs_410_48_no_cuda_version_gpu_table_excerpt.txt");
	assert_jstr_at(j, "driver_version", "410.48");
	assert_null(jpath(j, "cuda_version"));
	assert_jstr_at(j, "gpus/0/name", "Tesla V100-DGXS...");
	assert_jstr_at(j, "gpus/0/bus_id", "00000000:82:00.0");
	assert_jint_at(j, "gpus/0/memory_used_mib", 449);
	assert_jint_at(j, "gpus/0/memory_total_mib", 32478);
	assert_null(jpath(j, "gpus/0/mig_mode"));
	json_decref(j);
}

/* -q: an A10 with rows pending remap (R535), a TITAN V on R560. */
static void test_smi_q_a10_remap_pending_and_560(void **state)
{
	json_t *j = parse_fixture("nvidia-smi-q", "a10_535_129_remapped_rows_pending_uncorrectable_4.txt");

	(void)state;
	assert_jstr_at(j, "driver_version", "535.129.03");
	assert_jint_at(j, "attached_gpus", 1);
	assert_jstr_at(j, "gpus/0/product_name", "NVIDIA A10");
	assert_jstr_at(j, "gpus/0/bus_id", "00000000:07:00.0");
	assert_jint_at(j, "gpus/0/remapped_rows/correctable", 0);
	assert_jint_at(j, "gpus/0/remapped_rows/uncorrectable", 4);
	assert_jbool_at(j, "gpus/0/remapped_rows/pending", 1);
	assert_jbool_at(j, "gpus/0/remapped_rows/failure_occurred", 0);
	assert_jint_at(j, "gpus/0/pcie/gen_current", 4);
	json_decref(j);

	j = parse_fixture("nvidia-smi-q", "titan_v_560_35_pcie_gen1_idle.txt");
	assert_jstr_at(j, "driver_version", "560.35.03");
	assert_jstr_at(j, "cuda_version", "12.6");
	assert_jstr_at(j, "gpus/0/product_name", "NVIDIA TITAN V");
	assert_jstr_at(j, "gpus/0/architecture", "Volta");
	assert_jint_at(j, "gpus/0/pcie/gen_max", 3);
	assert_jint_at(j, "gpus/0/pcie/gen_current", 1);
	assert_jbool_at(j, "gpus/0/clocks_event_reasons/idle", 1);
	assert_jbool_at(j, "gpus/0/clocks_event_reasons/hw_slowdown", 0);
	assert_null(jpath(j, "gpus/0/remapped_rows"));
	json_decref(j);
}

/* Two GPUs, no NICs, tab-separated, GPU NUMA ID column (R5xx). */
static void test_topo_two_gpus_tabs(void **state)
{
	json_t *j = parse_fixture("nvidia-smi-topo", "topo_m_2_gpus_phb_gpu_numa_id_tabs_no_nics.txt");

	(void)state;
	assert_jsize_at(j, "devices", 2);
	assert_jstr_at(j, "devices/0/name", "GPU0");
	assert_jstr_at(j, "devices/0/links/GPU1", "PHB");
	assert_jstr_at(j, "devices/1/links/GPU0", "PHB");
	assert_jstr_at(j, "devices/1/cpu_affinity", "0-63");
	assert_jint_at(j, "devices/1/numa_affinity", 0);
	assert_jstr_at(j, "devices/1/gpu_numa_id", "N/A");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smi_table_narrow_pre_5xx),
		cmocka_unit_test(test_smi_warning_and_failure),
		cmocka_unit_test(test_topo_numa_id_and_old_legend),
		cmocka_unit_test(test_topo_wrong_shape_rows),
		cmocka_unit_test(test_smi_table_h100),
		cmocka_unit_test(test_smi_table_580_and_610_banners),
		cmocka_unit_test(test_smi_table_memory_not_supported),
		cmocka_unit_test(test_smi_table_470_and_410_48),
		cmocka_unit_test(test_smi_q_a10_remap_pending_and_560),
		cmocka_unit_test(test_topo_two_gpus_tabs),
		cmocka_unit_test(test_smi_table_510_blank_process_names),
		cmocka_unit_test(test_smi_table_err_values),
		cmocka_unit_test(test_smi_q_h100_power_brake),
		cmocka_unit_test(test_smi_q_fewer_gpu_sections_than_attached),
		cmocka_unit_test(test_smi_q_a100_old_throttle_name),
		cmocka_unit_test(test_smi_q_top_field_after_gpu_frees_path),
		cmocka_unit_test(test_topo_a100_tabs_and_spaces),
	};
	return cmocka_run_group_tests_name("parse-nvidia", tests, NULL, NULL);
}

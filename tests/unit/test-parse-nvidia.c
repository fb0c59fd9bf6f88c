/* engine/parse-nvidia.c on real nvidia-smi, nvidia-smi -q and
 * nvidia-smi topo -m samples (tests/fixtures/tools/, see SOURCES.md). */
#include "parse-fixture.h"

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
	json_decref(j);
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
		     "nvidia-smi-topo: line 3: row has fewer cells than devices");
	expect_error("nvidia-smi-topo", "../lsmod/lsmod_grep_nvidia_peermem_loaded_rhel7.txt",
		     "nvidia-smi-topo: line 1: expected the device header with CPU Affinity");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smi_table_h100),
		cmocka_unit_test(test_smi_table_510_blank_process_names),
		cmocka_unit_test(test_smi_table_err_values),
		cmocka_unit_test(test_smi_q_h100_power_brake),
		cmocka_unit_test(test_smi_q_a100_old_throttle_name),
		cmocka_unit_test(test_topo_a100_tabs_and_spaces),
	};
	return cmocka_run_group_tests_name("parse-nvidia", tests, NULL, NULL);
}

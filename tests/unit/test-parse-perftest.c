/* engine/facts/parse-perftest.c on real ib_write_bw outputs, healthy and failed. */
#include "parse-fixture.h"

/* The DGX-1 EDR run: two info pairs per line split by tabs. */
static void test_write_bw_edr_dgx1(void **state)
{
	json_t *j = parse_fixture("perftest", "ib_write_bw_edr_dgx1_11264MBps_seed_reconstructed.txt");
	struct strbuf raw = STRBUF_INIT, spaced = STRBUF_INIT;

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jstr_at(j, "test", "RDMA_Write BW Test");
	assert_jstr_at(j, "info/dual_port", "OFF");
	assert_jstr_at(j, "info/device", "mlx5_1");
	assert_jint_at(j, "info/number_of_qps", 1);
	assert_jstr_at(j, "info/transport_type", "IB");
	assert_jstr_at(j, "info/connection_type", "RC");
	assert_jint_at(j, "info/tx_depth", 128);
	assert_jstr_at(j, "info/mtu", "4096[B]");
	assert_jstr_at(j, "info/rdma_cm_qps", "OFF");
	assert_jstr_at(j, "local/0/lid", "0x0d");
	assert_jstr_at(j, "local/0/qpn", "0x16cb");
	assert_jstr_at(j, "local/0/vaddr", "0x007fa65e670000");
	assert_jstr_at(j, "remote/0/lid", "0x12");
	assert_null(jpath(j, "local/0/gid"));
	assert_jsize_at(j, "results", 1);
	assert_jint_at(j, "results/0/bytes", 65536);
	assert_jint_at(j, "results/0/iterations", 5000);
	assert_jnum_at(j, "results/0/bw_peak", 11300.40);
	assert_jnum_at(j, "results/0/bw_average", 11264.11);
	assert_jnum_at(j, "results/0/msgrate", 0.180226);
	assert_jstr_at(j, "units/bw_average", "MB/sec");
	assert_jstr_at(j, "units/msgrate", "Mpps");
	assert_jsize_at(j, "warnings", 1);
	assert_jsize_at(j, "errors", 0);
	json_decref(j);

	/* the same sample as a web page shows it, tabs expanded */
	fixture_read("perftest", "ib_write_bw_edr_dgx1_11264MBps_seed_reconstructed.txt", &raw);
	expand_tabs(&raw, &spaced);
	j = parse_text("perftest", spaced.buf, spaced.len);
	assert_jstr_at(j, "info/device", "mlx5_1");
	assert_jstr_at(j, "info/transport_type", "IB");
	assert_jstr_at(j, "info/using_srq", "OFF");
	assert_jstr_at(j, "info/rdma_cm_qps", "OFF");
	assert_jnum_at(j, "results/0/msgrate", 0.180226);
	strbuf_release(&raw);
	strbuf_release(&spaced);
	expect_error("perftest", "malformed_line19_result_row_missing_msgrate.txt",
		     "perftest: line 19: result row does not match the columns");
	json_decref(j);
}

/* -a sweep with a CPU-frequency warning before every row. */
static void test_write_bw_hdr_sweep(void **state)
{
	json_t *j = parse_fixture("perftest", "ib_write_bw_hdr_cx6_sweep_a_23300MBps_cpufreq_warnings.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jstr_at(j, "info/device", "mlx5_0");
	assert_jstr_at(j, "info/pcie_relax_order", "ON");
	assert_jsize_at(j, "results", 23);
	assert_jint_at(j, "results/0/bytes", 2);
	assert_jnum_at(j, "results/0/bw_average", 4.94);
	assert_jint_at(j, "results/22/bytes", 8388608);
	assert_jnum_at(j, "results/22/bw_peak", 23326.82);
	assert_jnum_at(j, "results/22/bw_average", 23317.65);
	assert_jsize_at(j, "warnings", 23);
	json_decref(j);
}

/* RoCE: a GID under each address; the server prints a waiting banner. */
static void test_write_bw_soft_roce_server(void **state)
{
	json_t *j = parse_fixture("perftest", "ib_write_bw_soft_roce_rxe0_server_waiting_banner.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jstr_at(j, "info/device", "rxe0");
	assert_jstr_at(j, "info/link_type", "Ethernet");
	assert_jint_at(j, "info/gid_index", 1);
	assert_jstr_at(j, "local/0/qpn", "0x0011");
	assert_jstr_at(j, "local/0/gid", "00:00:00:00:00:00:00:00:00:00:255:255:192:168:122:205");
	assert_jstr_at(j, "remote/0/psn", "0xbfbac5");
	assert_jnum_at(j, "results/0/bw_average", 827.84);
	json_decref(j);
}

/* Three QPs over rdma_cm, --report_gbits, tabs expanded in the source. */
static void test_write_bw_bnxt_3qp_gbits(void **state)
{
	json_t *j = parse_fixture("perftest", "ib_write_bw_bnxt_re_3qp_rdma_cm_gbits_363gbps_spaces.txt");

	(void)state;
	assert_jstr_at(j, "info/device", "bnxt_re0");
	assert_jint_at(j, "info/number_of_qps", 3);
	assert_jstr_at(j, "info/transport_type", "IB");
	assert_jstr_at(j, "info/data_ex_method", "rdma_cm");
	assert_jsize_at(j, "local", 3);
	assert_jsize_at(j, "remote", 3);
	assert_jstr_at(j, "remote/2/qpn", "0x2c71");
	assert_jstr_at(j, "remote/2/gid", "00:00:00:00:00:00:00:00:00:00:255:255:10:00:00:10");
	assert_jstr_at(j, "units/bw_average", "Gb/sec");
	assert_jint_at(j, "results/0/iterations", 4159603);
	assert_jnum_at(j, "results/0/bw_average", 363.47);
	json_decref(j);
}

/*
 * No device (a pod without its RDMA device: a real capture), and a port
 * that is not up: " Port number %d state is %s" then the caller's line, as
 * perftest_parameters.c/perftest_resources.c print them (no public capture
 * found; the lines are the source's format strings filled in).
 */
static void test_no_device_and_port_down(void **state)
{
	static const char down[] = " Port number 1 state is Down\n Couldn't set the link layer\n"
				   " Couldn't get context for the device\n";
	json_t *j = parse_fixture("perftest", "ib_write_bw_did_not_detect_devices_pod.txt");

	(void)state;
	assert_tool_failure(j, "Did not detect devices");
	assert_jsize_at(j, "errors", 3);
	json_decref(j);
	j = parse_text("perftest", down, sizeof(down) - 1);
	assert_tool_failure(j, "Port number 1 state is Down");
	json_decref(j);
	/* libibverbs' and NVML's failures are not perftest's */
	expect_error_text("perftest", "Failed to get IB devices list: Function not implemented\n", 56,
			  "perftest: line 1: not a perftest line");
	expect_error_text("perftest", "Failed to initialize NVML: Driver/library version mismatch\n", 59,
			  "perftest: line 1: not a perftest line");
}

/* The tool's own failures are results with ok=false, not parse errors. */
static void test_failures(void **state)
{
	json_t *j = parse_fixture("perftest", "ib_write_bw_couldnt_allocate_mr_memlock_failure.txt");

	(void)state;
	assert_jbool_at(j, "ok", 0);
	assert_jstr_at(j, "errors/0", "Couldn't allocate MR");
	assert_jstr_at(j, "error", "Couldn't allocate MR");
	assert_jstr_at(j, "errors/3", "Couldn't create IB resources");
	assert_jsize_at(j, "results", 0);
	json_decref(j);
	j = parse_fixture("perftest", "ib_write_bw_failed_modify_qp_to_rtr_grh_required.txt");
	assert_jbool_at(j, "ok", 0);
	assert_jsize_at(j, "errors", 4);
	assert_jstr_at(j, "errors/0", "Failed to modify QP 122273 to RTR");
	assert_jstr_at(j, "errors/1", "Unable to Connect the HCA's through the link");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_bw_edr_dgx1),
		cmocka_unit_test(test_write_bw_hdr_sweep),
		cmocka_unit_test(test_write_bw_soft_roce_server),
		cmocka_unit_test(test_write_bw_bnxt_3qp_gbits),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_no_device_and_port_down),
	};
	return cmocka_run_group_tests_name("parse-perftest", tests, NULL, NULL);
}

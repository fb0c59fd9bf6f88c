/* engine/facts/parse-ib.c on real ibstat, ibstatus, ibv_devinfo, sminfo and
 * ofed_info samples (tests/fixtures/tools/, see SOURCES.md there). */
#include "parse-fixture.h"

static void test_ibstat_h100_ndr_with_bond(void **state)
{
	json_t *j = parse_fixture("ibstat", "h100_ndr400_8x_ib_plus_bond_eth_healthy.txt");

	(void)state;
	assert_jsize_at(j, "cas", 9);
	assert_jstr_at(j, "cas/0/name", "mlx5_0");
	assert_jstr_at(j, "cas/0/type", "MT4129");
	assert_jstr_at(j, "cas/0/fw", "28.41.1000");
	assert_jstr_at(j, "cas/0/node_guid", "0x58a2e10300a7820e");
	assert_jint_at(j, "cas/0/ports/0/port", 1);
	assert_jstr_at(j, "cas/0/ports/0/state", "Active");
	assert_jstr_at(j, "cas/0/ports/0/physical_state", "LinkUp");
	assert_jint_at(j, "cas/0/ports/0/rate", 400);
	assert_jint_at(j, "cas/0/ports/0/base_lid", 128);
	assert_jint_at(j, "cas/0/ports/0/sm_lid", 1);
	assert_jstr_at(j, "cas/8/name", "mlx5_bond_0");
	assert_jstr_at(j, "cas/8/type", "MT41692");
	assert_jint_at(j, "cas/8/ports/0/rate", 200);
	assert_jstr_at(j, "cas/8/ports/0/port_guid", "0x201d97fffe0056cf");
	assert_jstr_at(j, "cas/8/ports/0/link_layer", "Ethernet");
	json_decref(j);
}

/* The degraded H100 host: IB at 400, mlx5_1 Ethernet at 100, three
 * Ethernet ports down at 40. */
static void test_ibstat_h100_eth_ports_down(void **state)
{
	json_t *j = parse_fixture("ibstat", "h100_ndr400_ib_with_eth_ports_down_degraded.txt");
	json_t *ca;
	size_t i, down = 0;

	(void)state;
	assert_jsize_at(j, "cas", 12);
	json_array_foreach(json_object_get(j, "cas"), i, ca) {
		const char *st = json_string_value(jpath(ca, "ports/0/state"));

		if (!strcmp(st, "Down")) {
			down++;
			assert_jstr_at(ca, "ports/0/physical_state", "Disabled");
			assert_jint_at(ca, "ports/0/rate", 40);
			assert_jstr_at(ca, "ports/0/link_layer", "Ethernet");
		} else if (!strcmp(json_string_value(jpath(ca, "ports/0/link_layer")),
				   "InfiniBand")) {
			assert_jint_at(ca, "ports/0/rate", 400);
		}
	}
	assert_int_equal(down, 3);
	assert_jstr_at(j, "cas/1/ports/0/link_layer", "Ethernet");
	assert_jint_at(j, "cas/1/ports/0/rate", 100);
	assert_jstr_at(j, "cas/4/name", "mlx5_2");
	assert_jstr_at(j, "cas/4/ports/0/state", "Down");
	json_decref(j);
}

static void test_ibstat_a100_hdr(void **state)
{
	json_t *j = parse_fixture("ibstat", "a100_hdr200_8x_ib_healthy.txt");

	(void)state;
	assert_jsize_at(j, "cas", 9);
	assert_jstr_at(j, "cas/8/name", "mlx5_8");
	assert_jstr_at(j, "cas/8/system_guid", "0x946dae030093e0ba");
	assert_jint_at(j, "cas/8/ports/0/base_lid", 1396);
	assert_jint_at(j, "cas/8/ports/0/rate", 200);
	json_decref(j);
}

/* Posted with 8-space indentation instead of tabs. */
static void test_ibstat_cx6_one_port_down_spaces(void **state)
{
	json_t *j = parse_fixture("ibstat", "cx6_hdr200_one_active_one_down_disabled_excerpt.txt");

	(void)state;
	assert_jsize_at(j, "cas", 2);
	assert_jstr_at(j, "cas/0/fw", "20.33.1048");
	assert_jint_at(j, "cas/0/ports/0/rate", 200);
	assert_jint_at(j, "cas/0/ports/0/sm_lid", 393);
	assert_jstr_at(j, "cas/1/node_guid", "0x1070fd03008ea7a4");
	assert_jstr_at(j, "cas/1/ports/0/state", "Down");
	assert_jstr_at(j, "cas/1/ports/0/physical_state", "Disabled");
	assert_jint_at(j, "cas/1/ports/0/rate", 10);
	assert_jint_at(j, "cas/1/ports/0/base_lid", 65535);
	json_decref(j);
}

/* 4/8-space indentation, GUIDs redacted to "..." by the poster. */
static void test_ibstat_cx7_polling_redacted(void **state)
{
	json_t *j = parse_fixture("ibstat", "cx7_ndr_port_down_polling_guids_redacted.txt");

	(void)state;
	assert_jsize_at(j, "cas", 1);
	assert_jstr_at(j, "cas/0/name", "mlx5_10");
	assert_jstr_at(j, "cas/0/node_guid", "...");
	assert_jstr_at(j, "cas/0/ports/0/physical_state", "Polling");
	assert_jint_at(j, "cas/0/ports/0/base_lid", 868);
	json_decref(j);
}

static void test_ibstat_cx6dx_roce_down(void **state)
{
	json_t *j = parse_fixture("ibstat", "cx6dx_roce_both_ports_down_disabled_failure.txt");

	(void)state;
	assert_jstr_at(j, "cas/0/type", "MT4125");
	assert_jstr_at(j, "cas/0/ports/0/port_guid", "0x8ae9a4fffe70566e");
	assert_jint_at(j, "cas/0/ports/0/rate", 100);
	assert_jint_at(j, "cas/1/ports/0/rate", 40);
	assert_jstr_at(j, "cas/1/ports/0/state", "Down");
	json_decref(j);
}

/* `ibstat mlx5_1 1`: the layout of rdma-core ibstat.c for one port (the
 * values are the DGX-1 seed's mlx5_1). */
static void test_ibstat_one_port_form(void **state)
{
	const char text[] = "CA: 'mlx5_1'\nPort 1:\nState: Active\n"
			    "Physical state: LinkUp\nRate: 100\nBase lid: 13\n"
			    "Port GUID: 0xec0d9a030044d608\nLink layer: InfiniBand\n";
	json_t *j = parse_text("ibstat", text, sizeof(text) - 1);

	(void)state;
	assert_jstr_at(j, "cas/0/name", "mlx5_1");
	assert_jint_at(j, "cas/0/ports/0/rate", 100);
	assert_jstr_at(j, "cas/0/ports/0/port_guid", "0xec0d9a030044d608");
	json_decref(j);
}

static void test_ibstat_malformed(void **state)
{
	(void)state;
	expect_error("ibstat", "malformed_line9_state_without_colon.txt",
		     "ibstat: line 9: expected 'key: value': 'State Active'");
	expect_error("ibstat", "malformed_line1_no_ca_header.txt",
		     "ibstat: line 1: expected CA 'name'");
}

/*
 * Found by fuzzing: "Port \0" is "Port " as a C string, and the port line
 * check read the byte before an empty string (UB). A NUL is not text.
 */
static void test_ibstat_nul_byte(void **state)
{
	static const char buf[] = "CA ''\nPort \0";
	struct err e = ERR_INIT;
	json_t *j = NULL;

	(void)state;
	assert_int_equal(parse_ibstat(buf, sizeof(buf) - 1, &j, &e), ERR_PARSE);
	assert_null(j);
	assert_string_equal(err_msg(&e), "ibstat: line 2: found a NUL byte, expected text");
	err_clear(&e);
}

/* The DGX-1 log: the port GUID comes from the link-local GID. */
static void test_ibstatus_dgx1_edr(void **state)
{
	json_t *j = parse_fixture("ibstatus", "dgx1_4x_edr100_healthy_seed_reconstructed.txt");

	(void)state;
	assert_jsize_at(j, "cas", 4);
	assert_jstr_at(j, "cas/1/name", "mlx5_1");
	assert_jstr_at(j, "cas/1/ports/0/default_gid", "fe80:0000:0000:0000:ec0d:9a03:0044:d608");
	assert_jstr_at(j, "cas/1/ports/0/port_guid", "0xec0d9a030044d608");
	assert_jint_at(j, "cas/1/ports/0/base_lid", 0xd);
	assert_jint_at(j, "cas/1/ports/0/sm_lid", 9);
	assert_jstr_at(j, "cas/1/ports/0/state", "ACTIVE");
	assert_jint_at(j, "cas/1/ports/0/state_num", 4);
	assert_jstr_at(j, "cas/1/ports/0/physical_state", "LinkUp");
	assert_jint_at(j, "cas/1/ports/0/rate", 100);
	assert_jstr_at(j, "cas/1/ports/0/width", "4X");
	assert_jstr_at(j, "cas/1/ports/0/speed", "EDR");
	assert_jstr_at(j, "cas/3/ports/0/port_guid", "0xec0d9a030044bda4");
	json_decref(j);
}

/* Tabs expanded to spaces in the source; an Ethernet port with no GID. */
static void test_ibstatus_azure_hdr_and_eth(void **state)
{
	json_t *j = parse_fixture("ibstatus", "azure_hdr200_ib_plus_qdr_eth_healthy.txt");

	(void)state;
	assert_jsize_at(j, "cas", 2);
	assert_jstr_at(j, "cas/0/name", "mlx5_an0");
	assert_jstr_at(j, "cas/0/ports/0/default_gid", "unknown");
	assert_null(jpath(j, "cas/0/ports/0/port_guid"));
	assert_jint_at(j, "cas/0/ports/0/rate", 40);
	assert_jstr_at(j, "cas/0/ports/0/speed", "QDR");
	assert_jstr_at(j, "cas/0/ports/0/link_layer", "Ethernet");
	assert_jint_at(j, "cas/1/ports/0/rate", 200);
	assert_jint_at(j, "cas/1/ports/0/base_lid", 0x96);
	assert_jint_at(j, "cas/1/ports/0/sm_lid", 0x11c);
	assert_jstr_at(j, "cas/1/ports/0/port_guid", "0x00155dfffd33ff0b");
	expect_error("ibstatus", "malformed_line7_rate_not_a_number.txt",
		     "ibstatus: line 7: bad value for 'rate'");
	json_decref(j);
}

/* -vv: capability lists and sub-sections are skipped; rate = 4X x 50G. */
static void test_ibv_devinfo_vv(void **state)
{
	json_t *j = parse_fixture("ibv_devinfo", "ibv_devinfo_vv_cx6_hdr_port_active_and_port_down_disabled.txt");

	(void)state;
	assert_jsize_at(j, "cas", 2);
	assert_jstr_at(j, "cas/0/name", "mlx5_0");
	assert_jstr_at(j, "cas/0/transport", "InfiniBand");
	assert_jstr_at(j, "cas/0/fw", "20.37.1700");
	assert_jstr_at(j, "cas/0/type", "4123");
	assert_jint_at(j, "cas/0/ports_count", 1);
	assert_jsize_at(j, "cas/0/ports", 1);
	assert_jstr_at(j, "cas/0/ports/0/state", "PORT_ACTIVE");
	assert_jint_at(j, "cas/0/ports/0/state_num", 4);
	assert_jstr_at(j, "cas/0/ports/0/width", "4X");
	assert_jstr_at(j, "cas/0/ports/0/speed", "50.0 Gbps");
	assert_jint_at(j, "cas/0/ports/0/rate", 200);
	assert_jstr_at(j, "cas/0/ports/0/physical_state", "LINK_UP");
	assert_jint_at(j, "cas/0/ports/0/active_mtu", 4096);
	assert_jint_at(j, "cas/0/ports/0/base_lid", 4);
	assert_jstr_at(j, "cas/0/ports/0/port_guid", "0x88e9a4ffff25a462");
	assert_jstr_at(j, "cas/1/ports/0/state", "PORT_DOWN");
	assert_jstr_at(j, "cas/1/ports/0/physical_state", "DISABLED");
	assert_jstr_at(j, "cas/1/ports/0/speed", "invalid speed");
	assert_null(jpath(j, "cas/1/ports/0/rate"));
	assert_jint_at(j, "cas/1/ports/0/base_lid", 65535);
	json_decref(j);
}

static void test_ibv_devinfo_plain_spaces(void **state)
{
	json_t *j = parse_fixture("ibv_devinfo", "ibv_devinfo_cx7_ib_port_down_excerpt_spaces.txt");

	(void)state;
	assert_jstr_at(j, "cas/0/fw", "28.39.2048");
	assert_jstr_at(j, "cas/0/type", "4129");
	assert_jstr_at(j, "cas/0/node_guid", "58a2:e103:002a:09b8");
	assert_jstr_at(j, "cas/0/ports/0/state", "PORT_DOWN");
	assert_jint_at(j, "cas/0/ports/0/state_num", 1);
	assert_jint_at(j, "cas/0/ports/0/base_lid", 65535);
	assert_null(jpath(j, "cas/0/ports/0/rate"));
	expect_error("ibv_devinfo", "malformed_line5_unindented_text.txt",
		     "ibv_devinfo: line 5: expected 'hca_id: NAME'");
	json_decref(j);
}

static void test_sminfo(void **state)
{
	json_t *j = parse_fixture("sminfo", "sminfo_master_healthy.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jint_at(j, "sm_lid", 4);
	assert_jstr_at(j, "sm_guid", "0x2c903000d81f9");
	assert_jint_at(j, "activity_count", 1329328);
	assert_jint_at(j, "priority", 14);
	assert_jint_at(j, "state", 3);
	assert_jstr_at(j, "state_name", "SMINFO_MASTER");
	json_decref(j);

	/* the tool's own failure is a result, not a parse error */
	j = parse_fixture("sminfo", "sminfo_iberror_cannot_open_umad_port_failure.txt");
	assert_jbool_at(j, "ok", 0);
	assert_jstr_at(j, "error", "Failed to open '(null)' port '0'");
	assert_jstr_at(j, "warnings/0", "[55188] mad_rpc_open_port: can't open UMAD port ((null):0)");
	json_decref(j);
	expect_error("sminfo", "malformed_line1_priority_not_a_number.txt",
		     "sminfo: line 1: not an sminfo line");
	/* no OFED: the shell's words (RHEL 7's bash 4, bash 5.1+) are the result */
	j = parse_text("sminfo", "bash: sminfo: command not found\n", 32);
	assert_tool_failure(j, "bash: sminfo: command not found");
	json_decref(j);
	j = parse_text("sminfo", "bash: line 1: sminfo: command not found\n", 40);
	assert_tool_failure(j, "bash: line 1: sminfo: command not found");
	json_decref(j);
}

static void test_ofed_info(void **state)
{
	json_t *j = parse_fixture("ofed_info", "ofed_info_s_mlnx_ofed_4_7.txt");

	(void)state;
	assert_jstr_at(j, "version_string", "MLNX_OFED_LINUX-4.7-1.0.0.1");
	assert_jstr_at(j, "flavour", "MLNX_OFED_LINUX");
	assert_jstr_at(j, "version", "4.7-1.0.0.1");
	assert_jstr_at(j, "release", "4.7");
	json_decref(j);
	expect_error("ofed_info", "malformed_line1_no_version.txt",
		     "ofed_info: line 1: expected FLAVOUR-VERSION");
	expect_error_text("ofed_info", "MLNX_OFED_LINUX-4.7-1.0.0.1:\nmlnx-ofa_kernel\n", 45,
			  "ofed_info: line 2: more than one line");
}

/* The tool's own failure is a result, ok false with its words: ibpanic
 * after a valid listing (the CAs before it stay), and alone. */
static void test_ib_tool_failures(void **state)
{
	json_t *j = parse_fixture("ibstat", "ibpanic_after_valid_listing_mlx5_8_stat_failed_excerpt.txt");

	(void)state;
	assert_tool_failure(j, "ibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: No such file or directory");
	assert_jsize_at(j, "cas", 1);
	assert_jstr_at(j, "cas/0/ports/0/state", "Active");
	json_decref(j);
	j = parse_fixture("ibstat", "ibpanic_azure_an0_stat_failed_only_line.txt");
	assert_tool_failure(j, NULL);
	assert_jsize_at(j, "cas", 0);
	json_decref(j);
	j = parse_fixture("ibstat", "a100_hdr200_8x_ib_healthy.txt");
	assert_true(json_is_true(jpath(j, "ok")));
	json_decref(j);
	j = parse_fixture("ibstatus", "fatal_error_sys_files_not_found.txt");
	assert_tool_failure(j, "Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)");
	json_decref(j);
	j = parse_fixture("ibv_devinfo", "failed_to_get_ib_devices_list_function_not_implemented.txt");
	assert_tool_failure(j, "Failed to get IB devices list: Function not implemented");
	json_decref(j);
	j = parse_text("ibv_devinfo", "No IB devices found\n", 20);
	assert_tool_failure(j, "No IB devices found");
	json_decref(j);
	j = parse_fixture("ofed_info", "ofed_info_bash_command_not_found_rhel.txt");
	assert_tool_failure(j, "bash: ofed_info: command not found");
	assert_null(jpath(j, "version"));
	json_decref(j);
	j = parse_text("ibstat", "sh: 1: ibstat: not found\n", 25);
	assert_tool_failure(j, NULL);
	json_decref(j);
	j = parse_text("ibstat", "bash: line 1: ibstat: command not found\n", 40);
	assert_tool_failure(j, "bash: line 1: ibstat: command not found");
	json_decref(j);
	/* libibverbs' provider warnings before the tool's own failure */
	j = parse_fixture("ibv_devinfo", "no_ib_devices_found_libibverbs_no_config_dir.txt");
	assert_tool_failure(j, "No IB devices found");
	assert_jstr_at(j, "warnings/0", "libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.");
	json_decref(j);
	j = parse_fixture("ibv_devinfo", "no_ib_devices_found_no_userspace_driver_pib.txt");
	assert_tool_failure(j, "No IB devices found");
	assert_jsize_at(j, "warnings", 2);
	json_decref(j);
	/* a sibling's missing command or library error is not this tool's
	 * output (issue 26) */
	expect_error_text("ibstat", "bash: ofed_info: command not found\n", 35,
			  "ibstat: line 1");
	expect_error_text("ibstatus", "Failed to get IB devices list: Function not implemented\n", 56,
			  "ibstatus: line 1");
	expect_error_text("ibv_devinfo", "Fatal error:  device '*': sys files not found\n", 46,
			  "ibv_devinfo: line 1");
}

/* ofed_info -n is a bare version (no flavour); old releases' full first
 * line carries the base OFED in brackets. */
static void test_ofed_info_forms(void **state)
{
	json_t *j = parse_text("ofed_info", "5.0-2.1.8.0\n", 12);

	(void)state;
	assert_jstr_at(j, "version", "5.0-2.1.8.0");
	assert_jstr_at(j, "release", "5.0");
	assert_null(jpath(j, "flavour"));
	json_decref(j);
	j = parse_text("ofed_info", "MLNX_OFED_LINUX-4.4-2.0.7.0 (OFED-4.4-2.0.7):\n", 46);
	assert_jstr_at(j, "flavour", "MLNX_OFED_LINUX");
	assert_jstr_at(j, "version", "4.4-2.0.7.0");
	assert_jstr_at(j, "version_string", "MLNX_OFED_LINUX-4.4-2.0.7.0");
	assert_jstr_at(j, "base", "OFED-4.4-2.0.7");
	json_decref(j);
	expect_error_text("ofed_info", "MLNX_OFED_LINUX-4.4-2.0.7.0 (OFED-4.4\n", 38, "line 1");
	expect_error_text("ofed_info", "MLNX_OFED_LINUX-4.7-1.0.0.1:\nofed-scripts:\n", 43,
			  "line 2: more than one line");
}

/* RoCE host: CX-7 Ethernet ports at 400, CX-6 Dx at 100, one port Down /
 * Polling and one Down / Disabled, both at Rate 40; Port GUIDs all zero. */
static void test_ibstat_roce_polling_and_disabled(void **state)
{
	json_t *j = parse_fixture("ibstat", "h100_cx7_roce_400_cx6dx_100_eth_ports_down_polling_disabled.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jsize_at(j, "cas", 12);
	assert_jstr_at(j, "cas/1/name", "mlx5_1");
	assert_jstr_at(j, "cas/1/type", "MT4125");
	assert_jint_at(j, "cas/1/ports/0/rate", 100);
	assert_jstr_at(j, "cas/3/name", "mlx5_11");
	assert_jstr_at(j, "cas/3/ports/0/state", "Down");
	assert_jstr_at(j, "cas/3/ports/0/physical_state", "Polling");
	assert_jint_at(j, "cas/3/ports/0/rate", 40);
	assert_jstr_at(j, "cas/3/ports/0/link_layer", "Ethernet");
	assert_jstr_at(j, "cas/7/name", "mlx5_5");
	assert_jstr_at(j, "cas/7/ports/0/physical_state", "Disabled");
	assert_jstr_at(j, "cas/11/name", "mlx5_9");
	assert_jint_at(j, "cas/11/ports/0/rate", 400);
	json_decref(j);

	/* the whole listing before ibpanic is kept, the panic makes it fail */
	j = parse_fixture("ibstat", "ibpanic_azure_a100_8x_hdr_listing_then_mlx5_8_stat_failed_full.txt");
	assert_tool_failure(j, "ibpanic: [1400444] main: stat of IB device 'mlx5_8' failed: No such file or directory");
	assert_jsize_at(j, "cas", 8);
	assert_jstr_at(j, "cas/0/type", "MT4124");
	assert_jstr_at(j, "cas/7/name", "mlx5_7");
	assert_jint_at(j, "cas/7/ports/0/rate", 200);
	assert_jstr_at(j, "cas/7/ports/0/link_layer", "InfiniBand");
	json_decref(j);
}

/* ibstatus with 8-space indentation, an Ethernet port with gid unknown. */
static void test_ibstatus_a100_8space(void **state)
{
	json_t *j = parse_fixture("ibstatus", "a100_8x_hdr200_plus_qdr_eth_8space_indent.txt");

	(void)state;
	assert_jsize_at(j, "cas", 9);
	assert_jstr_at(j, "cas/3/name", "mlx5_3");
	assert_jint_at(j, "cas/3/ports/0/base_lid", 0x33dc);
	assert_jint_at(j, "cas/3/ports/0/sm_lid", 1);
	assert_jstr_at(j, "cas/3/ports/0/state", "ACTIVE");
	assert_jint_at(j, "cas/3/ports/0/rate", 200);
	assert_jstr_at(j, "cas/3/ports/0/speed", "HDR");
	assert_jstr_at(j, "cas/8/name", "mlx5_8");
	assert_jint_at(j, "cas/8/ports/0/rate", 40);
	assert_jstr_at(j, "cas/8/ports/0/speed", "QDR");
	assert_jstr_at(j, "cas/8/ports/0/link_layer", "Ethernet");
	json_decref(j);
}

/* Older libibverbs print "Device ports:" before the ports (mlx4, two
 * ports each); a RoCE port down printed with spaces. */
static void test_ibv_devinfo_device_ports_and_roce_down(void **state)
{
	json_t *j = parse_fixture("ibv_devinfo", "ibv_devinfo_mlx4_2_hcas_dual_port_device_ports_tabs.txt");

	(void)state;
	assert_jsize_at(j, "cas", 2);
	assert_jstr_at(j, "cas/0/name", "mlx4_1");
	assert_jstr_at(j, "cas/0/type", "4099");
	assert_jint_at(j, "cas/0/ports_count", 2);
	assert_jsize_at(j, "cas/0/ports", 2);
	assert_jint_at(j, "cas/0/ports/0/base_lid", 22);
	assert_jstr_at(j, "cas/0/ports/1/state", "PORT_DOWN");
	assert_jint_at(j, "cas/0/ports/1/port", 2);
	assert_jstr_at(j, "cas/1/name", "mlx4_0");
	assert_jint_at(j, "cas/1/ports/0/sm_lid", 18);
	assert_jint_at(j, "cas/1/ports/0/base_lid", 32);
	json_decref(j);

	j = parse_fixture("ibv_devinfo", "ibv_devinfo_cx6dx_roce_port_down_excerpt_spaces.txt");
	assert_jstr_at(j, "cas/0/name", "mlx5_12");
	assert_jstr_at(j, "cas/0/fw", "22.38.1900");
	assert_jstr_at(j, "cas/0/ports/0/state", "PORT_DOWN");
	assert_jint_at(j, "cas/0/ports/0/active_mtu", 1024);
	assert_jstr_at(j, "cas/0/ports/0/link_layer", "Ethernet");
	json_decref(j);
}

/* DOCA-OFED's ofed_info -s: flavour "OFED-internal", long versions. */
static void test_ofed_info_doca(void **state)
{
	json_t *j = parse_fixture("ofed_info", "ofed_info_s_doca_ofed_internal_24_10.txt");

	(void)state;
	assert_jstr_at(j, "flavour", "OFED-internal");
	assert_jstr_at(j, "version", "24.10-1.1.4.0.200");
	assert_jstr_at(j, "release", "24.10");
	json_decref(j);
	j = parse_fixture("ofed_info", "ofed_info_s_doca_ofed_internal_25_10.txt");
	assert_jstr_at(j, "flavour", "OFED-internal");
	assert_jstr_at(j, "version", "25.10-1.7.1");
	json_decref(j);
}

/* Issue 26: saquery's NodeRecord (a real one; the mailing list lost the
 * two tabs saquery.c puts before each field), its iberror, and text that
 * has no record. */
static void test_saquery(void **state)
{
	static const char tabbed[] = "NodeRecord dump:\n\t\tlid.....................0x86\n"
				     "\t\tport_num................0x1\n"
				     "\t\tNodeDescription.........dgx01 mlx5_0\n";
	json_t *j = parse_fixture("saquery", "noderecord_cx5_lid_134_mailing_list_tabs_stripped.txt");

	(void)state;
	assert_jstr_at(j, "records/0/type", "NodeRecord");
	assert_jint_at(j, "nodes/0/lid", 134);
	assert_jint_at(j, "nodes/0/port_num", 1);
	assert_jstr_at(j, "nodes/0/node_guid", "0x98039b03006c7913");
	assert_jstr_at(j, "nodes/0/node_type", "Channel Adapter");
	assert_jstr_at(j, "nodes/0/description", "MT4119 ConnectX5   Mellanox Technologies");
	json_decref(j);
	/* older saquery prints lid and port_num in hex (saquery.c format) */
	j = parse_text("saquery", tabbed, sizeof(tabbed) - 1);
	assert_jint_at(j, "nodes/0/lid", 134);
	json_decref(j);
	j = parse_text("saquery", "saquery: iberror: failed: Failed to bind to the SA\n", 50);
	assert_tool_failure(j, "saquery: iberror: failed: Failed to bind to the SA");
	json_decref(j);
	expect_error("saquery", "../sminfo/sminfo_master_healthy.txt", "not saquery output");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_saquery),
		cmocka_unit_test(test_ibstat_h100_ndr_with_bond),
		cmocka_unit_test(test_ibstat_h100_eth_ports_down),
		cmocka_unit_test(test_ibstat_a100_hdr),
		cmocka_unit_test(test_ibstat_cx6_one_port_down_spaces),
		cmocka_unit_test(test_ibstat_cx7_polling_redacted),
		cmocka_unit_test(test_ibstat_cx6dx_roce_down),
		cmocka_unit_test(test_ibstat_one_port_form),
		cmocka_unit_test(test_ibstat_malformed),
		cmocka_unit_test(test_ibstat_nul_byte),
		cmocka_unit_test(test_ibstatus_dgx1_edr),
		cmocka_unit_test(test_ibstatus_azure_hdr_and_eth),
		cmocka_unit_test(test_ibv_devinfo_vv),
		cmocka_unit_test(test_ibv_devinfo_plain_spaces),
		cmocka_unit_test(test_sminfo),
		cmocka_unit_test(test_ofed_info),
		cmocka_unit_test(test_ib_tool_failures),
		cmocka_unit_test(test_ofed_info_forms),
		cmocka_unit_test(test_ibstat_roce_polling_and_disabled),
		cmocka_unit_test(test_ibstatus_a100_8space),
		cmocka_unit_test(test_ibv_devinfo_device_ports_and_roce_down),
		cmocka_unit_test(test_ofed_info_doca),
	};
	return cmocka_run_group_tests_name("parse-ib", tests, NULL, NULL);
}

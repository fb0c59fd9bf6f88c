/* engine/facts/parse-ibnetdiscover.c on real ibnetdiscover outputs (tests/
 * fixtures/tools/ibnetdiscover/): an NDR leaf with its CA blocks, an EDR
 * excerpt without blank lines holding one ISL at 4xDDR, a node that sees
 * only itself, and the ports report (-p); then the tool's failures and
 * lines the parser must refuse. */
#include "parse-fixture.h"

static void test_ibnetdiscover_ndr_leaf_and_ca_blocks(void **state)
{
	json_t *j = parse_fixture("ibnetdiscover",
				  "ibnetdiscover_ndr_mqm9701_leaf_dgx_hcas_sharp_node_excerpt.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jstr_at(j, "generated", "Wed Aug  6 16:11:23 2025");
	assert_jstr_at(j, "from/node_guid", "0xe09d730300156ff6");
	assert_jsize_at(j, "nodes", 4);
	assert_jstr_at(j, "nodes/0/type", "Switch");
	assert_jstr_at(j, "nodes/0/guid", "0x2c5eab0300b87b40");
	assert_jstr_at(j, "nodes/0/devid", "0xd2f2");
	assert_jstr_at(j, "nodes/0/desc", "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1");
	assert_jint_at(j, "nodes/0/nports", 65);
	assert_jstr_at(j, "nodes/0/port0", "enhanced");
	assert_jint_at(j, "nodes/0/lid", 73);
	/* ports 1-17, 35-50 and 65 are cabled: 34 lines */
	assert_jsize_at(j, "nodes/0/ports", 34);
	assert_jint_at(j, "nodes/0/ports/0/port", 1);
	assert_jstr_at(j, "nodes/0/ports/0/width", "4x");
	assert_jstr_at(j, "nodes/0/ports/0/speed", "NDR");
	assert_jstr_at(j, "nodes/0/ports/0/peer/type", "CA");
	assert_jstr_at(j, "nodes/0/ports/0/peer/desc", "a08-p1-dgx-04-c01 mlx5_5");
	assert_jint_at(j, "nodes/0/ports/0/peer/lid", 647);
	assert_jstr_at(j, "nodes/0/ports/0/peer/port_guid", "0xe09d7303007a4bd8");
	assert_jint_at(j, "nodes/0/ports/17/port", 35);
	assert_jstr_at(j, "nodes/0/ports/17/peer/type", "Switch");
	assert_jint_at(j, "nodes/0/ports/17/peer/port", 32);
	assert_jstr_at(j, "nodes/0/ports/17/peer/desc", "MF0;A10-P1-IBSPINE-02:MQM9701/U1");
	assert_null(jpath(j, "nodes/0/ports/17/peer/port_guid"));
	assert_jstr_at(j, "nodes/1/type", "CA");
	assert_jstr_at(j, "nodes/1/desc", "Mellanox Technologies Aggregation Node");
	assert_jstr_at(j, "nodes/3/desc", "a08-p1-dgx-04-c16 mlx5_5");
	assert_jint_at(j, "nodes/3/ports/0/lid", 669);
	assert_jstr_at(j, "nodes/3/ports/0/guid", "0xe09d7303007a4e18");
	assert_jint_at(j, "nodes/3/ports/0/peer/port", 16);
	assert_jint_at(j, "nodes/3/ports/0/peer/lid", 73);
	assert_jstr_at(j, "nodes/3/ports/0/peer/desc", "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1");
	json_decref(j);
}

static void test_ibnetdiscover_edr_isl_at_ddr(void **state)
{
	json_t *j = parse_fixture("ibnetdiscover",
				  "ibnetdiscover_edr_switchib_fabric_one_isl_at_4xddr_excerpt.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jsize_at(j, "nodes", 2);
	assert_jstr_at(j, "nodes/0/port0", "base");
	assert_jint_at(j, "nodes/0/lid", 48);
	/* "(8c0eb0300ddc0f6)": the tool's unpadded port GUID */
	assert_jstr_at(j, "nodes/0/ports/11/peer/port_guid", "0x08c0eb0300ddc0f6");
	assert_jstr_at(j, "nodes/1/guid", "0xec0d9a0300ec8480");
	assert_jint_at(j, "nodes/1/ports/10/port", 11);
	assert_jstr_at(j, "nodes/1/ports/10/speed", "DDR");
	assert_jstr_at(j, "nodes/1/ports/10/peer/guid", "0xec0d9a0300ec8200");
	assert_jint_at(j, "nodes/1/ports/10/peer/port", 11);
	assert_jstr_at(j, "nodes/1/ports/11/speed", "EDR");
	json_decref(j);
}

static void test_ibnetdiscover_only_itself(void **state)
{
	json_t *j = parse_fixture("ibnetdiscover",
				  "ibnetdiscover_gb200_only_local_hca_no_switch_failure.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jsize_at(j, "nodes", 1);
	assert_jstr_at(j, "nodes/0/type", "CA");
	assert_jstr_at(j, "nodes/0/desc", "dgx-gb200-n01-c1 HCA-1");
	assert_jsize_at(j, "nodes/0/ports", 0);
	json_decref(j);
}

static void test_ibnetdiscover_ports_report(void **state)
{
	json_t *j = parse_fixture("ibnetdiscover",
				  "ibnetdiscover_p_edr_ports_with_unconnected_sdr_and_unknown_speed_excerpt.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_null(jpath(j, "nodes"));
	assert_jsize_at(j, "ports", 9);
	assert_jstr_at(j, "ports/0/type", "CA");
	assert_jint_at(j, "ports/0/lid", 134);
	assert_jstr_at(j, "ports/0/speed", "EDR");
	assert_jstr_at(j, "ports/0/desc", "o0001 HCA-1");
	assert_jstr_at(j, "ports/0/peer/type", "SW");
	assert_jint_at(j, "ports/0/peer/port", 10);
	assert_jstr_at(j, "ports/0/peer/desc", "ib-i1l1s01");
	/* unconnected: no peer; "4x ???" has no speed */
	assert_jint_at(j, "ports/7/port", 37);
	assert_jstr_at(j, "ports/7/width", "4x");
	assert_null(jpath(j, "ports/7/speed"));
	assert_null(jpath(j, "ports/7/peer"));
	assert_jstr_at(j, "ports/8/speed", "SDR");
	assert_jstr_at(j, "ports/8/guid", "0x08c0eb0300add20e");
	json_decref(j);
}

static void test_ibnetdiscover_tool_failures(void **state)
{
	static const char umad[] =
		"ibwarn: [4711] mad_rpc_open_port: can't open UMAD port ((null):0)\n"
		"ibnetdiscover: iberror: failed: discover failed\n";
	static const char missing[] = "bash: ibnetdiscover: command not found\n";
	static const char panic[] = "ibpanic: [1] main: can't open file: No such file\n";
	json_t *j;

	(void)state;
	j = parse_text("ibnetdiscover", umad, sizeof(umad) - 1);
	assert_tool_failure(j, "ibnetdiscover: iberror: failed: discover failed");
	assert_jstr_at(j, "warnings/0",
		       "ibwarn: [4711] mad_rpc_open_port: can't open UMAD port ((null):0)");
	json_decref(j);
	j = parse_text("ibnetdiscover", missing, sizeof(missing) - 1);
	assert_tool_failure(j, "bash: ibnetdiscover: command not found");
	json_decref(j);
	j = parse_text("ibnetdiscover", panic, sizeof(panic) - 1);
	assert_tool_failure(j, "ibpanic: [1] main: can't open file: No such file");
	json_decref(j);
}

/* Each broken line is refused by its number, never skipped. */
static void test_ibnetdiscover_refuses(void **state)
{
	static const char *const bad[][2] = {
		{ "#\n# Topolgy file\n", "line 2: expected a topology line" },
		{ "vendid=0x2c9\ndevid=0x1\nSwitch\t36 \"S-0002c9\"\t\t# \"x\" lid 3\n", "line 3:" },
		{ "vendid=0x2c9\ncaguid=0x1\nCa\t1 \"H-0000000000000001\"\t\t# \"n1 HCA-1\"\n"
		  "[1](1) \t\"S-0000000000000002\"[3]\t\t# lid 4 lmc 0 \"sw\" lid 2 4xZDR\n",
		  "line 4:" },
		{ "[1]\t\"H-0000000000000001\"[1](1) \t\t# \"n1\" lid 4 4xEDR\n",
		  "line 1:" },
		{ "vendid=0x2c9\ndevid=0x1\n", "without their Switch/Ca line" },
		{ "CA 1 1 0x1 4x EDR - SW 2 3 0x2 'a' - 'b'\n", "line 1:" },
		{ "CA 1 1 0x1 4x EDR 'n1'\n#\n", "line 2: expected a ports report line" },
		{ "#\n# Initiated from node 0x1 port 0x1\n", "no node and no port line" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_error_text("ibnetdiscover", bad[i][0], strlen(bad[i][0]), bad[i][1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibnetdiscover_ndr_leaf_and_ca_blocks),
		cmocka_unit_test(test_ibnetdiscover_edr_isl_at_ddr),
		cmocka_unit_test(test_ibnetdiscover_only_itself),
		cmocka_unit_test(test_ibnetdiscover_ports_report),
		cmocka_unit_test(test_ibnetdiscover_tool_failures),
		cmocka_unit_test(test_ibnetdiscover_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

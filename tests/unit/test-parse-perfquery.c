/* engine/facts/parse-perfquery.c on real perfquery -x / -E samples and the MAD
 * failure of a RoCE-only host (tests/fixtures/tools/perfquery/). */
#include "parse-fixture.h"

static void test_perfquery_x_switch_port_errors(void **state)
{
	json_t *j = parse_fixture("perfquery", "perfquery_x_edr_switch_port_linkdowned_xmitdiscards_relayerrors.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jsize_at(j, "ports", 1);
	assert_jstr_at(j, "ports/0/kind", "port_extended");
	assert_jint_at(j, "ports/0/lid", 2052);
	assert_jint_at(j, "ports/0/port", 1);
	assert_jstr_at(j, "ports/0/cap_mask", "0x5300");
	assert_jint_at(j, "ports/0/counters/LinkDownedCounter", 1);
	assert_jint_at(j, "ports/0/counters/PortRcvSwitchRelayErrors", 7);
	assert_jint_at(j, "ports/0/counters/PortXmitDiscards", 20046);
	assert_jint_at(j, "ports/0/counters/PortXmitData", 178791657177235LL);
	assert_jint_at(j, "ports/0/counters/SymbolErrorCounter", 0);
	assert_null(jpath(j, "ports/0/counters/PortSelect"));
	json_decref(j);
}

static void test_perfquery_two_ports_and_rcv_error_details(void **state)
{
	json_t *j = parse_fixture("perfquery", "perfquery_x_switch_2_ports_healthy_xmitwait_only.txt");

	(void)state;
	assert_jsize_at(j, "ports", 2);
	assert_jint_at(j, "ports/1/port", 2);
	assert_jint_at(j, "ports/1/counters/ExcessiveBufferOverrunErrors", 0);
	json_decref(j);
	j = parse_fixture("perfquery", "perfquery_E_rcv_error_details_all_zero.txt");
	assert_jstr_at(j, "ports/0/kind", "portrcverrordetails");
	assert_jint_at(j, "ports/0/counters/PortLocalPhysicalErrors", 0);
	json_decref(j);
}

/* RoCE-only host: the MAD port cannot be opened; the tool's words. */
static void test_perfquery_mad_failure(void **state)
{
	json_t *j = parse_fixture("perfquery", "perfquery_roce_only_host_client_register_failed_iberror.txt");

	(void)state;
	assert_tool_failure(j, "perfquery: iberror: failed: Failed to open '(null)' port '0'");
	assert_jstr_at(j, "warnings/0", "ibwarn: [299010] mad_rpc_open_port: client_register for mgmt 1 failed");
	json_decref(j);
}

static void test_perfquery_malformed(void **state)
{
	(void)state;
	expect_error_text("perfquery", "PortRcvErrors:....0\n", 20, "line 1: counter before any");
	expect_error_text("perfquery", "# Port extended counters: Lid 1 port 1\nPortRcvErrors:....many\n", 62,
			  "line 2: counter value is not a number");
	expect_error_text("perfquery", "# Port counters: Lid x port 1\n", 30, "line 1: expected '# ... counters");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perfquery_x_switch_port_errors),
		cmocka_unit_test(test_perfquery_two_ports_and_rcv_error_details),
		cmocka_unit_test(test_perfquery_mad_failure),
		cmocka_unit_test(test_perfquery_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

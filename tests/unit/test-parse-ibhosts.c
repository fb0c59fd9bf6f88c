/* engine/facts/parse-ibhosts.c on the real (reconstructed) ibhosts output of a
 * DGX-1 EDR fabric (tests/fixtures/tools/ibhosts/), lines it must refuse,
 * and ibnetdiscover's failure. */
#include "parse-fixture.h"

static void test_ibhosts_dgx1_fabric(void **state)
{
	json_t *j = parse_fixture("ibhosts", "dgx1_edr_fabric_17_cas_mlx5_0_seed_reconstructed.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jsize_at(j, "cas", 17);
	assert_jstr_at(j, "cas/0/guid", "0x248a0703001f0426");
	assert_jint_at(j, "cas/0/ports", 1);
	assert_jstr_at(j, "cas/0/desc", "dgx02 HCA-3");
	assert_jstr_at(j, "cas/1/desc", "Mellanox Technologies Aggregation Node");
	assert_jstr_at(j, "cas/16/desc", "dgx01 HCA-1");
	json_decref(j);
}

static void test_ibhosts_refuses_what_it_does_not_read(void **state)
{
	json_t *j;

	(void)state;
	/* ibswitches' line, not a CA: never counted as one */
	expect_error_text("ibhosts", "Switch\t: 0x7cfe9003005a1e01 ports 36 \"MF0;sim-leaf01:MSB7700/U1\" "
			  "base port 0 lid 9 lmc 0\n", 89, "line 1: expected 'Ca : 0xGUID ports N");
	expect_error_text("ibhosts", "Ca\t: 0x248a0703001f0426 ports 1 dgx02 HCA-3\n", 44,
			  "line 1: expected 'Ca : 0xGUID ports N");
	expect_error_text("ibhosts", "Ca\t: 248a0703001f0426 ports 1 \"dgx02 HCA-3\"\n", 44,
			  "line 1: expected 'Ca : 0xGUID ports N");
	expect_error_text("ibhosts", "Ca\t: 0x248a0703001f0426 ports 1 \"dgx02 HCA-3\" x\n", 48,
			  "line 1: expected 'Ca : 0xGUID ports N");
	j = parse_text("ibhosts", "ibwarn: [9] mad_rpc_open_port: client_register for mgmt 1 failed\n"
			  "ibnetdiscover: iberror: failed: discover failed\n", 113);
	assert_tool_failure(j, "ibnetdiscover: iberror: failed: discover failed");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibhosts_dgx1_fabric),
		cmocka_unit_test(test_ibhosts_refuses_what_it_does_not_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* engine/facts/parse-ibdev2netdev.c on real ibdev2netdev outputs
 * (tests/fixtures/tools/ibdev2netdev/). */
#include "parse-fixture.h"

static void test_ibdev2netdev_azure_ipoib_down_then_up(void **state)
{
	json_t *j = parse_fixture("ibdev2netdev", "ibdev2netdev_azure_h100_8x_mlx5_ib_ipoib_down_before_link_up.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jsize_at(j, "ports", 9);
	assert_jstr_at(j, "ports/0/device", "mlx5_an0");
	assert_jstr_at(j, "ports/0/netdev", "eth1");
	assert_jbool_at(j, "ports/0/up", 1);
	assert_jstr_at(j, "ports/8/device", "mlx5_ib7");
	assert_jint_at(j, "ports/8/port", 1);
	assert_jstr_at(j, "ports/8/netdev", "ib7");
	assert_jbool_at(j, "ports/8/up", 0);
	json_decref(j);
	j = parse_fixture("ibdev2netdev", "ibdev2netdev_azure_h100_8x_mlx5_ib_all_up.txt");
	assert_jbool_at(j, "ports/8/up", 1);
	json_decref(j);
}

static void test_ibdev2netdev_mlx4_two_ports_and_sriov(void **state)
{
	json_t *j = parse_fixture("ibdev2netdev", "ibdev2netdev_mlx4_dual_port_ib_down_eth_up_ofed_readme.txt");

	(void)state;
	assert_jsize_at(j, "ports", 4);
	assert_jint_at(j, "ports/1/port", 2);
	assert_jstr_at(j, "ports/1/netdev", "ib1");
	assert_jbool_at(j, "ports/3/up", 1);
	json_decref(j);
	j = parse_fixture("ibdev2netdev", "ibdev2netdev_cx6_sriov_vfs_mostly_down_excerpt.txt");
	assert_jstr_at(j, "ports/0/netdev", "ibp75s0v7");
	json_decref(j);
}

static void test_ibdev2netdev_errors(void **state)
{
	json_t *j;

	(void)state;
	expect_error_text("ibdev2netdev", "mlx5_0 port 1 ==> ib0 (Up)\nmlx5_1 port 1 <===> ib1\n", 50,
			  "line 2: expected 'DEVICE port N ==> NETDEV (Up|Down)'");
	expect_error_text("ibdev2netdev", "mlx5_0 port 1 ==> ib0 (Unknown)\n", 32, "line 1:");
	j = parse_text("ibdev2netdev", "bash: ibdev2netdev: command not found\n", 38);
	assert_tool_failure(j, "bash: ibdev2netdev: command not found");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibdev2netdev_azure_ipoib_down_then_up),
		cmocka_unit_test(test_ibdev2netdev_mlx4_two_ports_and_sriov),
		cmocka_unit_test(test_ibdev2netdev_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

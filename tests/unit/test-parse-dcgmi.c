/* engine/parse-dcgmi.c on real dcgmi diag outputs (tests/fixtures/tools/dcgmi-diag). */
#include "parse-fixture.h"

/* -r 1 as DeepOps publishes it: every Deployment test, five of them Fail. */
static void test_r1_deployment_fail(void **state)
{
	json_t *j = parse_fixture("dcgmi-diag", "diag_r1_deployment_fail.txt");

	(void)state;
	assert_true(json_is_true(json_object_get(j, "ok")));
	assert_true(json_is_true(json_object_get(j, "completed")));
	assert_jsize_at(j, "tests", 9);
	assert_jstr_at(j, "tests/0/section", "Deployment");
	assert_jstr_at(j, "tests/0/name", "Blacklist");
	assert_jstr_at(j, "tests/0/status", "Pass");
	assert_jstr_at(j, "tests/4/name", "Persistence Mode");
	assert_jstr_at(j, "tests/4/status", "Fail");
	assert_jstr_at(j, "tests/8/name", "Inforom");
	assert_jstr_at(j, "tests/8/status", "Fail");
	assert_jsize_at(j, "messages", 0);
	json_decref(j);
}

/* -r 3 of DCGM 3.3.9: metadata are values, "Pass - All" and "Skip - All". */
static void test_r3_metadata_and_all(void **state)
{
	json_t *j = parse_fixture("dcgmi-diag", "diag_r3_dcgm_3_3_9_v100_all_pass_eud_skip.txt");

	(void)state;
	assert_jstr_at(j, "metadata/DCGM Version", "3.3.9");
	assert_jstr_at(j, "metadata/Driver Version Detected", "560.35.03");
	assert_jsize_at(j, "tests", 16);
	assert_jstr_at(j, "tests/9/section", "Integration");
	assert_jstr_at(j, "tests/9/name", "PCIe");
	assert_jbool_at(j, "tests/9/results/0/all", 1);
	assert_jstr_at(j, "tests/15/name", "EUD Test");
	assert_jstr_at(j, "tests/15/status", "Skip");
	json_decref(j);
}

/* Excerpts from ml-engineering: a GPU's failure and its wrapped warning
 * (the words cut at the column's width join again), and a Deployment
 * Error row naming GPU 3. */
static void test_per_gpu_results_and_messages(void **state)
{
	json_t *j = parse_fixture("dcgmi-diag", "diag_r2_excerpt_gpu_memory_fail_gpu0_thermal_warning.txt");

	(void)state;
	assert_jsize_at(j, "warnings", 1);
	assert_jstr_at(j, "tests/0/name", "GPU Memory");
	assert_jstr_at(j, "tests/0/status", "Fail");
	assert_jstr_at(j, "tests/0/results/0/status", "Pass");
	assert_jsize_at(j, "tests/0/results/0/gpus", 7);
	assert_jint_at(j, "tests/0/results/0/gpus/6", 7);
	assert_jstr_at(j, "tests/0/results/1/status", "Fail");
	assert_jint_at(j, "tests/0/results/1/gpus/0", 0);
	assert_jstr_at(j, "messages/0/kind", "Warning");
	assert_jstr_at(j, "messages/0/test", "GPU Memory");
	assert_jint_at(j, "messages/0/gpu", 0);
	assert_jstr_at(j, "messages/0/text", "GPU 0 Thermal violations totaling 13.3 seconds started "
		       "at 9.7 seconds into the test for GPU 0 Verify that the cooling on this machine "
		       "is functional, including external, thermal material interface, fans, and any "
		       "other components.");
	json_decref(j);
	j = parse_fixture("dcgmi-diag", "diag_r3_excerpt_deployment_error_gpu3_row_remap_pending.txt");
	assert_jstr_at(j, "messages/0/kind", "Error");
	assert_jint_at(j, "messages/0/gpu", 3);
	assert_jstr_at(j, "messages/0/text", "GPU 3 has uncorrectable memory errors and row remappings "
		       "are pending");
	json_decref(j);
}

/* Columns never shift and nothing unknown is skipped: a result that is
 * not one, a row without its bars, a continued row with nothing to
 * continue are errors naming the line; dcgmi's own failure is ok:false. */
static void test_bad_rows_and_failure(void **state)
{
	const char *head = "+---+\n| Diagnostic | Result |\n+===+\n|-----  Deployment  ---+---|\n";
	/* dcgmi's words when nv-hostengine is not running (DCGM dcgmi/Command.cpp) */
	const char *fail = "Error: unable to establish a connection to the specified host: localhost\n";
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	(void)state;
	strbuf_addf(&sb, "%s| Inforom | Passed |\n", head);
	expect_error_text("dcgmi-diag", sb.buf, sb.len, "dcgmi-diag: line 5: not a result");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s| Inforom   Pass\n", head);
	expect_error_text("dcgmi-diag", sb.buf, sb.len, "dcgmi-diag: line 5: expected '| name | value |'");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s|   | Fail - GPU: 0 |\n", head);
	expect_error_text("dcgmi-diag", sb.buf, sb.len, "dcgmi-diag: line 5: a continued row");
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s| Inforom | Fail - GPU: x |\n", head);
	expect_error_text("dcgmi-diag", sb.buf, sb.len, "dcgmi-diag: line 5: not a result");
	strbuf_release(&sb);
	j = parse_text("dcgmi-diag", fail, strlen(fail));
	assert_true(json_is_false(json_object_get(j, "ok")));
	assert_jstr_at(j, "error", "Error: unable to establish a connection to the specified host: localhost");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_r1_deployment_fail),
		cmocka_unit_test(test_r3_metadata_and_all),
		cmocka_unit_test(test_per_gpu_results_and_messages),
		cmocka_unit_test(test_bad_rows_and_failure),
	};
	return cmocka_run_group_tests_name("parse-dcgmi", tests, NULL, NULL);
}

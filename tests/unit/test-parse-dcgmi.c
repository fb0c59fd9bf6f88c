/* engine/facts/parse-dcgmi.c on real dcgmi diag outputs (tests/fixtures/tools/dcgmi-diag). */
#include "parse-fixture.h"
#include "../../engine/facts/parse-util.h"

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

/* -r 3 of DCGM 3.3.9: metadata are values, "Pass - All" and "Skip - All";
 * every test of the Deployment, Integration, Hardware and Stress sections
 * in its section, in order ("Diagnostic" in Hardware is a test, not the
 * header again). */
static void test_r3_metadata_and_all(void **state)
{
	static const char *const want[][2] = {
		{ "Deployment", "Denylist" }, { "Deployment", "NVML Library" },
		{ "Deployment", "CUDA Main Library" }, { "Deployment", "Permissions and OS Blocks" },
		{ "Deployment", "Persistence Mode" }, { "Deployment", "Environment Variables" },
		{ "Deployment", "Page Retirement/Row Remap" }, { "Deployment", "Graphics Processes" },
		{ "Deployment", "Inforom" }, { "Integration", "PCIe" }, { "Hardware", "GPU Memory" },
		{ "Hardware", "Diagnostic" }, { "Stress", "Targeted Stress" },
		{ "Stress", "Targeted Power" }, { "Stress", "Memory Bandwidth" }, { "Stress", "EUD Test" },
	};
	json_t *j = parse_fixture("dcgmi-diag", "diag_r3_dcgm_3_3_9_v100_all_pass_eud_skip.txt"), *t;

	(void)state;
	assert_true(json_is_true(json_object_get(j, "ok")));
	assert_true(json_is_true(json_object_get(j, "completed")));
	assert_jstr_at(j, "metadata/DCGM Version", "3.3.9");
	assert_jstr_at(j, "metadata/Driver Version Detected", "560.35.03");
	assert_jstr_at(j, "metadata/GPU Device IDs Detected", "1db4");
	assert_int_equal(json_object_size(json_object_get(j, "metadata")), 3);
	assert_jsize_at(j, "tests", ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		t = json_array_get(json_object_get(j, "tests"), i);
		assert_string_equal(json_string_value(json_object_get(t, "section")), want[i][0]);
		assert_string_equal(json_string_value(json_object_get(t, "name")), want[i][1]);
		assert_int_equal(json_array_size(json_object_get(t, "results")), 1);
		/* Deployment says "Pass"; the GPU tests "Pass - All" */
		if (i >= 9)
			assert_jbool_at(t, "results/0/all", 1);
		else
			assert_null(json_object_get(json_array_get(json_object_get(t, "results"), 0), "all"));
		assert_string_equal(json_string_value(json_object_get(t, "status")),
				    i == ARRAY_SIZE(want) - 1 ? "Skip" : "Pass");
	}
	assert_jsize_at(j, "messages", 0);
	json_decref(j);
}

/* -r 3 with a GPU's failure in the Stress section (a constructed table, no
 * capture shows one): the result names the
 * GPU, DCGM's Warning under it names it again (DCGM's layout as in the
 * ml-engineering excerpt, here under Targeted Power). */
static void test_r3_stress_fail_gpu(void **state)
{
	const char *txt =
		"Successfully ran diagnostic for group.\n"
		"+---------------------------+------------------------------------------------+\n"
		"| Diagnostic                | Result                                         |\n"
		"+===========================+================================================+\n"
		"+-----  Stress  ------------+------------------------------------------------+\n"
		"| Targeted Stress           | Pass - All                                     |\n"
		"| Targeted Power            | Pass - GPUs: 0, 2, 3                           |\n"
		"|                           | Fail - GPU: 1                                  |\n"
		"| Warning                   | GPU 1 Power too low                            |\n"
		"| Memory Bandwidth          | Pass - All                                     |\n"
		"+---------------------------+------------------------------------------------+\n";
	json_t *j = parse_text("dcgmi-diag", txt, strlen(txt)), *p;

	(void)state;
	assert_jsize_at(j, "tests", 3);
	assert_jstr_at(j, "tests/1/section", "Stress");
	assert_jstr_at(j, "tests/1/status", "Fail");
	assert_jsize_at(j, "tests/1/results/0/gpus", 3);
	assert_jint_at(j, "tests/1/results/1/gpus/0", 1);
	assert_jstr_at(j, "messages/0/test", "Targeted Power");
	assert_jint_at(j, "messages/0/gpu", 1);
	assert_jstr_at(j, "tests/2/status", "Pass");
	/* judged: GPU 1 alone fails, with the test and DCGM's words */
	p = dcgmi_diag_problems(j);
	assert_int_equal(json_object_size(p), 1);
	assert_jbool_at(p, "GPU 1/fail", 1);
	assert_jstr_at(p, "GPU 1/what", "Targeted Power: Fail; Targeted Power: GPU 1 Power too low");
	json_decref(p);
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
		cmocka_unit_test(test_r3_stress_fail_gpu),
		cmocka_unit_test(test_per_gpu_results_and_messages),
		cmocka_unit_test(test_bad_rows_and_failure),
	};
	return cmocka_run_group_tests_name("parse-dcgmi", tests, NULL, NULL);
}

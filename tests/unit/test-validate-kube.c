/*
 * validate --via kubernetes judges a launcher pod's log exactly as the SSH
 * path judges a node's output: validate_nccl_judge_output on real
 * nccl-tests captures (tests/fixtures/tools/nccl-tests, SOURCES.md there),
 * and a node's ResNet-50 steps through validate-resnet.c's own reader and
 * judge (tf_cnn_benchmarks captures in tests/fixtures/tools/tf_cnn_benchmarks),
 * and a node health pod's log by precheck's own checks (nvidia-smi -q
 * captures in tests/fixtures/tools/nvidia-smi-q).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/inventory/inventory.h"
#include "../../engine/base/strbuf.h"
#include "../../engine/base/xalloc.h"
#include "../../engine/validate/validate.h"
#include "../../engine/validate/validate-int.h"
#include "../../engine/validate/validate-kube.h"

#define FIX "tests/fixtures/tools/nccl-tests/"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static const char *str(json_t *row, const char *k)
{
	return json_string_value(json_object_get(row, k));
}

/* A DGX-1V's 8 GPUs over NVLink (a real single-node capture): passes, as over SSH. */
static void test_nvlink_capture_passes(void **state)
{
	struct validate_cfg cfg;
	struct host h = { .name = "dgx01", .gpus = { 8, "Tesla V100-SXM2-32GB" } };
	size_t len;
	char *out = slurp(FIX "all_reduce_single_node_8x_v100_nvlink_old_format_footer.txt", &len);
	json_t *row;

	(void)state;
	validate_cfg_defaults(&cfg);
	row = validate_nccl_judge_output(&cfg, &h, 0, out, len, NULL);
	assert_string_equal(str(row, "host"), "dgx01");
	assert_string_equal(str(row, "run"), "nvlink");
	assert_true(json_number_value(json_object_get(row, "busbw_gbps")) > 110);
	assert_string_equal(str(row, "status"), "pass");
	assert_null(json_object_get(row, "error"));
	json_decref(row);
	/* The same log judged against a line it misses fails, saying why. */
	cfg.nccl.min_busbw_gbps = 1000;
	row = validate_nccl_judge_output(&cfg, &h, 0, out, len, NULL);
	assert_string_equal(str(row, "status"), "fail");
	assert_non_null(strstr(str(row, "error"), "bus bandwidth"));
	json_decref(row);
	free(out);
	validate_cfg_release(&cfg);
}

/* NCCL on sockets where IB is expected (a real NCCL_DEBUG=INFO capture). */
static void test_socket_fallback_fails(void **state)
{
	struct validate_cfg cfg;
	struct hca_expect hcas[4] = {
		{ .name = "mlx5_0", .rate_gbps = 100, .link_layer = LINK_IB },
		{ .name = "mlx5_1", .rate_gbps = 100, .link_layer = LINK_IB },
		{ .name = "mlx5_2", .rate_gbps = 100, .link_layer = LINK_IB },
		{ .name = "mlx5_3", .rate_gbps = 100, .link_layer = LINK_IB },
	};
	struct host h = { .name = "dgx02", .hcas = hcas, .nhcas = 4,
			  .gpus = { 8, "A100-SXM4-80GB" } };
	size_t len;
	char *out = slurp(FIX "all_reduce_2x_a100_80gb_nccl_debug_info_socket_excerpt.txt", &len);
	json_t *row;

	(void)state;
	validate_cfg_defaults(&cfg);
	row = validate_nccl_judge_output(&cfg, &h, 1, out, len, NULL);
	assert_string_equal(str(row, "run"), "net");
	assert_string_equal(str(row, "status"), "fail");
	assert_non_null(strstr(str(row, "error"), "NET/Socket"));
	json_decref(row);
	free(out);
	validate_cfg_release(&cfg);
}

/* No log (the job failed or timed out), or a log that is no nccl-tests output. */
static void test_no_or_bad_output_fails(void **state)
{
	struct validate_cfg cfg;
	struct host h = { .name = "dgx01", .gpus = { 8, "Tesla V100-SXM2-32GB" } };
	size_t len;
	char *out = slurp(FIX "malformed_line5_row_without_in_place.txt", &len);
	json_t *row;

	(void)state;
	validate_cfg_defaults(&cfg);
	row = validate_nccl_judge_output(&cfg, &h, 0, NULL, 0, "MPIJob adas/x did not finish in 300 s");
	assert_string_equal(str(row, "status"), "fail");
	assert_true(json_is_null(json_object_get(row, "busbw_gbps")));
	assert_string_equal(str(row, "error"), "MPIJob adas/x did not finish in 300 s");
	json_decref(row);
	row = validate_nccl_judge_output(&cfg, &h, 0, out, len, NULL);
	assert_string_equal(str(row, "status"), "fail");
	assert_non_null(str(row, "error"));
	json_decref(row);
	free(out);
	validate_cfg_release(&cfg);
}

#define TFIX "tests/fixtures/tools/tf_cnn_benchmarks/"

/* A real capture read as its total images/sec; a malformed one and no log are errors. */
static void test_resnet_parse(void **state)
{
	size_t len;
	char *out = slurp(TFIX "tf_cnn_benchmarks_resnet50_1gpu_synthetic_2017.txt", &len), *e;

	(void)state;
	assert_true(validate_resnet_parse(out, len, NULL, &e) == 138.95);
	assert_null(e);
	free(out);
	out = slurp(TFIX "malformed_line3_step_without_numbers.txt", &len);
	assert_true(validate_resnet_parse(out, len, "Traceback", &e) < 0);
	assert_non_null(e);
	assert_non_null(strstr(e, ": Traceback"));
	free(e);
	free(out);
	assert_true(validate_resnet_parse(NULL, 0, NULL, &e) < 0);
	assert_non_null(e);
	free(e);
}

/* One node's steps: good scaling passes; poor scaling fails naming the slow GPU; no figure fails. */
static void test_resnet_judge_node(void **state)
{
	struct validate_cfg cfg;
	struct host h = { .name = "dgx02", .gpus = { 8, "Tesla V100-SXM2-32GB" } };
	unsigned gpus[4] = { 1, 2, 4, 8 };
	double good[4] = { 360, 660, 1320, 2650 }, slow[4] = { 360, 660, 900, 1200 };
	double none[4] = { 360, 660, 1320, -1 };
	json_t *results = json_array(), *findings = json_array(), *tries = json_array();
	json_t *f;

	(void)state;
	validate_cfg_defaults(&cfg);
	assert_true(validate_resnet_judge_node(&cfg, &h, gpus, good, 4, tries, NULL, NULL, results,
					       findings) == 2650);
	assert_int_equal(json_array_size(findings), 0);
	assert_true(json_number_value(json_object_get(json_array_get(results, 0),
						      "efficiency_pct")) > 90);
	validate_resnet_judge_node(&cfg, &h, gpus, slow, 4, tries, NULL, "GPU 3", results, findings);
	f = json_array_get(findings, 0);
	assert_string_equal(str(f, "status"), "fail");
	assert_string_equal(str(f, "host"), "dgx02");
	assert_string_equal(str(f, "subject"), "GPU 3");
	assert_non_null(strstr(str(f, "message"), "ResNet-50 on 8 GPUs"));
	assert_true(validate_resnet_judge_node(&cfg, &h, gpus, none, 4, tries, "MPIJob x failed",
					       NULL, results, findings) < 0);
	assert_non_null(strstr(str(json_array_get(findings, 1), "message"), "MPIJob x failed"));
	assert_int_equal(json_array_size(results), 3);
	json_decref(results);
	json_decref(findings);
	json_decref(tries);
	validate_cfg_release(&cfg);
}

/* A health pod's log (facts framing around a real nvidia-smi -q capture). */
static char *health_log(const char *fixture)
{
	size_t len;
	char *q = slurp(fixture, &len), *log;

	log = xasprintf("\n::bringup-fact:: nvidia-smi-q\n%s\n::bringup-rc:: nvidia-smi-q 0\n", q);
	free(q);
	return log;
}

/* The throttled GPU is named as the subject, as precheck names it; a pod without a log fails its node. */
static void test_health_judge(void **state)
{
	const char *y = "cluster: { name: t }\n"
			"hardware:\n  dgx: { gpus: { count: 8, model: H100 } }\n"
			"hosts:\n  dgx01: { address: 127.0.0.1, hardware: dgx }\n"
			"  dgx02: { address: 127.0.0.2, hardware: dgx }\n"
			"  dgx03: { address: 127.0.0.3, hardware: dgx }\n"
			"groups:\n  gpu_worker: { hosts: \"dgx0[1-3]\" }\n";
	struct inventory *inv = NULL;
	struct err err = ERR_INIT;
	char *good = health_log("tests/fixtures/tools/nvidia-smi-q/a100_sxm4_8x_460_healthy_full.txt");
	char *slow = health_log("tests/fixtures/tools/nvidia-smi-q/h100_8x_535_hw_slowdown_active_degraded.txt");
	json_t *results = json_array(), *findings = json_array(), *f;
	size_t i;
	bool named = false;

	(void)state;
	if (inventory_load_buf("t.yaml", y, strlen(y), &inv, &err))
		fail_msg("inventory: %s", err_msg(&err));
	{
		const struct host *hosts[3] = { &inv->hosts[0], &inv->hosts[1], &inv->hosts[2] };
		const char *logs[3] = { good, slow, NULL };
		const char *errors[3] = { NULL, NULL, "Job adas/h did not finish in 300 s" };

		validate_kube_health_judge(inv, hosts, logs, errors, 3, results, findings);
	}
	json_array_foreach(findings, i, f) {
		assert_string_not_equal(str(f, "host"), "dgx01");
		if (!strcmp(str(f, "host"), "dgx02") && strstr(str(f, "message"), "gpu.throttle")) {
			assert_non_null(str(f, "subject"));
			assert_non_null(strstr(str(f, "subject"), "GPU "));
			named = true;
		}
		if (!strcmp(str(f, "host"), "dgx03"))
			assert_non_null(strstr(str(f, "message"), "did not finish"));
	}
	assert_true(named);
	assert_true(json_array_size(results) > 0);
	json_decref(results);
	json_decref(findings);
	free(good);
	free(slow);
	inventory_free(inv);
}

static void test_supported_stages(void **state)
{
	(void)state;
	assert_true(validate_kube_supports(VSTAGE_NCCL));
	assert_true(validate_kube_supports(VSTAGE_RESNET));
	assert_false(validate_kube_supports(VSTAGE_RDMA));
	assert_false(validate_kube_supports(VSTAGE_STORAGE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvlink_capture_passes),
		cmocka_unit_test(test_socket_fallback_fails),
		cmocka_unit_test(test_no_or_bad_output_fails),
		cmocka_unit_test(test_resnet_parse),
		cmocka_unit_test(test_resnet_judge_node),
		cmocka_unit_test(test_health_judge),
		cmocka_unit_test(test_supported_stages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

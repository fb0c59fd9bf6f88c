/* engine/precheck/check-scale.c: verbs RDMA judged from the running daemon
 * against the configuration; running values against configured ones. */
#include "parse-fixture.h"

#include "../../engine/precheck/check-scale.h"

static json_t *parsed(int (*fn)(const char *, size_t, json_t **, struct err *), const char *text)
{
	struct err err = ERR_INIT;
	json_t *j = NULL;

	if (fn(text, strlen(text), &j, &err))
		fail_msg("parse: %s", err_msg(&err));
	return j;
}

#define DIAG "\n=== mmdiag: config ===\n"
/* the sim's [dgx] stanza, a node's own stanza and a two-node one */
static const char lsconfig[] =
	"Configuration data for cluster dgx01.sim:\n"
	"-----------------------------------------\n"
	"clusterName dgx01.sim\nclusterId 835838000000000001\nautoload no\n"
	"[dgx03]\npagepool 1G\n"
	"[dgx01,dgx02]\nverbsPorts mlx5_0/1\n"
	"[dgx]\nverbsRdma enable\nverbsPorts mlx5_0/1 mlx5_1/1\npagepool 16G\n"
	"workerThreads 2048\nmaxFilesToCache 1M\n"
	"[common]\nmaxMBpS 2048\nadminMode central\n";

static const char net_none[] = "\n=== mmdiag: network ===\n\nPending messages:\n  (none)\n"
	"RDMA Connections between nodes:\n  (none)\n";

/* The node: mmlsconfig says verbsRdma enable, the daemon runs
 * without it. FAIL (it used to be a skip, which counts as a pass). */
static void test_configured_on_running_off_fails(void **state)
{
	json_t *cfg = parsed(parse_mmdiag_config, DIAG "   verbsRdma disable\n ! pagepool 17179869184\n");
	json_t *net = parsed(parse_mmdiag_network, net_none);
	json_t *lsc = parsed(parse_mmlsconfig, lsconfig);
	struct strbuf why = STRBUF_INIT, ok = STRBUF_INIT;
	const char *want = scale_config_for(lsc, "dgx04", "dgx", "verbsRdma");

	(void)state;
	assert_string_equal(want, "enable");
	assert_int_equal(scale_rdma_judge(cfg, net, want, "disabled", false, &why, &ok),
			 SCALE_RDMA_BAD);
	assert_non_null(strstr(why.buf, "verbsRdma is enable in the configuration (mmlsconfig) "
				       "but the running daemon has verbsRdma disable"));
	assert_non_null(strstr(why.buf, "mmfsadm test verbs status: disabled"));
	/* neither the configuration nor the daemon enables it: nothing to prove */
	strbuf_reset(&why);
	assert_int_equal(scale_rdma_judge(cfg, net, "disable", NULL, false, &why, &ok),
			 SCALE_RDMA_OFF);
	strbuf_reset(&why);
	assert_int_equal(scale_rdma_judge(cfg, net, NULL, NULL, false, &why, &ok), SCALE_RDMA_OFF);
	json_decref(cfg);
	json_decref(net);
	json_decref(lsc);
	strbuf_release(&why);
	strbuf_release(&ok);
}

/* The daemon's own word (real captures: treydock/gpfs_exporter
 * collectors/verbs_test.go, tests/fixtures/tools/SOURCES.md) wins. */
static void test_verbs_status_not_started_fails(void **state)
{
	json_t *cfg = parsed(parse_mmdiag_config, DIAG " ! verbsRdma enable\n ! verbsPorts mlx5_0/1\n");
	json_t *net = parsed(parse_mmdiag_network, net_none);
	struct strbuf why = STRBUF_INIT, ok = STRBUF_INIT, out = STRBUF_INIT, st = STRBUF_INIT;

	(void)state;
	fixture_read("../other-tools/mmfsadm-verbs", "verbs_status_started.txt", &out);
	assert_true(scale_verbs_status(out.buf, &st));
	assert_string_equal(st.buf, "started");
	strbuf_reset(&out);
	strbuf_reset(&st);
	fixture_read("../other-tools/mmfsadm-verbs", "verbs_status_disabled.txt", &out);
	assert_true(scale_verbs_status(out.buf, &st));
	assert_string_equal(st.buf, "disabled");
	assert_false(scale_verbs_status("mmfsadm: The GPFS daemon is not running.\n", &out));
	assert_int_equal(scale_rdma_judge(cfg, net, "enable", st.buf, false, &why, &ok),
			 SCALE_RDMA_BAD);
	assert_non_null(strstr(why.buf, "verbs RDMA not started: data goes over TCP"));
	assert_non_null(strstr(why.buf, "(mmfsadm test verbs status: \"disabled\")"));
	json_decref(cfg);
	json_decref(net);
	strbuf_release(&why);
	strbuf_release(&ok);
	strbuf_release(&out);
	strbuf_release(&st);
}

/* A node's own stanza, alone or in a list, over its class's, over [common]. */
static void test_stanza_precedence(void **state)
{
	json_t *lsc = parsed(parse_mmlsconfig, lsconfig);

	(void)state;
	assert_string_equal(scale_config_for(lsc, "dgx03", "dgx", "pagepool"), "1G");
	assert_string_equal(scale_config_for(lsc, "dgx04", "dgx", "pagepool"), "16G");
	assert_string_equal(scale_config_for(lsc, "dgx02", "dgx", "verbsPorts"), "mlx5_0/1");
	assert_string_equal(scale_config_for(lsc, "dgx02.ocp4.sim", "dgx", "verbsPorts"),
			    "mlx5_0/1");
	assert_string_equal(scale_config_for(lsc, "dgx12", "dgx", "verbsPorts"), "mlx5_0/1 mlx5_1/1");
	assert_string_equal(scale_config_for(lsc, "dgx04", NULL, "maxMBpS"), "2048");
	/* a node outside the class gets [common] only */
	assert_null(scale_config_for(lsc, "gpu01", "gpu", "pagepool"));
	json_decref(lsc);
}

static void test_values_compare_as_gpfs_does(void **state)
{
	(void)state;
	assert_true(scale_config_same("16G", "17179869184"));
	assert_true(scale_config_same("1M", "1048576"));
	assert_true(scale_config_same("yes", "1"));
	assert_true(scale_config_same("enable", "yes"));
	assert_true(scale_config_same("mlx5_0/1 mlx5_1/1", "mlx5_0/1 mlx5_1/1"));
	assert_false(scale_config_same("2048", "1024"));
	assert_false(scale_config_same("16G", "1073741824"));
	assert_false(scale_config_same("enable", "disable"));
	assert_false(scale_config_same("mlx5_0/1", "mlx5_0/1 mlx5_1/1"));
}

/* The node: workerThreads 1024 running against 2048 configured. */
static void test_running_against_configured(void **state)
{
	json_t *lsc = parsed(parse_mmlsconfig, lsconfig);
	json_t *cfg = parsed(parse_mmdiag_config, DIAG "   clusterName other\n"
			     " ! maxFilesToCache 1048576\n   maxMBpS 2048\n ! pagepool 17179869184\n"
			     " ! verbsPorts mlx5_0/1 mlx5_1/1\n ! verbsRdma enable\n"
			     " ! workerThreads 1024\n");
	struct strbuf out = STRBUF_INIT;

	(void)state;
	assert_int_equal(scale_config_drift(lsc, cfg, "dgx04", "dgx", &out), 1);
	assert_string_equal(out.buf, "workerThreads configured 2048, running 1024");
	/* dgx03's own pagepool 1G runs as 16G; dgx01's verbsPorts stanza too */
	strbuf_reset(&out);
	assert_int_equal(scale_config_drift(lsc, cfg, "dgx03", "dgx", &out), 2);
	assert_non_null(strstr(out.buf, "pagepool configured 1G, running 17179869184"));
	strbuf_reset(&out);
	assert_int_equal(scale_config_drift(lsc, cfg, "dgx01", "dgx", &out), 2);
	assert_non_null(strstr(out.buf, "verbsPorts configured mlx5_0/1, running mlx5_0/1 mlx5_1/1"));
	json_decref(lsc);
	json_decref(cfg);
	strbuf_release(&out);
}

/* pagepool against MemTotal: the class's gpfs_config, pagepoolMaxPhysMemPct honoured. */
static void test_pagepool_judge(void **state)
{
	json_t *vars = json_loads("{\"gpfs_nodeclass\": \"dgx\", \"gpfs_config\": "
				  "{\"pagepool\": \"2T\"}, \"gpfs_common_config\": "
				  "{\"pagepool\": \"1G\"}}", 0, NULL);
	struct scale_pagepool pp;
	char h[32];

	(void)state;
	/* 24 GB nodes (the issue's): 2T is far over 75% */
	assert_int_equal(scale_pagepool_judge(vars, 24683620, &pp), SCALE_PP_OVER);
	assert_string_equal(pp.var, "gpfs_config");
	assert_string_equal(pp.value, "2T");
	assert_int_equal(pp.pct, 75);
	scale_size_human(pp.limit, h, sizeof(h));
	assert_string_equal(h, "17.7G");
	/* no class: gpfs_config does not apply, [common]'s 1G does */
	json_object_del(vars, "gpfs_nodeclass");
	assert_int_equal(scale_pagepool_judge(vars, 24683620, &pp), SCALE_PP_OK);
	assert_string_equal(pp.var, "gpfs_common_config");
	/* a larger share, and values that are not GPFS's */
	json_object_set_new(json_object_get(vars, "gpfs_common_config"), "pagepool",
			    json_string("20G"));
	assert_int_equal(scale_pagepool_judge(vars, 24683620, &pp), SCALE_PP_OVER);
	json_object_set_new(json_object_get(vars, "gpfs_common_config"), "pagepoolMaxPhysMemPct",
			    json_integer(90));
	assert_int_equal(scale_pagepool_judge(vars, 24683620, &pp), SCALE_PP_OK);
	json_object_set_new(json_object_get(vars, "gpfs_common_config"), "pagepoolMaxPhysMemPct",
			    json_integer(95));
	assert_int_equal(scale_pagepool_judge(vars, 24683620, &pp), SCALE_PP_BAD_PCT);
	json_object_set_new(json_object_get(vars, "gpfs_common_config"), "pagepool",
			    json_string("lots"));
	assert_int_equal(scale_pagepool_judge(vars, 24683620, &pp), SCALE_PP_BAD_VALUE);
	json_object_clear(vars);
	assert_int_equal(scale_pagepool_judge(vars, 24683620, &pp), SCALE_PP_NONE);
	json_decref(vars);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pagepool_judge),
		cmocka_unit_test(test_configured_on_running_off_fails),
		cmocka_unit_test(test_verbs_status_not_started_fails),
		cmocka_unit_test(test_stanza_precedence),
		cmocka_unit_test(test_values_compare_as_gpfs_does),
		cmocka_unit_test(test_running_against_configured),
	};
	return cmocka_run_group_tests_name("check-scale", tests, NULL, NULL);
}

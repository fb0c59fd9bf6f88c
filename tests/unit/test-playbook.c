/*
 * engine/deploy/playbook.c: every key parsed into the typed stage, each kind of
 * mistake reported at its FILE:LINE:COL (tests/fixtures/playbooks), hosts
 * resolved against an inventory, parameters merged default < inventory
 * variable < playbook, and the shipped playbooks/deploy.yaml loads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/inventory/inventory.h"
#include "../../engine/deploy/playbook.h"
#include "../../engine/deploy/module.h"

#define FIX "tests/fixtures/playbooks/"

static const char inv_yaml[] =
	"cluster:\n"
	"  name: t\n"
	"  vars: { memlock_limit: 1024, want_limits: false }\n"
	"hosts:\n"
	"  dgx[01-04]: { address: \"10.0.0.[1-4]\" }\n"
	"  dgx05: { address: 10.0.0.5, vars: { memlock_limit: 2048 } }\n"
	"groups:\n"
	"  gpu_worker: { hosts: \"dgx[01-05]\" }\n"
	"  sm_host: { hosts: dgx01 }\n"
	"  scale_client: { hosts: \"dgx[01-05]\" }\n"
	"  scale_quorum: { hosts: \"dgx[01-03]\" }\n"
	"  scale_manager: { hosts: dgx01 }\n";

static struct inventory *inv_new(const char *yaml)
{
	struct inventory *inv = NULL;
	struct err e = ERR_INIT;

	if (inventory_load_buf("inv.yaml", yaml, strlen(yaml), &inv, &e))
		fail_msg("inventory: %s", err_msg(&e));
	return inv;
}

static int load(const char *path, struct playbook **pb, struct err *e)
{
	return playbook_load(path, stage_modules, stage_nmodules, pb, e);
}

static void test_full_playbook(void **state)
{
	struct playbook *pb = NULL;
	struct inventory *inv = inv_new(inv_yaml);
	struct err e = ERR_INIT;
	const struct stage *s;

	(void)state;
	assert_int_equal(load(FIX "full.yaml", &pb, &e), 0);
	assert_string_equal(pb->name, "full");
	assert_int_equal(pb->nstages, 2);
	s = &pb->stages[0];
	assert_string_equal(s->name, "limits");
	assert_string_equal(s->module->name, "memlock");
	assert_string_equal(s->hosts, "gpu_worker,dgx[01-02]");
	assert_int_equal(s->serial, 25);
	assert_true(s->serial_percent);
	assert_int_equal(s->max_fail_percent, 10);
	assert_int_equal(s->tags.n, 2);
	assert_string_equal(s->tags.v[1], "limits");
	assert_int_equal(s->nparams, 3);
	assert_false(s->run_once);
	s = &pb->stages[1];
	assert_string_equal(s->name, "blacklist");
	assert_int_equal(s->ndepends, 1);
	assert_int_equal(s->depends[0], 0);
	assert_true(s->run_once);
	assert_int_equal(s->max_fail_percent, -1);
	assert_int_equal(s->tags.n, 1);

	assert_int_equal(playbook_resolve(pb, inv, &e), 0);
	assert_int_equal(pb->stages[0].nhosts, 5);
	assert_int_equal(pb->stages[1].nhosts, 1);
	assert_int_equal(playbook_stage_index(pb, "blacklist"), 1);
	assert_int_equal(playbook_stage_index(pb, "nope"), -1);
	playbook_free(pb);
	inventory_free(inv);
}

/* Each fixture's message, from its first byte: file, line, column, then what. */
static void expect_error(const char *file, int code, const char *want)
{
	struct playbook *pb = NULL;
	struct inventory *inv = inv_new(inv_yaml);
	struct err e = ERR_INIT;
	int rc = load(file, &pb, &e);

	if (!rc)
		rc = playbook_resolve(pb, inv, &e);
	assert_int_equal(rc, code);
	if (strncmp(err_msg(&e), want, strlen(want)))
		fail_msg("%s: got '%s', want '%s...'", file, err_msg(&e), want);
	err_clear(&e);
	playbook_free(pb);
	inventory_free(inv);
}

static void test_errors_point_into_the_file(void **state)
{
	(void)state;
	expect_error(FIX "bad-key.yaml", ERR_INVENTORY, FIX "bad-key.yaml:8:5: unknown key 'host' "
		     "in stage 2 (did you mean 'hosts'?");
	expect_error(FIX "bad-module.yaml", ERR_INVENTORY, FIX "bad-module.yaml:3:13: unknown "
		     "module 'memlok' in stage 1 (did you mean 'memlock'?; expected one of: "
		     "gpu_driver, kube_node, memlock, nouveau, ofed, openshift, peermem, scale_cluster, scale_install, scale_node, scale_preflight, scale_rdma, "
		     "scale_remote_mount, scale_tune, selinux_ib, subnet_manager, validate)");
	expect_error(FIX "bad-param.yaml", ERR_INVENTORY, FIX "bad-param.yaml:6:14: found 'lots' "
		     "for parameter 'limit' of module 'memlock', expected 'unlimited' or a size");
	expect_error(FIX "bad-param-name.yaml", ERR_INVENTORY, FIX "bad-param-name.yaml:6:7: "
		     "unknown parameter 'limits' in 'params' of stage 'memlock' (did you mean 'limit'?");
	expect_error(FIX "empty-group.yaml", ERR_INVENTORY, FIX "empty-group.yaml:3:5: stage "
		     "'nouveau' runs on group 'ib_switch', which has no hosts");
	expect_error(FIX "bad-depends.yaml", ERR_INVENTORY, FIX "bad-depends.yaml:5:14: stage "
		     "'memlock' depends on 'nouveau', expected the name of an earlier stage");
	expect_error(FIX "no-such-file.yaml", ERR_IO, "cannot open playbook");
}

static void expect_buf_error(const char *yaml, const char *want)
{
	struct playbook *pb = NULL;
	struct err e = ERR_INIT;
	int rc = playbook_load_buf("p.yaml", yaml, strlen(yaml), stage_modules, stage_nmodules,
				   &pb, &e);

	assert_int_not_equal(rc, 0);
	assert_null(pb);
	if (!strstr(err_msg(&e), want))
		fail_msg("got '%s', want '%s'", err_msg(&e), want);
	err_clear(&e);
}

static void test_more_mistakes(void **state)
{
	(void)state;
	expect_buf_error("stages:\n  - module: memlock\n    hosts: x\n    serial: 0\n",
			 "p.yaml:4:13: found '0' for 'serial' of stage 'memlock'");
	expect_buf_error("stages:\n  - module: memlock\n    hosts: x\n    serial: 120%\n",
			 "expected a number of hosts (1 or more) or a percentage");
	expect_buf_error("stages:\n  - module: memlock\n    hosts: x\n    max_fail_percent: 101\n",
			 "p.yaml:4:23: found '101' for 'max_fail_percent'");
	expect_buf_error("stages:\n  - module: memlock\n    hosts: x\n    run_once: maybe\n",
			 "p.yaml:4:15: found 'maybe' for 'run_once', expected true or false");
	expect_buf_error("stages:\n  - module: memlock\n", "p.yaml:2:5: found no key 'hosts'");
	expect_buf_error("stages:\n  - module: memlock\n    hosts: x\n    local: true\n",
			 "found 'hosts' in local stage 'memlock'");
	expect_buf_error("stages:\n  - module: memlock\n    hosts: x\n  - module: memlock\n    hosts: y\n",
			 "p.yaml:4:5: duplicate stage name 'memlock'");
	expect_buf_error("stages: []\n", "found no stages");
	expect_buf_error("stage:\n  - module: memlock\n", "unknown key 'stage' in the playbook "
			 "(did you mean 'stages'?");
	expect_buf_error("", "found an empty playbook");
	expect_buf_error("stages:\n  - module: memlock\n    hosts: [x\n", "p.yaml:");
	expect_buf_error("stages:\n  - module: memlock\n    hosts: x\n    params: { crio: yes please }\n",
			 "expected true or false");
}

static void test_params_merge_in_layers(void **state)
{
	static const char yaml[] =
		"stages:\n"
		"  - module: memlock\n"
		"    hosts: gpu_worker\n"
		"    params: { limits_d: \"{{ want_limits }}\" }\n"
		"  - name: fixed\n"
		"    module: memlock\n"
		"    hosts: gpu_worker\n"
		"    params: { limit: unlimited }\n";
	struct inventory *inv = inv_new(inv_yaml);
	struct playbook *pb = NULL;
	struct err e = ERR_INIT;
	json_t *p;

	(void)state;
	assert_int_equal(playbook_load_buf("p.yaml", yaml, strlen(yaml), stage_modules,
					   stage_nmodules, &pb, &e), 0);
	assert_int_equal(playbook_resolve(pb, inv, &e), 0);
	/* dgx01: the cluster's variable beats the default; "{{ var }}" is looked up. */
	p = stage_params(pb, &pb->stages[0], inventory_host(inv, "dgx01"), &e);
	assert_non_null(p);
	assert_int_equal(json_integer_value(json_object_get(p, "limit")), 1024);
	assert_true(json_is_false(json_object_get(p, "limits_d")));
	assert_true(json_is_true(json_object_get(p, "crio")));
	json_decref(p);
	/* dgx05: its own variable beats the cluster's. */
	p = stage_params(pb, &pb->stages[0], inventory_host(inv, "dgx05"), &e);
	assert_int_equal(json_integer_value(json_object_get(p, "limit")), 2048);
	json_decref(p);
	/* The playbook's own value beats both. */
	p = stage_params(pb, &pb->stages[1], inventory_host(inv, "dgx05"), &e);
	assert_string_equal(json_string_value(json_object_get(p, "limit")), "unlimited");
	json_decref(p);
	playbook_free(pb);
	inventory_free(inv);
}

static void test_bad_inventory_variable_is_caught_at_resolve(void **state)
{
	static const char yaml[] = "stages:\n  - module: memlock\n    hosts: gpu_worker\n"
				   "    params: { crio: \"{{ missing }}\" }\n";
	struct inventory *inv = inv_new(inv_yaml);
	struct playbook *pb = NULL;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(playbook_load_buf("p.yaml", yaml, strlen(yaml), stage_modules,
					   stage_nmodules, &pb, &e), 0);
	assert_int_equal(playbook_resolve(pb, inv, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "p.yaml:4:21: parameter 'crio' of stage 'memlock' "
				"refers to variable 'missing', which host dgx01 does not have"));
	err_clear(&e);
	playbook_free(pb);
	inventory_free(inv);
}

static void expect_ok_smnode(const char *name)
{
	char *yaml = NULL;
	struct playbook *pb = NULL;
	struct err e = ERR_INIT;

	assert_true(asprintf(&yaml, "stages:\n  - module: subnet_manager\n    hosts: sm_host\n"
			     "    params: { smnode: %s }\n", name) > 0);
	if (playbook_load_buf("p.yaml", yaml, strlen(yaml), stage_modules, stage_nmodules,
			      &pb, &e))
		fail_msg("%s: %s", name, err_msg(&e));
	playbook_free(pb);
	free(yaml);
}

/*
 * smnode reaches switch CLI lines ("ib smnode NAME enable"): a control
 * character or blank is refused before anything is sent, naming the
 * parameter (and the inventory variable when it came from one).
 */
static void test_switch_smnode_is_validated(void **state)
{
	static const char yaml[] = "stages:\n  - module: subnet_manager\n    hosts: sm_host\n"
				   "    params: { backend: switch }\n";
	static const char *const inv_bad =
		"cluster:\n  name: t\n  vars: { sm_smnode: \"sw1;reload\" }\n"
		"hosts:\n  dgx01:\ngroups:\n  sm_host: { hosts: dgx01 }\n";
	struct inventory *inv = inv_new(inv_bad);
	struct playbook *pb = NULL;
	struct err e = ERR_INIT;

	(void)state;
	expect_buf_error("stages:\n  - module: subnet_manager\n    hosts: sm_host\n"
			 "    params: { backend: switch, smnode: \"sw\\e[2Kx\" }\n",
			 "p.yaml:4:41: found control character 0x1B as character 3 of "
			 "'sw\\x1b[2Kx', expected text without control characters (tab and "
			 "newline allowed)");
	expect_buf_error("stages:\n  - module: subnet_manager\n    hosts: sm_host\n"
			 "    params: { smnode: sw1 enable }\n",
			 "for parameter 'smnode' of module 'subnet_manager', expected a "
			 "switch SM node name");
	assert_int_equal(playbook_load_buf("p.yaml", yaml, strlen(yaml), stage_modules,
					   stage_nmodules, &pb, &e), 0);
	assert_int_equal(playbook_resolve(pb, inv, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "p.yaml:2:5: stage 'subnet_manager': inventory variable 'sm_smnode' of host dgx01 "
			       "(parameter 'smnode' of module 'subnet_manager') is not a "
			       "switch SM node name"));
	err_clear(&e);
	playbook_free(pb);
	inventory_free(inv);
	/* what the simulated switch and real ones are called passes */
	expect_ok_smnode("ibsw01");
	expect_ok_smnode("core-sw1.fabric_a");
}

static void test_shipped_deploy_playbook_loads(void **state)
{
	struct playbook *pb = NULL;
	struct inventory *inv = inv_new(inv_yaml);
	struct err e = ERR_INIT;

	(void)state;
	if (load("playbooks/deploy.yaml", &pb, &e))
		fail_msg("%s", err_msg(&e));
	assert_string_equal(pb->name, "deploy");
	/* The Redpaper's order among the stages that exist. */
	assert_true(playbook_stage_index(pb, "selinux_ib") < playbook_stage_index(pb, "memlock"));
	assert_true(playbook_stage_index(pb, "memlock") < playbook_stage_index(pb, "nouveau"));
	assert_int_equal(playbook_resolve(pb, inv, &e), 0);
	playbook_free(pb);
	inventory_free(inv);
}

/* Loads a playbook from text and resolves it: the error wanted, or none (NULL). */
static void resolve_buf(const char *inv_text, const char *yaml, const char *want)
{
	struct playbook *pb = NULL;
	struct inventory *inv = inv_new(inv_text);
	struct err e = ERR_INIT;
	int rc = playbook_load_buf("p.yaml", yaml, strlen(yaml), stage_modules, stage_nmodules,
				   &pb, &e);

	if (!rc)
		rc = playbook_resolve(pb, inv, &e);
	if (!want && rc)
		fail_msg("unexpected error: %s", err_msg(&e));
	if (want && (!rc || !strstr(err_msg(&e), want)))
		fail_msg("got '%s', want '%s'", err_msg(&e), want);
	err_clear(&e);
	playbook_free(pb);
	inventory_free(inv);
}

/*
 * A cluster without Spectrum Scale: the built-in playbook's scale stages
 * are optional, so their empty groups leave them without hosts instead of
 * failing the load; a stage that is not optional still fails.
 */
static void test_optional_stage_with_empty_group_has_no_hosts(void **state)
{
	static const char no_scale[] =
		"cluster: { name: t }\n"
		"hosts:\n"
		"  dgx[01-02]: { address: \"10.0.0.[1-2]\" }\n"
		"groups:\n"
		"  gpu_worker: { hosts: \"dgx[01-02]\" }\n"
		"  sm_host: { hosts: dgx01 }\n";
	struct playbook *pb = NULL;
	struct inventory *inv = inv_new(no_scale);
	struct err e = ERR_INIT;
	int i;

	(void)state;
	if (load("playbooks/deploy.yaml", &pb, &e))
		fail_msg("%s", err_msg(&e));
	if (playbook_resolve(pb, inv, &e))
		fail_msg("%s", err_msg(&e));
	i = playbook_stage_index(pb, "scale_install");
	assert_true(i >= 0);
	assert_true(pb->stages[i].optional);
	assert_int_equal(pb->stages[i].nhosts, 0);
	assert_int_equal(pb->stages[playbook_stage_index(pb, "ofed")].nhosts, 2);
	playbook_free(pb);
	inventory_free(inv);
	resolve_buf(no_scale, "stages:\n  - module: nouveau\n    hosts: gpu_worker,ib_switch\n"
		    "    optional: true\n", NULL);
	resolve_buf(no_scale, "stages:\n  - module: nouveau\n    hosts: ib_switch\n",
		    "p.yaml:2:5: stage 'nouveau' runs on group 'ib_switch', which has no hosts");
}

/* A YAML graph (found by fuzzing) is refused before any stage is read. */
static void test_alias_cycles_and_depth_are_refused(void **state)
{
	(void)state;
	expect_buf_error("stages:\n  - module: memlock\n    hosts:\n"
			 "    params: { limit: &a [*a]}",
			 "p.yaml:4:22: found an alias to the anchored node at line 4, "
			 "column 22 inside that node, expected an alias outside its "
			 "anchor (no cycles)");
	expect_buf_error("stages:\n  - module: memlock\n    hosts:\n"
			 "    params: { limit: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
			 "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
			 "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[}",
			 "found values nested more than 128 deep, expected at most 128");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_playbook),
		cmocka_unit_test(test_errors_point_into_the_file),
		cmocka_unit_test(test_more_mistakes),
		cmocka_unit_test(test_params_merge_in_layers),
		cmocka_unit_test(test_bad_inventory_variable_is_caught_at_resolve),
		cmocka_unit_test(test_shipped_deploy_playbook_loads),
		cmocka_unit_test(test_optional_stage_with_empty_group_has_no_hosts),
		cmocka_unit_test(test_alias_cycles_and_depth_are_refused),
		cmocka_unit_test(test_switch_smnode_is_validated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

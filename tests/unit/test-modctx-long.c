/*
 * engine/modctx.c, the parts for long commands and reboots, run on this
 * machine (a local stage): a command given its own timeout is stopped
 * there, and the error names the host, the stage and the command; the
 * inventory's timeout comes back for the next command; a reboot is refused
 * outside apply and on the admin host, before anything runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "../../engine/modctx.h"
#include "../../modules/module.h"

struct local {
	struct mod_ctx mc;
	struct err err;
	json_t *params;
};

static void local_init(struct local *l)
{
	memset(l, 0, sizeof(*l));
	mod_ctx_init(&l->mc);
	l->params = json_object();
	l->mc.host = "adminhost";
	l->mc.stage = "ofed";
	l->mc.local = true;
	l->mc.params = l->params;
	l->mc.err = &l->err;
	l->mc.timeout_s = 30;
	l->mc.phase = PHASE_APPLY;
}

static void local_release(struct local *l)
{
	mod_ctx_release(&l->mc);
	json_decref(l->params);
	err_clear(&l->err);
}

static void test_exec_timeout_stops_and_names(void **state)
{
	static const char *const slow[] = { "sleep", "20", NULL };
	static const char *const quick[] = { "sh", "-c", "sleep 1; echo done", NULL };
	struct local l;
	struct cmd_result res;
	int rc;

	(void)state;
	local_init(&l);
	rc = mod_exec_timeout(&l.mc, slow, NULL, 1, &res);
	assert_int_equal(rc, ERR_TIMEOUT);
	assert_true(res.duration_s < 10);
	assert_non_null(strstr(err_msg(&l.err), "timed out after "));
	assert_non_null(strstr(err_msg(&l.err), " s (limit 1 s) on adminhost (stage ofed): "
				"'sleep' '20'"));
	cmd_result_release(&res);
	/* The limit was for that command only. */
	assert_int_equal(l.mc.timeout_s, 30);
	err_clear(&l.err);
	rc = mod_exec(&l.mc, quick, NULL, &res);
	assert_int_equal(rc, 0);
	assert_string_equal(res.out.buf, "done\n");
	cmd_result_release(&res);
	local_release(&l);
}

static void test_reboot_refused_locally(void **state)
{
	struct local l;

	(void)state;
	local_init(&l);
	assert_int_equal(mod_reboot(&l.mc, 5), ERR_INTERNAL);
	assert_non_null(strstr(err_msg(&l.err), "stage ofed: a reboot is only possible in apply, "
				"on a remote host"));
	assert_string_equal(mod_errmsg(&l.mc), err_msg(&l.err));
	local_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_timeout_stops_and_names),
		cmocka_unit_test(test_reboot_refused_locally),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

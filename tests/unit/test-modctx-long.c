/*
 * engine/deploy/modctx.c, the parts for long commands and reboots, run on this
 * machine (a local stage): a command given its own timeout is stopped
 * there, and the error names the host, the stage and the command; the
 * inventory's timeout comes back for the next command; input and output
 * flow together (no pipe deadlock); a timeout kills the command's whole
 * process group; a reboot is refused outside apply and on the admin host,
 * before anything runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/deploy/modctx.h"
#include "../../engine/deploy/module.h"

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

/* More input than a pipe holds, to a command that answers as it reads:
 * writing all input before reading any output deadlocks here. */
static void test_local_input_and_output_do_not_deadlock(void **state)
{
	static const char *const cat[] = { "sh", "-c", "cat; echo read-all >&2", NULL };
	size_t n = 600 * 1024;
	char *big = malloc(n + 1);
	struct local l;
	struct cmd_result res;

	(void)state;
	memset(big, 'x', n);
	big[n] = '\0';
	local_init(&l);
	alarm(60); /* a deadlock fails the test rather than hanging it */
	assert_int_equal(mod_exec(&l.mc, cat, big, &res), 0);
	alarm(0);
	assert_int_equal(res.exit_status, 0);
	assert_int_equal(res.out.len, n);
	assert_string_equal(res.err.buf, "read-all\n");
	cmd_result_release(&res);
	local_release(&l);
	free(big);
}

/* A process's state letter from /proc, or 0 once it is gone. */
static char proc_state(long pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : 0;
}

/* A timeout stops what the command started, not only its shell. */
static void test_local_timeout_kills_the_process_group(void **state)
{
	char tmpl[] = "/tmp/test-modctx-XXXXXX", pidfile[64], script[256];
	const char *argv[] = { "sh", "-c", script, NULL };
	struct local l;
	struct cmd_result res;
	long child = 0;
	FILE *f;
	char st = 'S';

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(pidfile, sizeof(pidfile), "%s/pid", tmpl);
	snprintf(script, sizeof(script), "sleep 30 & echo $! >%s; wait", pidfile);
	local_init(&l);
	assert_int_equal(mod_exec_timeout(&l.mc, argv, NULL, 1, &res), ERR_TIMEOUT);
	cmd_result_release(&res);
	assert_non_null(f = fopen(pidfile, "r"));
	assert_int_equal(fscanf(f, "%ld", &child), 1);
	fclose(f);
	/* Killed: gone, or a zombie until whoever inherited it reaps it. */
	for (int i = 0; i < 100 && (st = proc_state(child)) && st != 'Z'; i++)
		usleep(100 * 1000);
	if (st && st != 'Z')
		kill((pid_t)child, SIGKILL);
	assert_true(!st || st == 'Z');
	unlink(pidfile);
	rmdir(tmpl);
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
		cmocka_unit_test(test_local_input_and_output_do_not_deadlock),
		cmocka_unit_test(test_local_timeout_kills_the_process_group),
		cmocka_unit_test(test_reboot_refused_locally),
	};
	/* As bringup's main does: a command that stops reading is not our death. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

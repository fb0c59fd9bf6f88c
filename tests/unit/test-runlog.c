/*
 * engine/rundir/runlog.c: a command's record in hosts/HOST.log carries the command,
 * its exit status, duration and output, with every secret the inventory
 * holds (values under password/secret/token... keys) redacted; run ids and
 * the `last` link.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/rundir/runlog.h"
#include "../../engine/base/xalloc.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[8192];
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return xstrdup(buf);
}

static void test_records_are_redacted(void **state)
{
	char dir[] = "/tmp/bringup-test-runlog.XXXXXX";
	json_t *vars = json_pack("{s:s, s:{s:s, s:[s]}, s:s, s:s}",
				 "ocp_pull_secret", "pullsecret-XYZ",
				 "bmc", "password", "hunter22", "api_tokens", "tok-123456",
				 "cluster_name", "visible-value", "short_password", "abc");
	struct runlog *rl = NULL;
	struct cmd_result res;
	struct err e = ERR_INIT;
	char *path, *text;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(runlog_open(dir, &rl, &e), 0);
	runlog_add_secrets_from(rl, vars);
	cmd_result_init(&res);
	res.exit_status = 3;
	res.duration_s = 0.25;
	strbuf_addstr(&res.out, "login with hunter22 ok\nvisible-value");
	strbuf_addstr(&res.err, "token tok-123456 expired\n");
	runlog_command(rl, "dgx01", "memlock", "echo pullsecret-XYZ | login", &res, NULL);
	runlog_command(rl, "dgx01", "memlock", "never ran", NULL, "interrupted before: hunter22");
	path = xasprintf("%s/hosts/dgx01.log", dir);
	text = slurp(path);
	assert_null(strstr(text, "hunter22"));
	assert_null(strstr(text, "pullsecret-XYZ"));
	assert_null(strstr(text, "tok-123456"));
	assert_non_null(strstr(text, " memlock dgx01\n$ echo ******** | login\nexit 3 in 0.250 s\n"
				"--- stdout\nlogin with ******** ok\nvisible-value\n"
				"--- stderr\ntoken ******** expired\n"));
	assert_non_null(strstr(text, "$ never ran\nnot run: interrupted before: ********\n"));
	/* Too short to redact without hiding every "abc" in every log. */
	assert_null(strstr(text, "abc"));
	{
		struct strbuf sb = STRBUF_INIT;

		runlog_redact(rl, "x abc y", 7, &sb);
		assert_string_equal(sb.buf, "x abc y");
		strbuf_release(&sb);
	}
	cmd_result_release(&res);
	unlink(path);
	free(path);
	free(text);
	path = xasprintf("%s/hosts", dir);
	rmdir(path);
	free(path);
	rmdir(dir);
	runlog_free(rl);
	json_decref(vars);
}

static void test_state_dir_and_last_run(void **state)
{
	char dir[] = "/tmp/bringup-test-runlog.XXXXXX";
	char *id = run_id_new(), *got = NULL, *p;
	struct err e = ERR_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* 20261121T114501Z-4242: UTC time, then our pid. */
	assert_int_equal(strspn(id, "0123456789"), 8);
	assert_int_equal(id[8], 'T');
	assert_int_equal(strspn(id + 9, "0123456789"), 6);
	assert_int_equal(strncmp(id + 15, "Z-", 2), 0);
	assert_int_equal(atol(id + 17), (long)getpid());
	setenv("XDG_STATE_HOME", "/x/state", 1);
	p = state_dir_default("sim");
	assert_string_equal(p, "/x/state/bringup/sim");
	free(p);
	unsetenv("XDG_STATE_HOME");
	setenv("HOME", "/home/u", 1);
	p = state_dir_default("poc");
	assert_string_equal(p, "/home/u/.local/state/bringup/poc");
	free(p);

	assert_int_equal(run_last(dir, &got, &e), ERR_NOTFOUND);
	err_clear(&e);
	assert_int_equal(run_mark_last(dir, "one", &e), 0);
	assert_int_equal(run_mark_last(dir, id, &e), 0);
	assert_int_equal(run_last(dir, &got, &e), 0);
	assert_string_equal(got, id);
	p = xasprintf("%s/a/b/c", dir);
	assert_int_equal(mkdir_p(p, &e), 0);
	assert_int_equal(access(p, F_OK), 0);
	free(p);
	free(got);
	free(id);
	p = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
	free(p);
}

/* STATE/runs/ID/journal.json, empty; its path (caller frees). */
static char *touch_journal(const char *dir, const char *id)
{
	char *run = xasprintf("%s/runs/%s", dir, id), *path = xasprintf("%s/journal.json", run);
	struct err e = ERR_INIT;
	FILE *f;

	assert_int_equal(mkdir_p(run, &e), 0);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	free(run);
	return path;
}

/*
 * A run refused its cluster lock is undone: STATE/last back where it was
 * (or gone, for the first run), its journal and directory removed; the
 * earlier run's journal is left alone.
 */
static void test_discard_puts_last_back(void **state)
{
	char dir[] = "/tmp/test-runlog-XXXXXX", *p, *j1, *j2, *got = NULL;
	struct err e = ERR_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* the first run: nothing to go back to */
	free(touch_journal(dir, "r1"));
	assert_int_equal(run_mark_last(dir, "r1", &e), 0);
	run_discard(dir, "r1", NULL);
	assert_int_equal(run_last(dir, &got, &e), ERR_NOTFOUND);
	err_clear(&e);
	p = xasprintf("%s/runs", dir);
	assert_int_equal(access(p, F_OK), -1);
	free(p);
	/* a later one: last names the earlier run again */
	j1 = touch_journal(dir, "r1");
	assert_int_equal(run_mark_last(dir, "r1", &e), 0);
	j2 = touch_journal(dir, "r2");
	assert_int_equal(run_mark_last(dir, "r2", &e), 0);
	run_discard(dir, "r2", "r1");
	assert_int_equal(run_last(dir, &got, &e), 0);
	assert_string_equal(got, "r1");
	assert_int_equal(access(j2, F_OK), -1);
	assert_int_equal(access(j1, F_OK), 0);
	free(got);
	free(j1);
	free(j2);
	p = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
	free(p);
}

/* Ids from outside name a directory under STATE/runs and nothing else. */
static void test_run_id_valid(void **state)
{
	char *id = run_id_new(), long_id[66];

	(void)state;
	assert_true(run_id_valid(id));
	assert_true(run_id_valid("20261128T060611Z-12623"));
	assert_true(run_id_valid("a.b_c-d"));
	assert_false(run_id_valid(""));
	assert_false(run_id_valid("."));
	assert_false(run_id_valid(".."));
	assert_false(run_id_valid("../x"));
	assert_false(run_id_valid("a/b"));
	assert_false(run_id_valid("a b"));
	assert_false(run_id_valid("a\nb"));
	memset(long_id, 'a', 64);
	long_id[64] = '\0';
	assert_true(run_id_valid(long_id));
	long_id[64] = 'a';
	long_id[65] = '\0';
	assert_false(run_id_valid(long_id));
	free(id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_are_redacted),
		cmocka_unit_test(test_state_dir_and_last_run),
		cmocka_unit_test(test_discard_puts_last_back),
		cmocka_unit_test(test_run_id_valid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * ssh.c without a network: the command line we send must survive a real
 * POSIX shell with any bytes in the command and the environment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../../engine/ssh/ssh.h"
#include "../../engine/base/strbuf.h"

/* Runs the line the way sshd would: `sh -c LINE`, and captures stdout. */
static void run_line(const struct remote_cmd *cmd, struct strbuf *out)
{
	struct strbuf line = STRBUF_INIT, sh = STRBUF_INIT;
	char buf[256];
	size_t n;
	FILE *p;

	remote_cmd_line(cmd, &line);
	strbuf_addstr(&sh, "/bin/sh -c ");
	strbuf_addshquoted(&sh, line.buf);
	p = popen(sh.buf, "r");
	assert_non_null(p);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(out, buf, n);
	assert_int_equal(pclose(p), 0);
	strbuf_release(&line);
	strbuf_release(&sh);
}

static void test_env_values_are_quoted_not_interpreted(void **state)
{
	char *env[] = { "A=it's $HOME `id` \"x\"; rm -rf /nonexistent", "B_2=", NULL };
	struct remote_cmd cmd = { .command = "printf '%s|%s|%s' \"$A\" \"$B_2\" \"$LC_ALL\"",
				  .env = env };
	struct strbuf out = STRBUF_INIT;

	(void)state;
	run_line(&cmd, &out);
	assert_string_equal(out.buf, "it's $HOME `id` \"x\"; rm -rf /nonexistent||C");
	strbuf_release(&out);
}

static void test_command_with_quotes_and_pipes_runs_unchanged(void **state)
{
	struct remote_cmd cmd = { .command = "echo 'a b' \"c'd\" | tr a-z A-Z; exit 0" };
	struct strbuf out = STRBUF_INIT;

	(void)state;
	run_line(&cmd, &out);
	assert_string_equal(out.buf, "A B C'D\n");
	strbuf_release(&out);
}

static void test_sbin_is_on_path(void **state)
{
	struct remote_cmd cmd = { .command = "echo \"$PATH\"" };
	struct strbuf out = STRBUF_INIT;

	(void)state;
	run_line(&cmd, &out);
	assert_non_null(strstr(out.buf, ":/usr/sbin:/sbin"));
	strbuf_release(&out);
}

static void test_result_init_is_empty(void **state)
{
	struct cmd_result r;

	(void)state;
	cmd_result_init(&r);
	assert_int_equal(r.exit_status, -1);
	assert_int_equal(r.out.len, 0);
	assert_string_equal(r.err.buf, "");
	cmd_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_values_are_quoted_not_interpreted),
		cmocka_unit_test(test_command_with_quotes_and_pipes_runs_unchanged),
		cmocka_unit_test(test_sbin_is_on_path),
		cmocka_unit_test(test_result_init_is_empty),
	};
	return cmocka_run_group_tests_name("ssh", tests, NULL, NULL);
}

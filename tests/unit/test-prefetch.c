/*
 * prefetch.c: the combined probe script, run through a real /bin/sh, gives
 * every probe exactly the stdout, stderr and exit status it gives alone;
 * framing errors are refused whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../engine/ssh/prefetch.h"
#include "../../engine/base/xalloc.h"

/* Runs `command` under /bin/sh with `input` on stdin; fills res like conn_exec. */
static void run_sh(const char *command, const char *input, struct cmd_result *res)
{
	char in[] = "/tmp/test-prefetch-in.XXXXXX", out[] = "/tmp/test-prefetch-out.XXXXXX";
	char err[] = "/tmp/test-prefetch-err.XXXXXX";
	int fi = mkstemp(in), fo = mkstemp(out), fe = mkstemp(err), status;
	char buf[4096];
	ssize_t n;
	pid_t pid;

	assert_true(fi >= 0 && fo >= 0 && fe >= 0);
	assert_int_equal(write(fi, input, strlen(input)), (ssize_t)strlen(input));
	lseek(fi, 0, SEEK_SET);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(fi, 0);
		dup2(fo, 1);
		dup2(fe, 2);
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	cmd_result_init(res);
	res->outcome = CMD_EXITED;
	res->exit_status = WEXITSTATUS(status);
	lseek(fo, 0, SEEK_SET);
	while ((n = read(fo, buf, sizeof(buf))) > 0)
		strbuf_add(&res->out, buf, (size_t)n);
	lseek(fe, 0, SEEK_SET);
	while ((n = read(fe, buf, sizeof(buf))) > 0)
		strbuf_add(&res->err, buf, (size_t)n);
	close(fi), close(fo), close(fe);
	unlink(in), unlink(out), unlink(err);
}

static const struct {
	const char *line, *input;
} probes[] = {
	/* A state script with arguments, like mod_probe's. */
	{ "'sh' '-s' '--' 'a b' 'c'", "echo \"1=$1\"\necho \"2=$2\"\necho oops >&2\n" },
	/* Exit status, output without a final newline, a line that looks like a
	 * delimiter, and a marker with another token. */
	{ "'sh' '-s' '--'", "printf 'x\\n\\001bringup-probe-err 1 0000\\nno newline'\n"
			      "# __bringup_probe_1_0\nexit 3\n" },
	/* Output that ends in blank lines, stderr without a newline. */
	{ "'sh' '-s' '--'", "printf 'a\\n\\n\\n'; printf 'e' >&2\n" },
	/* No stdin at all. */
	{ "echo plain", "" },
	/* A probe that reads its stdin to the end must not eat the next one's. */
	{ "cat", "line one\nline two\n" },
};

#define TOKEN "5f3a9c0e11d2b4a7"
#define NPROBES (sizeof(probes) / sizeof(probes[0]))

static void test_combined_run_matches_each_probe_alone(void **state)
{
	struct probe_slot slot[NPROBES], *slots[NPROBES];
	struct strbuf script = STRBUF_INIT;
	struct cmd_result all;
	struct err err = ERR_INIT;

	(void)state;
	for (size_t i = 0; i < NPROBES; i++) {
		slot[i] = (struct probe_slot)PROBE_SLOT_INIT;
		probe_slot_capture(&slot[i], probes[i].line, probes[i].input, NULL);
		slots[i] = &slot[i];
	}
	assert_int_equal(prefetch_script(slots, NPROBES, TOKEN, &script), 0);
	run_sh("sh -s", script.buf, &all);
	assert_int_equal(all.exit_status, 0);
	assert_int_equal(prefetch_parse(slots, NPROBES, TOKEN, &all, &err), 0);
	for (size_t i = 0; i < NPROBES; i++) {
		struct cmd_result alone;

		run_sh(probes[i].line, probes[i].input, &alone);
		assert_true(slot[i].have);
		assert_int_equal(slot[i].res.exit_status, alone.exit_status);
		assert_int_equal(slot[i].res.out.len, alone.out.len);
		assert_memory_equal(slot[i].res.out.buf, alone.out.buf, alone.out.len);
		assert_string_equal(slot[i].res.err.buf, alone.err.buf);
		cmd_result_release(&alone);
	}
	assert_int_equal(slot[1].res.exit_status, 3);
	assert_string_equal(slot[0].res.err.buf, "oops\n");
	assert_string_equal(slot[4].res.out.buf, "line one\nline two\n");
	for (size_t i = 0; i < NPROBES; i++)
		probe_slot_release(&slot[i]);
	cmd_result_release(&all);
	strbuf_release(&script);
}

static void test_input_without_final_newline_is_not_combined(void **state)
{
	struct probe_slot s = PROBE_SLOT_INIT, *slots[] = { &s };
	struct strbuf script = STRBUF_INIT;

	(void)state;
	probe_slot_capture(&s, "sh -s", "echo no newline", NULL);
	assert_int_equal(prefetch_script(slots, 1, TOKEN, &script), ERR_STATE);
	probe_slot_release(&s);
	strbuf_release(&script);
}

/* A cut or failed combined run fills no slot: the checks ask again. */
static void test_cut_output_fills_nothing(void **state)
{
	struct probe_slot a = PROBE_SLOT_INIT, b = PROBE_SLOT_INIT, *slots[] = { &a, &b };
	struct strbuf script = STRBUF_INIT;
	struct cmd_result all;
	struct err err = ERR_INIT;

	(void)state;
	probe_slot_capture(&a, "echo first", "", NULL);
	probe_slot_capture(&b, "echo second", "", NULL);
	assert_int_equal(prefetch_script(slots, 2, TOKEN, &script), 0);
	run_sh("sh -s", script.buf, &all);
	strbuf_setlen(&all.out, all.out.len - 3);
	assert_int_equal(prefetch_parse(slots, 2, TOKEN, &all, &err), ERR_PARSE);
	assert_non_null(strstr(err_msg(&err), "probe 2 of 2"));
	assert_false(a.have);
	assert_false(b.have);
	err_clear(&err);

	all.exit_status = 97;   /* mktemp failed on the host */
	assert_int_equal(prefetch_parse(slots, 2, TOKEN, &all, &err), ERR_REMOTE);
	assert_false(a.have);
	err_clear(&err);
	probe_slot_release(&a);
	probe_slot_release(&b);
	cmd_result_release(&all);
	strbuf_release(&script);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_combined_run_matches_each_probe_alone),
		cmocka_unit_test(test_input_without_final_newline_is_not_combined),
		cmocka_unit_test(test_cut_output_fills_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

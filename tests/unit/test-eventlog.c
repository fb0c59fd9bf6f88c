/* Unit tests for engine/base/eventlog.c: what is written reads back the same;
 * broken streams fail naming the file and line; a cut last line is ignored. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/base/eventlog.h"
#include "../../engine/base/xalloc.h"

static char *stages[] = { "memlock", "nouveau" };
static char *hosts[] = { "dgx01", "dgx02" };

static void test_round_trip(void **state)
{
	char dir[] = "/tmp/test-eventlog.XXXXXX";
	struct run_info ri = { "c1", "deploy", NULL, stages, 2, hosts, 2, 1 };
	struct strlist changes = STRLIST_INIT;
	struct eventlog *el;
	struct replay *r;
	struct err err = ERR_INIT;
	char *path;

	(void)state;
	assert_non_null(mkdtemp(dir));
	strlist_push(&changes, "wrote /etc/x");
	assert_int_equal(eventlog_open(dir, &ri, &el, &err), 0);
	eventlog_write(el, &(struct dep_event){ .kind = DEV_STAGE_START, .stage = 0,
			.hosts = "dgx[01-02]", .t = 0.5 });
	eventlog_write(el, &(struct dep_event){ .kind = DEV_OUTPUT, .stage = 0,
			.host = "dgx02", .msg = "caf\xc3\xa9 \"quoted\"", .t = 0.7 });
	eventlog_write(el, &(struct dep_event){ .kind = DEV_HOST_DONE, .stage = 1,
			.host = "dgx01", .result = RES_FAILED, .reason = "boom",
			.hint = "load it", .changes = &changes, .duration_s = 1.25, .t = 2 });
	eventlog_write(el, &(struct dep_event){ .kind = DEV_RUN_DONE, .stage = (size_t)-1,
			.interrupted = 1, .t = 3 });
	eventlog_free(el);
	/* a --resume appends an attempt: its clock follows the first one's */
	assert_int_equal(eventlog_open(dir, &ri, &el, &err), 0);
	eventlog_write(el, &(struct dep_event){ .kind = DEV_HOST_START, .stage = 1,
			.host = "dgx02", .t = 0.25 });
	eventlog_free(el);

	assert_int_equal(replay_load(dir, &r, &err), 0);
	assert_string_equal(r->info.cluster, "c1");
	assert_true(r->info.dry_run); /* a replay of --check says DRY RUN too */
	assert_int_equal(r->info.nstages, 2);
	assert_string_equal(r->info.hosts[1], "dgx02");
	assert_int_equal(r->n, 5);
	assert_int_equal(r->ev[0].kind, DEV_STAGE_START);
	assert_string_equal(r->ev[0].hosts, "dgx[01-02]");
	assert_string_equal(r->ev[1].msg, "caf\xc3\xa9 \"quoted\"");
	assert_int_equal(r->ev[2].result, RES_FAILED);
	assert_string_equal(r->ev[2].stage_name, "nouveau");
	assert_string_equal(r->ev[2].reason, "boom");
	assert_string_equal(r->ev[2].hint, "load it");
	assert_int_equal(r->ev[2].changes->n, 1);
	assert_true(r->ev[2].duration_s == 1.25);
	assert_true(r->ev[3].interrupted);
	assert_true(r->ev[4].t == 3.25);
	replay_free(r);
	path = xasprintf("%s/events.jsonl", dir);
	unlink(path);
	free(path);
	rmdir(dir);
	strlist_clear(&changes);
}

static void expect_error(const char *text, const char *want)
{
	struct replay *r = NULL;
	struct err err = ERR_INIT;

	assert_int_equal(replay_load_buf("ev.jsonl", text, strlen(text), &r, &err), ERR_PARSE);
	assert_null(r);
	if (!strstr(err_msg(&err), want))
		fail_msg("'%s' does not say '%s'", err_msg(&err), want);
	err_clear(&err);
}

#define HDR "{\"bringup_events\":1,\"cluster\":\"c\",\"playbook\":\"p\",\"stages\":[\"a\"],\"hosts\":[\"h\"]}\n"

static void test_errors(void **state)
{
	(void)state;
	expect_error("", "ev.jsonl: empty");
	expect_error("{\"t\":1}\n", "ev.jsonl:1: not a bringup event stream");
	expect_error(HDR "{\"t\":1,\"ev\":\"nope\"}\n", "ev.jsonl:2: \"ev\" is not");
	expect_error(HDR "{\"t\":1,\"ev\":\"host_done\",\"stage\":1,\"host\":\"h\"}\n",
		     "ev.jsonl:2: \"stage\" is not a stage's index");
	expect_error(HDR "{\"t\":1,\"ev\":\"host_done\",\"stage\":0,\"host\":\"h\",\"result\":\"x\"}\n",
		     "ev.jsonl:2: \"result\"");
	expect_error(HDR "{\"t\":1,\"ev\":\"output\",\"stage\":0}\n", "ev.jsonl:2: output without");
	expect_error(HDR "[1]\n", "ev.jsonl:2:");
	expect_error(HDR "{bad\n", "ev.jsonl:2:");
}

static void test_cut_last_line_is_ignored(void **state)
{
	const char *text = HDR "{\"t\":1,\"ev\":\"stage_start\",\"stage\":0,\"hosts\":\"h\"}\n{\"t\":2,\"ev\":\"st";
	struct replay *r;
	struct err err = ERR_INIT;

	(void)state;
	assert_int_equal(replay_load_buf("ev", text, strlen(text), &r, &err), 0);
	assert_int_equal(r->n, 1);
	replay_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_cut_last_line_is_ignored),
	};

	return cmocka_run_group_tests_name("eventlog", tests, NULL, NULL);
}

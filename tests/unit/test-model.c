/* Unit tests for tui/model.c: cells and counts from events, retries, the
 * filter (node set or text), failures only, folding into node sets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tui/model.h"

static char *stages[] = { "memlock", "nouveau" };

static void new_model(struct model *m, size_t nh, char **names)
{
	struct run_info ri = { "c1", "deploy", NULL, stages, 2, names, nh };

	model_init(m, &ri);
}

static void ev(struct model *m, enum dep_event_kind k, size_t stage, const char *host,
	       enum host_result r, const char *reason)
{
	struct dep_event e = { .kind = k, .stage = stage, .host = host, .result = r,
			       .reason = reason, .t = 1.0 };

	if (k == DEV_STAGE_START)
		e.hosts = host, e.host = NULL;
	if (k == DEV_OUTPUT)
		e.msg = reason;
	model_apply(m, &e);
}

static char *four[] = { "dgx01", "dgx02", "dgx03", "dgx04" };

static void test_states_and_counts(void **state)
{
	struct model m;

	(void)state;
	new_model(&m, 4, four);
	assert_int_equal(m.count[CS_NONE], 8);
	ev(&m, DEV_STAGE_START, 0, "dgx[01-04]", 0, NULL);
	assert_int_equal(m.count[CS_PENDING], 4);
	assert_int_equal(m.stage_count[0 * CS__COUNT + CS_PENDING], 4);
	ev(&m, DEV_HOST_START, 0, "dgx03", 0, NULL);
	ev(&m, DEV_OUTPUT, 0, "dgx03", 0, "writing limits");
	assert_int_equal(model_cell(&m, 2, 0)->st, CS_RUNNING);
	assert_string_equal(model_cell(&m, 2, 0)->out.v[0], "writing limits");
	ev(&m, DEV_HOST_DONE, 0, "dgx03", RES_FAILED, "apply: cannot write");
	ev(&m, DEV_HOST_DONE, 0, "dgx01", RES_CHANGED, NULL);
	assert_int_equal(m.count[CS_FAILED], 1);
	assert_int_equal(m.count[CS_CHANGED], 1);
	assert_int_equal(m.count[CS_PENDING], 2);
	assert_string_equal(model_cell(&m, 2, 0)->reason, "apply: cannot write");
	assert_true(model_host_failed(&m, 2));
	assert_false(model_host_failed(&m, 0));
	/* unknown hosts and stages are ignored, not fatal */
	ev(&m, DEV_HOST_DONE, 0, "nosuch", RES_OK, NULL);
	ev(&m, DEV_HOST_DONE, 9, "dgx01", RES_OK, NULL);
	assert_int_equal(m.count[CS_OK], 0);
	/* a retry starts the stage again on its host: the old result is gone */
	ev(&m, DEV_STAGE_START, 0, "dgx03", 0, NULL);
	assert_int_equal(model_cell(&m, 2, 0)->st, CS_PENDING);
	assert_null(model_cell(&m, 2, 0)->reason);
	assert_int_equal(m.count[CS_FAILED], 0);
	/* the end of the run: nothing runs any more */
	ev(&m, DEV_HOST_START, 0, "dgx04", 0, NULL);
	ev(&m, DEV_RUN_DONE, 0, NULL, 0, NULL);
	assert_true(m.done);
	assert_int_equal(m.count[CS_RUNNING], 0);
	model_release(&m);
}

static void test_output_is_bounded(void **state)
{
	struct model m;
	char line[32];

	(void)state;
	new_model(&m, 4, four);
	for (int i = 0; i < MODEL_OUTPUT_LINES + 50; i++) {
		snprintf(line, sizeof(line), "line %d", i);
		ev(&m, DEV_OUTPUT, 1, "dgx02", 0, line);
	}
	assert_int_equal(model_cell(&m, 1, 1)->out.n, MODEL_OUTPUT_LINES);
	assert_int_equal(model_cell(&m, 1, 1)->out_dropped, 50);
	assert_string_equal(model_cell(&m, 1, 1)->out.v[0], "line 50");
	model_release(&m);
}

static char *labels(struct mrow *rows, size_t n)
{
	static char buf[512];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s%s", i ? " " : "",
					rows[i].member ? "+" : "", rows[i].label);
	return buf;
}

static void test_filter_and_failures_only(void **state)
{
	struct model m;
	struct mrow *rows;
	size_t n;

	(void)state;
	new_model(&m, 4, four);
	ev(&m, DEV_STAGE_START, 0, "dgx[01-04]", 0, NULL);
	ev(&m, DEV_HOST_DONE, 0, "dgx03", RES_FAILED, "mkdir: File exists");
	ev(&m, DEV_HOST_DONE, 0, "dgx04", RES_UNREACHABLE, "connection refused");

	n = model_rows(&m, &(struct view_opts){ "dgx[01-02]" }, &rows);
	assert_string_equal(labels(rows, n), "dgx01 dgx02");
	model_rows_free(rows, n);
	/* text: in names ... */
	n = model_rows(&m, &(struct view_opts){ "x04" }, &rows);
	assert_string_equal(labels(rows, n), "dgx04");
	model_rows_free(rows, n);
	/* ... and in reasons */
	n = model_rows(&m, &(struct view_opts){ "File exists" }, &rows);
	assert_string_equal(labels(rows, n), "dgx03");
	model_rows_free(rows, n);
	n = model_rows(&m, &(struct view_opts){ NULL, true }, &rows);
	assert_string_equal(labels(rows, n), "dgx03 dgx04");
	model_rows_free(rows, n);
	n = model_rows(&m, &(struct view_opts){ "nothing" }, &rows);
	assert_int_equal(n, 0);
	model_rows_free(rows, n);
	model_release(&m);
}

static void test_folding(void **state)
{
	char *names[1000];
	struct strlist expanded = STRLIST_INIT;
	struct model m;
	struct mrow *rows;
	size_t n;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		names[i] = malloc(16);
		snprintf(names[i], 16, "dgx%04d", i + 1);
	}
	new_model(&m, 1000, names);
	ev(&m, DEV_STAGE_START, 0, "dgx[0001-1000]", 0, NULL);
	for (int i = 0; i < 640; i++)
		ev(&m, DEV_HOST_DONE, 0, names[i], RES_OK, NULL);
	ev(&m, DEV_HOST_DONE, 0, "dgx0700", RES_FAILED, "boom");
	/* fits: one row each */
	n = model_rows(&m, &(struct view_opts){ NULL, false, 0 }, &rows);
	assert_int_equal(n, 1000);
	model_rows_free(rows, n);
	/* does not fit: one row per state, named by node set, in order */
	n = model_rows(&m, &(struct view_opts){ NULL, false, 20 }, &rows);
	assert_int_equal(n, 3);
	assert_string_equal(rows[0].label, "dgx[0001-0640]");
	assert_int_equal(rows[0].n, 640);
	assert_string_equal(rows[1].label, "dgx[0641-0699,0701-1000]");
	assert_string_equal(rows[2].label, "dgx0700");
	/* a group opens on demand: its hosts follow its row */
	strlist_push(&expanded, rows[2].sig);
	strlist_push(&expanded, rows[0].sig);
	model_rows_free(rows, n);
	n = model_rows(&m, &(struct view_opts){ NULL, false, 20, &expanded }, &rows);
	assert_int_equal(n, 3 + 640 + 1);
	assert_true(rows[0].expanded);
	assert_true(rows[1].member);
	assert_string_equal(rows[1].label, "dgx0001");
	assert_string_equal(rows[641].label, "dgx[0641-0699,0701-1000]");
	model_rows_free(rows, n);
	strlist_clear(&expanded);
	model_release(&m);
	for (int i = 0; i < 1000; i++)
		free(names[i]);
}

/* A run-once stage ran on one host: the others read "not here", not pending,
 * and count neither in the stage's total nor as the host's state. */
static void test_run_once_not_here(void **state)
{
	struct model m;
	size_t hosts[CS__COUNT], done, total;

	(void)state;
	new_model(&m, 4, four);
	ev(&m, DEV_STAGE_START, 0, "dgx[01-04]", 0, NULL);
	for (int i = 0; i < 4; i++)
		ev(&m, DEV_HOST_DONE, 0, four[i], i == 2 ? RES_FAILED : RES_CHANGED, NULL);
	ev(&m, DEV_STAGE_DONE, 0, NULL, 0, NULL);
	ev(&m, DEV_STAGE_START, 1, "dgx[01-04]", 0, NULL);
	model_stage_progress(&m, 1, &done, &total);
	assert_int_equal(done, 0);
	assert_int_equal(total, 4);
	ev(&m, DEV_HOST_START, 1, "dgx01", 0, NULL);
	ev(&m, DEV_HOST_DONE, 1, "dgx01", RES_OK, NULL);
	ev(&m, DEV_STAGE_DONE, 1, NULL, 0, NULL);
	assert_int_equal(model_cell(&m, 1, 1)->st, CS_NOTHERE);
	assert_int_equal(model_cell(&m, 0, 1)->st, CS_OK);
	assert_int_equal(m.count[CS_PENDING], 0);
	model_stage_progress(&m, 1, &done, &total);
	assert_int_equal(done, 1);
	assert_int_equal(total, 1);
	/* per host, not per cell: 3 changed hosts, 1 failed, nothing pending */
	ev(&m, DEV_RUN_DONE, 0, NULL, 0, NULL);
	model_host_counts(&m, hosts);
	assert_int_equal(hosts[CS_CHANGED], 3);
	assert_int_equal(hosts[CS_FAILED], 1);
	assert_int_equal(hosts[CS_PENDING], 0);
	assert_int_equal(hosts[CS_OK], 0);
	assert_int_equal(model_host_state(&m, 2), CS_FAILED);
	model_release(&m);
}

/* A stage's ETA comes from the pace of its hosts done so far. */
static void test_stage_eta(void **state)
{
	struct model m;
	struct dep_event e = { .kind = DEV_STAGE_START, .stage = 0, .hosts = "dgx[01-04]", .t = 10 };

	(void)state;
	new_model(&m, 4, four);
	model_apply(&m, &e);
	assert_true(model_stage_eta(&m, 0, 12) < 0); /* nothing done yet */
	e = (struct dep_event){ .kind = DEV_HOST_DONE, .stage = 0, .host = "dgx01",
				.result = RES_OK, .t = 20 };
	model_apply(&m, &e);
	/* one host in 10 s, three to go */
	assert_true(model_stage_eta(&m, 0, 20) > 29.9 && model_stage_eta(&m, 0, 20) < 30.1);
	model_release(&m);
}

/* What changed is kept per cell (the 'c' list); a dry run says so. */
static void test_changes_and_dry_run(void **state)
{
	struct model m;
	struct run_info ri = { "c1", "deploy", NULL, stages, 2, four, 4, 1 };
	struct strlist ch = STRLIST_INIT;
	struct dep_event e = { .kind = DEV_HOST_DONE, .stage = 0, .host = "dgx02",
			       .result = RES_CHANGED, .changes = &ch };

	(void)state;
	model_init(&m, &ri);
	assert_true(m.dry_run);
	strlist_push(&ch, "write /etc/security/limits.d/99-bringup-memlock.conf");
	model_apply(&m, &e);
	assert_int_equal(model_cell(&m, 1, 0)->changes.n, 1);
	assert_string_equal(model_cell(&m, 1, 0)->changes.v[0], ch.v[0]);
	strlist_clear(&ch);
	model_release(&m);
}

/*
 * What an admin did to a host (DEV_CONTROL) is kept for its detail and the
 * status line, and changes no cell: a control said after the run ended
 * leaves it ended. A running cell keeps its command limit.
 */
static void test_control_and_limit(void **state)
{
	struct model m;
	struct dep_event start = { .kind = DEV_HOST_START, .stage = 0, .host = "dgx02",
				   .limit_s = 600, .t = 1.0 };
	struct dep_event ctl = { .kind = DEV_CONTROL, .stage = 0, .host = "dgx02",
				 .msg = "stop by alice (tui, pid 7): ...", .t = 2.0 };

	(void)state;
	new_model(&m, 4, four);
	ev(&m, DEV_STAGE_START, 0, "dgx[01-04]", RES_NONE, NULL);
	model_apply(&m, &start);
	assert_int_equal(model_cell(&m, 1, 0)->limit_s, 600);
	ev(&m, DEV_HOST_DONE, 0, "dgx02", RES_FAILED, "stopped by alice (tui, pid 7)");
	ev(&m, DEV_RUN_DONE, 0, NULL, RES_NONE, NULL);
	model_apply(&m, &ctl);
	assert_true(m.done);
	assert_int_equal(model_cell(&m, 1, 0)->st, CS_FAILED);
	assert_string_equal(m.control[1], ctl.msg);
	assert_null(m.control[0]);
	assert_string_equal(m.last_control, "dgx02: stop by alice (tui, pid 7): ...");
	model_release(&m);
}

static void expect_abbrev(char **names, size_t n, size_t w, const char *const *want)
{
	struct strlist a = STRLIST_INIT;

	model_abbrev(names, n, w, &a);
	assert_int_equal(a.n, n);
	for (size_t i = 0; i < n; i++) {
		assert_true(strlen(a.v[i]) <= w);
		if (want)
			assert_string_equal(a.v[i], want[i]);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(a.v[i], a.v[j]);
	}
	strlist_clear(&a);
}

/* Stage names fit their column and stay distinct: never "sca" six times. */
static void test_abbrev(void **state)
{
	char *scale[] = { "scale_install", "scale_cluster", "scale_tune", "scale_start",
			  "scale_remote_mount", "scale_rdma" };
	char *clash[] = { "validate_a", "validate_a2", "vxa", "va" };
	static const char *const at3[] = { "sin", "scl", "stu", "sst", "srm", "srd" };
	static const char *const at9[] = { "s.install", "s.cluster", "s.tune", "s.start",
					   "s.r.mount", "s.rdma" };

	(void)state;
	expect_abbrev(scale, 6, 3, at3);
	expect_abbrev(scale, 6, 9, at9);
	expect_abbrev(scale, 6, 30, (const char *const *)scale);
	for (size_t w = 1; w < 8; w++)
		expect_abbrev(clash, 4, w + 1, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states_and_counts),
		cmocka_unit_test(test_output_is_bounded),
		cmocka_unit_test(test_filter_and_failures_only),
		cmocka_unit_test(test_folding),
		cmocka_unit_test(test_run_once_not_here),
		cmocka_unit_test(test_stage_eta),
		cmocka_unit_test(test_changes_and_dry_run),
		cmocka_unit_test(test_abbrev),
		cmocka_unit_test(test_control_and_limit),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}

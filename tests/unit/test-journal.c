/*
 * engine/rundir/journal.c: entries survive a save and a load, --resume's questions
 * get the journal's answers, and a save that cannot complete (no space, no
 * room for the temporary file) leaves the previous journal whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../engine/rundir/journal.h"
#include "../../engine/base/xalloc.h"

static char *tmpdir(void)
{
	char *d = xstrdup("/tmp/bringup-test-journal.XXXXXX");

	if (!mkdtemp(d))
		fail_msg("mkdtemp");
	return d;
}

static const struct journal_meta meta = { "run1", "sim", "deploy", "0.1.0", "inv.yaml" };

static struct journal *two_stages(const char *path)
{
	struct journal *j = journal_new(path, &meta);
	struct strlist changes = STRLIST_INIT;

	journal_stage(j, "memlock", "memlock", 1);
	journal_stage(j, "nouveau", "nouveau", 2);
	journal_stage(j, "memlock", "memlock", 1); /* again: no second entry */
	journal_attempt(j);
	journal_host_start(j, "memlock", "dgx01");
	journal_host_start(j, "memlock", "dgx02");
	strlist_push(&changes, "create /etc/x");
	journal_host_done(j, "memlock", "dgx01", "changed", &changes, NULL, 0.5);
	journal_host_done(j, "nouveau", "dgx01", "failed", NULL, "apply: no", 0.1);
	strlist_clear(&changes);
	return j;
}

static void test_round_trip(void **state)
{
	char *dir = tmpdir(), *path = xasprintf("%s/journal.json", dir);
	struct journal *j = two_stages(path), *k = NULL;
	struct strlist stages = STRLIST_INIT;
	struct err e = ERR_INIT;
	const json_t *root;

	(void)state;
	assert_int_equal(journal_save(j, &e), 0);
	assert_int_equal(journal_load(path, &k, &e), 0);
	assert_string_equal(journal_get(k, "run_id"), "run1");
	assert_string_equal(journal_state(k), "running");
	journal_stages(k, &stages);
	assert_int_equal(stages.n, 2);
	assert_string_equal(stages.v[1], "nouveau");
	assert_string_equal(journal_host_status(k, "memlock", "dgx01"), "changed");
	assert_string_equal(journal_host_status(k, "memlock", "dgx02"), "running");
	assert_null(journal_host_status(k, "memlock", "dgx03"));
	assert_null(journal_host_status(k, "nosuch", "dgx01"));
	assert_true(journal_host_completed(k, "memlock", "dgx01"));
	assert_false(journal_host_completed(k, "memlock", "dgx02"));
	assert_false(journal_host_completed(k, "nouveau", "dgx01"));
	assert_string_equal(journal_host_reason(k, "nouveau", "dgx01"), "apply: no");
	assert_null(journal_host_reason(k, "memlock", "dgx01"));
	assert_null(journal_host_reason(k, "nosuch", "dgx01"));
	root = journal_json(k);
	assert_int_equal(json_array_size(json_object_get(root, "attempts")), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
		json_array_get(json_object_get(root, "stages"), 1), "hosts"), "dgx01"), "reason")),
		"apply: no");
	/* A resumed run adds an attempt and keeps what was done. */
	journal_attempt(k);
	journal_set_state(k, "completed");
	assert_int_equal(journal_save(k, &e), 0);
	journal_free(k);
	assert_int_equal(journal_load(path, &k, &e), 0);
	assert_string_equal(journal_state(k), "completed");
	assert_int_equal(json_array_size(json_object_get(journal_json(k), "attempts")), 2);
	assert_true(journal_host_completed(k, "memlock", "dgx01"));
	/* A newer module's stage starts over; the same version keeps its entries. */
	assert_int_equal(journal_stage_version(k, "nouveau"), 2);
	journal_stage(k, "memlock", "memlock", 1);
	assert_true(journal_host_completed(k, "memlock", "dgx01"));
	journal_stage(k, "memlock", "memlock", 2);
	assert_false(journal_host_completed(k, "memlock", "dgx01"));
	assert_int_equal(journal_stage_version(k, "memlock"), 2);
	assert_int_equal(journal_stage_version(k, "nosuch"), -1);

	strlist_clear(&stages);
	journal_free(j);
	journal_free(k);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

/* The previous journal, byte for byte, after a save that failed. */
static void expect_old_kept(const char *path, const char *old)
{
	FILE *f = fopen(path, "r");
	char buf[65536];
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, old);
}

static void test_failed_saves_keep_the_old_journal(void **state)
{
	char *dir = tmpdir(), *path = xasprintf("%s/journal.json", dir);
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	struct journal *j = two_stages(path);
	struct err e = ERR_INIT;
	char old[65536];
	size_t n;
	FILE *f;

	(void)state;
	assert_int_equal(journal_save(j, &e), 0);
	f = fopen(path, "r");
	n = fread(old, 1, sizeof(old) - 1, f);
	old[n] = '\0';
	fclose(f);
	journal_set_state(j, "completed");

	/* A full disk: the temporary file is /dev/full. */
	assert_int_equal(symlink("/dev/full", tmp), 0);
	assert_int_equal(journal_save(j, &e), ERR_IO);
	assert_non_null(strstr(err_msg(&e), "cannot write journal"));
	err_clear(&e);
	expect_old_kept(path, old);
	assert_int_not_equal(access(tmp, F_OK), 0); /* cleaned up */

	/* No room for the temporary file at all. */
	assert_int_equal(mkdir(tmp, 0700), 0);
	assert_int_equal(journal_save(j, &e), ERR_IO);
	err_clear(&e);
	expect_old_kept(path, old);
	rmdir(tmp);

	/* And then it works again, leaving no temporary file behind. */
	assert_int_equal(journal_save(j, &e), 0);
	assert_int_not_equal(access(tmp, F_OK), 0);
	journal_free(j);
	assert_int_equal(journal_load(path, &j, &e), 0);
	assert_string_equal(journal_state(j), "completed");

	journal_free(j);
	unlink(path);
	rmdir(dir);
	free(tmp);
	free(path);
	free(dir);
}

/* A reason or change quoting a host's Latin-1 output used to vanish (jansson refuses it). */
static void test_text_that_is_not_utf8_is_kept(void **state)
{
	struct journal *j = journal_new("/nonexistent/journal.json", &meta);
	struct strlist changes = STRLIST_INIT;
	const json_t *h;

	(void)state;
	journal_stage(j, "memlock", "memlock", 1);
	strlist_push(&changes, "update caf\351.conf");
	journal_host_done(j, "memlock", "dgx01", "failed", &changes, "apply: caf\351", 0.1);
	h = json_object_get(json_object_get(json_array_get(json_object_get(journal_json(j),
						"stages"), 0), "hosts"), "dgx01");
	assert_string_equal(json_string_value(json_object_get(h, "reason")),
			    "apply: caf\xef\xbf\xbd");
	assert_string_equal(json_string_value(json_array_get(json_object_get(h, "changes"), 0)),
			    "update caf\xef\xbf\xbd.conf");
	strlist_clear(&changes);
	journal_free(j);
}

static void test_load_errors(void **state)
{
	char *dir = tmpdir(), *path = xasprintf("%s/journal.json", dir);
	struct journal *j = NULL;
	struct err e = ERR_INIT;
	FILE *f;

	(void)state;
	assert_int_equal(journal_load(path, &j, &e), ERR_NOTFOUND);
	err_clear(&e);
	f = fopen(path, "w");
	fputs("{\"version\": 1, \"stages\": [", f);
	fclose(f);
	assert_int_equal(journal_load(path, &j, &e), ERR_PARSE);
	assert_non_null(strstr(err_msg(&e), "unreadable journal"));
	err_clear(&e);
	f = fopen(path, "w");
	fputs("{\"version\": 99, \"stages\": []}", f);
	fclose(f);
	assert_int_equal(journal_load(path, &j, &e), ERR_PARSE);
	assert_null(j);
	err_clear(&e);
	/*
	 * A stage that is not an object with a name (the journal fuzz target,
	 * tests/fuzz/regress/journal/journal-3 and -4): --resume could neither
	 * find it by name nor record its hosts in it, and dropped their
	 * results silently. Refused, naming the entry.
	 */
	static const char *bad[] = {
		"{\"version\": 1, \"stages\": [2]}",
		"{\"version\": 1, \"stages\": [{\"name\": \"s1\"}, {\"hosts\": {}}]}",
		"{\"version\": 1, \"stages\": [{\"name\": \"\"}]}",
		"{\"version\": 1, \"stages\": [{\"name\": 7}]}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = fopen(path, "w");
		fputs(bad[i], f);
		fclose(f);
		assert_int_equal(journal_load(path, &j, &e), ERR_PARSE);
		assert_null(j);
		assert_non_null(strstr(err_msg(&e), "is not a stage"));
		assert_non_null(strstr(err_msg(&e), i == 1 ? "stages[1]" : "stages[0]"));
		err_clear(&e);
	}
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

/*
 * A journal written by hand or damaged (fuzzing found these): a stage whose
 * "hosts" is an array, is missing, or holds a host that is not an object.
 * --resume records its hosts into a fresh object; host_entry used to hand
 * back an object jansson had just freed (it could not be attached), so the
 * host's status was lost and the writes went to freed memory.
 */
static void test_damaged_hosts_are_replaced(void **state)
{
	static const char *docs[] = {
		/* tests/fuzz/regress/journal/journal-1.json: "hosts" is an array */
		"{\"version\": 1, \"stages\": [{\"name\": \"s1\", \"module_version\": 1, \"hosts\": []}]}",
		/* tests/fuzz/regress/journal/journal-2.json: no "hosts" */
		"{\"version\": 1, \"stages\": [{\"name\": \"s1\", \"module\": \"mod\", \"module_version\": 1}]}",
		"{\"version\": 1, \"stages\": [{\"name\": \"s1\", \"hosts\": \"x\"}]}",
		"{\"version\": 1, \"stages\": [{\"name\": \"s1\", \"hosts\": {\"dgx01\": 5}}]}",
		"{\"version\": 1, \"stages\": [{\"name\": \"s1\", \"hosts\": {\"dgx01\": []}}]}",
	};
	char *dir = tmpdir(), *path = xasprintf("%s/journal.json", dir);
	struct err e = ERR_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		struct journal *j = NULL;
		FILE *f = fopen(path, "w");

		fputs(docs[i], f);
		fclose(f);
		assert_int_equal(journal_load(path, &j, &e), 0);
		journal_host_start(j, "s1", "dgx01");
		assert_string_equal(journal_host_status(j, "s1", "dgx01") ?: "(none)", "running");
		journal_host_done(j, "s1", "dgx01", "ok", NULL, NULL, 0.1);
		journal_host_done(j, "s1", "dgx02", "changed", NULL, NULL, 0.1);
		assert_string_equal(journal_host_status(j, "s1", "dgx01") ?: "(none)", "ok");
		assert_true(journal_host_completed(j, "s1", "dgx02"));
		/* a key jansson refuses (not UTF-8) is not recorded, and nothing is freed twice */
		journal_host_done(j, "s1", "caf\351", "ok", NULL, NULL, 0.1);
		assert_null(journal_host_status(j, "s1", "caf\351"));
		assert_int_equal(journal_save(j, &e), 0);
		journal_free(j);
	}
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_failed_saves_keep_the_old_journal),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_text_that_is_not_utf8_is_kept),
		cmocka_unit_test(test_damaged_hosts_are_replaced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

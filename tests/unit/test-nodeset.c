/* Unit tests for engine/base/nodeset.c: expansion, errors with columns, folding. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../engine/base/nodeset.h"
#include "../../engine/base/strbuf.h"

/* Expands `pattern` and returns the names joined by spaces (caller frees). */
static char *expand(const char *pattern)
{
	struct strlist l = STRLIST_INIT;
	struct err e = ERR_INIT;
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(nodeset_expand(pattern, &l, &e), 0);
	for (size_t i = 0; i < l.n; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", l.v[i]);
	strlist_clear(&l);
	return strbuf_detach(&sb, NULL);
}

#define assert_expands(pattern, want)                 \
	do {                                          \
		char *got_ = expand(pattern);         \
		assert_string_equal(got_, want);      \
		free(got_);                           \
	} while (0)

static void test_expand_ranges(void **state)
{
	(void)state;
	assert_expands("scale00", "scale00");
	assert_expands("dgx[01-03]", "dgx01 dgx02 dgx03");
	assert_expands("ib[1-4,7]", "ib1 ib2 ib3 ib4 ib7");
	assert_expands("dgx[01-02],scale00", "dgx01 dgx02 scale00");
	assert_expands("r[1-2]n[01-02]", "r1n01 r1n02 r2n01 r2n02");
	assert_expands("n[1-2]-ib", "n1-ib n2-ib");
	assert_expands("10.10.1.[9-11]", "10.10.1.9 10.10.1.10 10.10.1.11");
	assert_expands("[1-2]", "1 2");
	assert_expands("x[5]", "x5");
}

static void test_expand_padding(void **state)
{
	(void)state;
	assert_expands("dgx[8-10]", "dgx8 dgx9 dgx10");
	assert_expands("dgx[08-10]", "dgx08 dgx09 dgx10");
	assert_expands("dgx[001-002]", "dgx001 dgx002");
	assert_expands("dgx[0-1]", "dgx0 dgx1");
}

static void test_expand_spaces_around_items(void **state)
{
	(void)state;
	assert_expands("dgx01, dgx02 ", "dgx01 dgx02");
}

/* The error message and the 1-based column nodeset_expand_at reports. */
static void assert_fails_at(const char *pattern, size_t col, const char *msg)
{
	struct strlist l = STRLIST_INIT;
	struct err e = ERR_INIT;
	size_t pos = 999;

	strlist_push(&l, "kept");
	assert_int_equal(nodeset_expand_at(pattern, &l, &pos, &e), ERR_PARSE);
	assert_int_equal(pos + 1, col);
	assert_string_equal(err_msg(&e), msg);
	/* A failed expansion leaves the list as it was. */
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0], "kept");
	strlist_clear(&l);
	err_clear(&e);
}

static void test_expand_errors(void **state)
{
	(void)state;
	assert_fails_at("dgx[01-", 8, "found the end of the pattern, expected a number");
	assert_fails_at("dgx[5-2]", 5, "found the descending range '5-2', "
			"expected the smaller number first");
	assert_fails_at("dgx[1-1000000]", 5, "found a range of 1000000 names, "
			"expected at most 65536 names in one node set");
	assert_fails_at("r[1-300]n[1-300]", 1, "found a node set of more than "
			"65536 names, expected at most that many");
	assert_fails_at("dgx[]", 5, "found ']', expected a number");
	assert_fails_at("dgx[a]", 5, "found 'a', expected a number");
	assert_fails_at("dgx[1-2", 8, "found the end of the pattern, expected ',' or ']'");
	assert_fails_at("dgx[1;2]", 6, "found ';', expected ',' or ']'");
	assert_fails_at("dgx]", 4, "found ']' without its '[', expected a host name");
	assert_fails_at("a,,b", 3, "found an empty name, expected a host name");
	assert_fails_at("", 1, "found an empty name, expected a host name");
	assert_fails_at("dgx01 dgx02", 6, "found a space inside a name, "
			"expected ',' between names");
	assert_fails_at("n[1234567890]", 3, "found a number of more than 9 digits, "
			"expected a host number");
}

static void test_expand_message_names_column(void **state)
{
	struct strlist l = STRLIST_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(nodeset_expand("dgx[5-2]", &l, &e), ERR_PARSE);
	assert_string_equal(err_msg(&e), "node set 'dgx[5-2]', column 5: found the "
			    "descending range '5-2', expected the smaller number first");
	err_clear(&e);
}

static void test_expand_limit_counts_all_items(void **state)
{
	struct strlist l = STRLIST_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(nodeset_expand("a[1-65536]", &l, &e), 0);
	assert_int_equal(l.n, NODESET_MAX);
	assert_string_equal(l.v[NODESET_MAX - 1], "a65536");
	strlist_clear(&l);
	assert_int_equal(nodeset_expand("a[1-65536],b", &l, &e), ERR_PARSE);
	assert_int_equal(l.n, 0);
	err_clear(&e);
}

static char *fold(const char *names)
{
	struct strlist l = STRLIST_INIT;
	char *copy = strdup(names), *save = NULL, *ret;

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		strlist_push(&l, t);
	ret = nodeset_fold(l.v, l.n);
	strlist_clear(&l);
	free(copy);
	return ret;
}

#define assert_folds(names, want)                     \
	do {                                          \
		char *got_ = fold(names);             \
		assert_string_equal(got_, want);      \
		free(got_);                           \
	} while (0)

static void test_fold(void **state)
{
	(void)state;
	assert_folds("dgx01 dgx02 dgx03 dgx07 scale00", "dgx[01-03,07],scale00");
	assert_folds("scale00", "scale00");
	assert_folds("bastion", "bastion");
	assert_folds("", "");
	assert_folds("dgx03 dgx01 dgx02 dgx01", "dgx[01-03]");
	assert_folds("b1 a1 b2", "b[1-2],a1");
	assert_folds("n1-ib n2-ib n3-ib n1-eth", "n[1-3]-ib,n1-eth");
	assert_folds("r1n01 r1n02 r2n01", "r1n[01-02],r2n01");
	assert_folds("x y x", "x,y");
}

static void test_fold_padding(void **state)
{
	(void)state;
	assert_folds("dgx9 dgx10", "dgx[9-10]");
	assert_folds("dgx09 dgx10", "dgx[09-10]");
	/* dgx9 and dgx09 are different hosts and must stay so. */
	assert_folds("dgx9 dgx09 dgx10", "dgx[9,09-10]");
	assert_folds("dgx8 dgx09", "dgx[8,09]");
	assert_folds("n98 n99 n100", "n[98-100]");
	assert_folds("n098 n099 n100", "n[098-100]");
	assert_folds("n08 n09 n010", "n[08-09,010]");
}

/* fold(expand(x)) expands back to the same names, for awkward sets
 * (each without repeated names, so that the counts compare). */
static void test_fold_round_trip(void **state)
{
	static const char *const sets[] = {
		"dgx[01-16],scale00", "n[0-9,10-12,099-101]", "r[1-3]n[7-12]",
		"a[8-9],a[08-09],a[008-009],a[10-11]", "gpu[1-3,5,7-8]-ib0",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct strlist a = STRLIST_INIT, b = STRLIST_INIT;
		struct err e = ERR_INIT;
		char *folded;

		assert_int_equal(nodeset_expand(sets[i], &a, &e), 0);
		folded = nodeset_fold(a.v, a.n);
		assert_int_equal(nodeset_expand(folded, &b, &e), 0);
		assert_int_equal(a.n, b.n);
		for (size_t k = 0; k < a.n; k++)
			assert_int_not_equal(strlist_index(&b, a.v[k]), -1);
		free(folded);
		strlist_clear(&a);
		strlist_clear(&b);
	}
}

/*
 * 65,536 names that differ before their last number ("n1-ib0") are 65,536
 * groups: found by hashing, not by a linear search per name (9.6 s before).
 */
static void test_fold_many_groups_is_not_quadratic(void **state)
{
	struct strlist a = STRLIST_INIT, b = STRLIST_INIT;
	struct err e = ERR_INIT;
	clock_t t0;
	char *folded;

	(void)state;
	assert_int_equal(nodeset_expand("n[1-65536]-ib0", &a, &e), 0);
	t0 = clock();
	folded = nodeset_fold(a.v, a.n);
	/* CPU time, so a loaded machine does not matter; ~10 ms when hashed */
	assert_true(clock() - t0 < 2 * CLOCKS_PER_SEC);
	assert_int_equal(strncmp(folded, "n1-ib0,n2-ib0,n3-ib0,", 21), 0);
	assert_int_equal(nodeset_expand(folded, &b, &e), 0);
	assert_int_equal(b.n, 65536);
	assert_non_null(strstr(folded, ",n65536-ib0"));
	/* and groups still merge across many distinct ones */
	strlist_push(&a, "n7-ib1");
	strlist_push(&a, "n7-ib2");
	free(folded);
	folded = nodeset_fold(a.v, a.n);
	assert_non_null(strstr(folded, ",n7-ib[0-2],"));
	free(folded);
	strlist_clear(&a);
	strlist_clear(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand_ranges),
		cmocka_unit_test(test_expand_padding),
		cmocka_unit_test(test_expand_spaces_around_items),
		cmocka_unit_test(test_expand_errors),
		cmocka_unit_test(test_expand_message_names_column),
		cmocka_unit_test(test_expand_limit_counts_all_items),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_fold_many_groups_is_not_quadratic),
		cmocka_unit_test(test_fold_padding),
		cmocka_unit_test(test_fold_round_trip),
	};

	return cmocka_run_group_tests_name("nodeset", tests, NULL, NULL);
}

/*
 * Unit tests for engine/base/yamltree.c: documents that are graphs, not trees
 * (an alias inside its own anchor, "billion laughs"), nesting depth, the
 * duplicate-key scan, and jansson running out of memory in ytree_to_json.
 * The hostile inputs are the ones the fuzzing campaign found
 * (tests/fuzz/regress/).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../engine/base/strbuf.h"
#include "../../engine/base/yamltree.h"
#include "jansson-oom.h"

/* Loads `yaml` and returns ytree_load's code; the message goes to *msg. */
static int load(struct ytree *t, const char *yaml, size_t len, struct err *e)
{
	return ytree_load(t, "f.yaml", yaml, len, e);
}

static void assert_load_fails(const char *yaml, size_t len, const char *msg)
{
	struct ytree t;
	struct err e = ERR_INIT;

	assert_int_equal(load(&t, yaml, len, &e), ERR_INVENTORY);
	assert_string_equal(err_msg(&e), msg);
	ytree_release(&t);
	err_clear(&e);
}

#define S(lit) lit, sizeof(lit) - 1

static void test_alias_inside_its_anchor(void **state)
{
	(void)state;
	assert_load_fails(S("&a [*a]"), "f.yaml:1:1: found an alias to the anchored "
			  "node at line 1, column 1 inside that node, expected an "
			  "alias outside its anchor (no cycles)");
	/* deeper: the alias sits in a sequence two levels inside the anchor */
	assert_load_fails(S("top:\n  x: &b\n    k: [1, {z: *b}]\n"),
			  "f.yaml:3:12: found an alias to the anchored node at line 2, "
			  "column 6 inside that node, expected an alias outside its "
			  "anchor (no cycles)");
	/* as a key, too */
	assert_load_fails(S("&m {? *m : 1}"), "f.yaml:1:1: found an alias to the "
			  "anchored node at line 1, column 1 inside that node, "
			  "expected an alias outside its anchor (no cycles)");
}

static void test_aliases_outside_anchor_are_fine(void **state)
{
	struct ytree t;
	struct err e = ERR_INIT;
	json_t *j;
	char *s;

	(void)state;
	assert_int_equal(load(&t, S("d: &d {a: 1, b: [x, y]}\nh1: *d\nh2: *d\n"), &e), 0);
	j = ytree_to_json(&t, ytree_root(&t), "test");
	assert_non_null(j);
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(s, "{\"d\":{\"a\":1,\"b\":[\"x\",\"y\"]},"
			    "\"h1\":{\"a\":1,\"b\":[\"x\",\"y\"]},"
			    "\"h2\":{\"a\":1,\"b\":[\"x\",\"y\"]}}");
	free(s);
	json_decref(j);
	ytree_release(&t);
}

/* 10 levels of 10 aliases each: 10^10 scalars once followed. */
static void test_billion_laughs(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	clock_t t0 = clock();

	(void)state;
	strbuf_addstr(&sb, "l0: &l0 lol\n");
	for (int i = 1; i <= 10; i++) {
		strbuf_addf(&sb, "l%d: &l%d [", i, i);
		for (int k = 0; k < 10; k++)
			strbuf_addf(&sb, "%s*l%d", k ? ", " : "", i - 1);
		strbuf_addstr(&sb, "]\n");
	}
	assert_load_fails(sb.buf, sb.len, "f.yaml:6:5: found aliases that expand to "
			  "more than 100000 nodes, expected at most 100000 (is this "
			  "a \"billion laughs\" document?)");
	/* refused while counting, not after expanding: well under a second of CPU
	 * even under ASan (the expansion itself took 13 s and 4 GB) */
	assert_true(clock() - t0 < 5 * CLOCKS_PER_SEC);
	strbuf_release(&sb);
}

static char *nested(unsigned depth, const char *open, const char *close)
{
	struct strbuf sb = STRBUF_INIT;

	for (unsigned i = 0; i < depth; i++)
		strbuf_addstr(&sb, open);
	for (unsigned i = 0; i < depth; i++)
		strbuf_addstr(&sb, close);
	return strbuf_detach(&sb, NULL);
}

static void test_nesting_depth(void **state)
{
	struct ytree t;
	struct err e = ERR_INIT;
	char *ok = nested(128, "[", "]"), *deep = nested(60000, "[", "]");
	char *maps = nested(200, "{a: ", "}");

	(void)state;
	assert_int_equal(load(&t, ok, strlen(ok), &e), 0);
	ytree_release(&t);
	assert_load_fails(deep, strlen(deep), "f.yaml:1:129: found values nested more "
			  "than 128 deep, expected at most 128");
	assert_load_fails(maps, strlen(maps), "f.yaml:1:513: found values nested more "
			  "than 128 deep, expected at most 128");
	free(ok);
	free(deep);
	free(maps);
}

/* Depth counts what the readers see once aliases are followed. */
static void test_nesting_depth_through_aliases(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *inner = nested(100, "[", "]");

	(void)state;
	strbuf_addf(&sb, "a: &a %s\nb: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[*a]]]]]]]]]]]]]]]]]]]"
		    "]]]]]]]]]]]\n", inner);
	assert_load_fails(sb.buf, sb.len, "f.yaml:2:33: found values nested more "
			  "than 128 deep through an alias, expected at most 128");
	strbuf_release(&sb);
	free(inner);
}

static void check_keys_fails(const char *yaml, const char *msg)
{
	struct ytree t;
	struct err e = ERR_INIT;

	assert_int_equal(load(&t, yaml, strlen(yaml), &e), 0);
	if (msg) {
		assert_int_equal(ytree_check_keys(&t, ytree_root(&t), "m"), ERR_INVENTORY);
		assert_string_equal(err_msg(&e), msg);
	} else {
		assert_int_equal(ytree_check_keys(&t, ytree_root(&t), "m"), 0);
	}
	ytree_release(&t);
	err_clear(&e);
}

static void test_check_keys(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	clock_t t0;

	(void)state;
	check_keys_fails("a: 1\nb: 2\nc: 3\n", NULL);
	/* the earliest key that repeats one before it, named with the first */
	check_keys_fails("z: 1\nb: 2\nb: 3\nz: 4\n", "f.yaml:3:1: duplicate key 'b' "
			 "in m (first at line 2, column 1), expected each key once");
	check_keys_fails("b: 1\nz: 2\nb: 3\nb: 4\nz: 5\n", "f.yaml:3:1: duplicate "
			 "key 'b' in m (first at line 1, column 1), expected each key once");
	/* a bad key after a duplicate: the duplicate; before it: the bad key */
	check_keys_fails("a: 1\na: 2\n[x]: 3\n", "f.yaml:2:1: duplicate key 'a' in m "
			 "(first at line 1, column 1), expected each key once");
	check_keys_fails("a: 1\n[x]: 3\na: 2\n", "f.yaml:2:1: found a sequence as a "
			 "key in m, expected a name");
	/* 200,000 distinct keys: sorted, not compared pairwise (that took minutes) */
	for (int i = 0; i < 200000; i++)
		strbuf_addf(&sb, "k%d: %d\n", i, i);
	t0 = clock();
	check_keys_fails(sb.buf, NULL);
	assert_true(clock() - t0 < 20 * CLOCKS_PER_SEC);
	strbuf_release(&sb);
}

/*
 * Whatever allocation fails, ytree_to_json returns either the whole value or
 * NULL with a message: never a value with parts missing, never NULL alone.
 */
static void test_to_json_out_of_memory(void **state)
{
	static const char yaml[] = "a: [1, 2, {b: x, c: 'y'}]\nd: 2.5\ne: [[], {}]\n";
	const char *want = "{\"a\":[1,2,{\"b\":\"x\",\"c\":\"y\"}],\"d\":2.5,\"e\":[[],{}]}";
	int failures = 0;

	(void)state;
	json_set_alloc_funcs(failing_malloc, free);
	for (long budget = 0; budget < 200; budget++) {
		struct ytree t;
		struct err e = ERR_INIT;
		json_t *j;

		assert_int_equal(load(&t, S(yaml), &e), 0);
		alloc_budget = budget;
		j = ytree_to_json(&t, ytree_root(&t), "the test");
		alloc_budget = -1;
		if (j) {
			char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);

			assert_string_equal(s, want);
			free(s);
			json_decref(j);
		} else {
			failures++;
			assert_non_null(e.msg);
			assert_non_null(strstr(e.msg, "out of memory reading the test"));
		}
		ytree_release(&t);
		err_clear(&e);
	}
	json_set_alloc_funcs(malloc, free);
	assert_true(failures > 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alias_inside_its_anchor),
		cmocka_unit_test(test_aliases_outside_anchor_are_fine),
		cmocka_unit_test(test_billion_laughs),
		cmocka_unit_test(test_nesting_depth),
		cmocka_unit_test(test_nesting_depth_through_aliases),
		cmocka_unit_test(test_check_keys),
		cmocka_unit_test(test_to_json_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* strpool: one copy of each string, found by content, slots replaced and rehashed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/base/strpool.h"
#include "../../engine/base/xalloc.h"

static void test_equal_strings_share_one_copy(void **state)
{
	struct strpool p = STRPOOL_INIT;
	char buf[32];
	const char *a, *b;

	(void)state;
	snprintf(buf, sizeof(buf), "%s", "reachable over SSH");
	a = strpool_intern(&p, buf);
	b = strpool_intern(&p, "reachable over SSH");
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, buf);
	assert_ptr_not_equal(strpool_intern(&p, "reachable"), a);
	assert_int_equal(p.n, 2);
	strpool_clear(&p);
	assert_int_equal(p.n, 0);
	assert_null(p.slot);
}

/* Past many growths every string is still found, and once. */
static void test_grows_and_finds_every_string(void **state)
{
	struct strpool p = STRPOOL_INIT;
	const char *first[2000];
	char s[32];

	(void)state;
	assert_int_equal(strpool_slot(&p, "x"), p.cap);
	for (int i = 0; i < 2000; i++) {
		snprintf(s, sizeof(s), "dgx%04d mlx5_0/1", i);
		first[i] = strpool_intern(&p, s);
	}
	assert_int_equal(p.n, 2000);
	assert_true(p.n * 2 <= p.cap);
	for (int i = 0; i < 2000; i++) {
		snprintf(s, sizeof(s), "dgx%04d mlx5_0/1", i);
		assert_ptr_equal(strpool_intern(&p, s), first[i]);
		assert_ptr_equal(p.slot[strpool_slot(&p, s)], first[i]);
	}
	assert_int_equal(p.n, 2000);
	strpool_clear(&p);
}

/* A caller swaps a slot's string (redaction): after a rehash the new one
 * is found by its content, the old one no more. */
static void test_replaced_slot_found_after_rehash(void **state)
{
	struct strpool p = STRPOOL_INIT;
	size_t slot;

	(void)state;
	for (int i = 0; i < 100; i++) {
		char s[16];

		snprintf(s, sizeof(s), "s%d", i);
		strpool_intern(&p, s);
	}
	strpool_intern(&p, "token=hunter2");
	slot = strpool_slot(&p, "token=hunter2");
	assert_true(slot < p.cap);
	free(p.slot[slot]);
	p.slot[slot] = xstrdup("token=***");
	strpool_rehash(&p);
	assert_int_equal(strpool_slot(&p, "token=hunter2"), p.cap);
	assert_true(strpool_slot(&p, "token=***") < p.cap);
	assert_true(strpool_slot(&p, "s42") < p.cap);
	assert_int_equal(p.n, 101);
	strpool_clear(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal_strings_share_one_copy),
		cmocka_unit_test(test_grows_and_finds_every_string),
		cmocka_unit_test(test_replaced_slot_found_after_rehash),
	};

	return cmocka_run_group_tests_name("strpool", tests, NULL, NULL);
}

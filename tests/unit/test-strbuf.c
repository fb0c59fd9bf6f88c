/* strbuf and strlist: growth, formatting, shell quoting, detach. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../engine/base/strbuf.h"
#include "../../engine/base/strlist.h"

static void test_grows_past_any_initial_size(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_string_equal(sb.buf, "");
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%04d", i);
	assert_int_equal(sb.len, 4000);
	assert_memory_equal(sb.buf + 3996, "0999", 4);
	assert_int_equal(sb.buf[sb.len], '\0');
	strbuf_release(&sb);
	assert_int_equal(sb.len, 0);
}

/* A fresh buffer asked for much at once takes exactly that (a file read
 * whole); small ones start at 64; later growth doubles. */
static void test_first_large_growth_is_exact(void **state)
{
	struct strbuf sb = STRBUF_INIT, small = STRBUF_INIT;

	(void)state;
	strbuf_grow(&sb, 100000);
	assert_int_equal(sb.alloc, 100001);
	assert_int_equal(sb.buf[0], '\0');
	memset(sb.buf, 'x', 100000);
	sb.len = 100000;
	strbuf_addch(&sb, 'y');
	assert_int_equal(sb.alloc, 200002);
	assert_int_equal(sb.buf[100000], 'y');
	strbuf_addch(&small, 'a');
	assert_int_equal(small.alloc, 64);
	strbuf_release(&sb);
	strbuf_release(&small);
}

static void test_shquote_handles_single_quotes(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_addshquoted(&sb, "it's");
	assert_string_equal(sb.buf, "'it'\\''s'");
	strbuf_release(&sb);
}

static void test_rtrim_and_detach(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len;
	char *s;

	(void)state;
	strbuf_addstr(&sb, "MLNX_OFED_LINUX-4.7-3.2.9.0: \n\t");
	strbuf_rtrim(&sb);
	s = strbuf_detach(&sb, &len);
	assert_string_equal(s, "MLNX_OFED_LINUX-4.7-3.2.9.0:");
	assert_int_equal(len, strlen(s));
	assert_int_equal(sb.len, 0);
	free(s);
}

static void test_strlist_push_index_clear(void **state)
{
	struct strlist l = STRLIST_INIT;

	(void)state;
	strlist_push(&l, "dgx01");
	strlist_push(&l, "dgx02");
	assert_int_equal(l.n, 2);
	assert_null(l.v[2]);
	assert_int_equal(strlist_index(&l, "dgx02"), 1);
	assert_int_equal(strlist_index(&l, "dgx03"), -1);
	strlist_clear(&l);
	assert_int_equal(l.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grows_past_any_initial_size),
		cmocka_unit_test(test_first_large_growth_is_exact),
		cmocka_unit_test(test_shquote_handles_single_quotes),
		cmocka_unit_test(test_rtrim_and_detach),
		cmocka_unit_test(test_strlist_push_index_clear),
	};
	return cmocka_run_group_tests_name("strbuf", tests, NULL, NULL);
}

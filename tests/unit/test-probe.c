/*
 * modules/probe.c: KEY=VALUE lines are found by whole key at the start of a
 * line only, the first one wins, values may be empty or hold '='.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../modules/probe.h"

static const char out[] =
	"kernel=3.10.0-957.el7.x86_64\n"
	"loaded=no\n"
	"xloaded=yes\n"
	"sminfo=sminfo: sm lid 1 sm guid 0xec0d9a0300000100, x=y\n"
	"empty=\n"
	"loaded=yes\n"
	"last=no newline";

static void test_values(void **state)
{
	struct strbuf v = STRBUF_INIT;

	(void)state;
	assert_true(probe_value(out, "kernel", &v));
	assert_string_equal(v.buf, "3.10.0-957.el7.x86_64");
	strbuf_reset(&v);
	assert_true(probe_value(out, "sminfo", &v));
	assert_string_equal(v.buf, "sminfo: sm lid 1 sm guid 0xec0d9a0300000100, x=y");
	strbuf_reset(&v);
	assert_true(probe_value(out, "empty", &v));
	assert_string_equal(v.buf, "");
	assert_true(probe_value(out, "last", &v));
	assert_string_equal(v.buf, "no newline");
	strbuf_reset(&v);
	assert_false(probe_value(out, "kern", &v));
	assert_false(probe_value(out, "oaded", &v));
	assert_false(probe_value("", "kernel", &v));
	assert_int_equal(v.len, 0);
	strbuf_release(&v);
}

static void test_is(void **state)
{
	(void)state;
	assert_true(probe_is(out, "loaded", "no"));   /* the first line wins */
	assert_false(probe_is(out, "loaded", "yes"));
	assert_true(probe_is(out, "xloaded", "yes"));
	assert_false(probe_is(out, "loaded", "n"));
	assert_true(probe_is(out, "empty", ""));
	assert_false(probe_is(out, "missing", ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_is),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

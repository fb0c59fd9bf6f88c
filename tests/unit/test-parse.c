/* The parser registry and the shared helpers in engine/parse-util.c. */
#include "parse-fixture.h"

#include "../../engine/parse-util.h"

static void test_table_is_sorted_and_complete(void **state)
{
	size_t n;
	const struct parser *p = parser_list(&n);

	(void)state;
	assert_true(n >= 21);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(p[i].fn);
		assert_true(strlen(p[i].summary) > 0);
		assert_ptr_equal(parser_lookup(p[i].name), &p[i]);
		if (i)
			assert_true(strcmp(p[i - 1].name, p[i].name) < 0);
	}
	assert_null(parser_lookup("no-such-tool"));
	assert_null(parser_lookup(""));
}

/* Empty or blank input is an error for every parser, never {}. */
static void test_empty_input_is_an_error(void **state)
{
	size_t n;
	const struct parser *p = parser_list(&n);
	char want[128];

	(void)state;
	for (size_t i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "%s: no %s output", p[i].name, p[i].name);
		expect_error_text(p[i].name, "", 0, want);
		expect_error_text(p[i].name, " \n\t\n", 4, want);
	}
}

static void test_split_helpers(void **state)
{
	char a[] = "  Node GUID:   0x1070fd03008eb580  ", *k, *v;
	char b[] = " #bytes     #iterations    BW peak[MB/sec]\tMsgRate[Mpps]";
	char c[] = "a  b\tc d", *tok[4];

	(void)state;
	assert_true(split_kv(a, ':', &k, &v));
	assert_string_equal(k, "Node GUID");
	assert_string_equal(v, "0x1070fd03008eb580");
	assert_int_equal(split_columns(b, tok, 4), 4);
	assert_string_equal(tok[2], "BW peak[MB/sec]");
	assert_string_equal(tok[3], "MsgRate[Mpps]");
	assert_int_equal(split_ws(c, tok, 3), 3);
	assert_string_equal(tok[2], "c d"); /* the last keeps the rest */
}

static void test_numbers_and_slugs(void **state)
{
	long long ll;
	double d;
	char *s;
	json_t *j;

	(void)state;
	assert_int_equal(parse_ll("0x9", 0, &ll), 0);
	assert_int_equal(ll, 9);
	assert_int_equal(parse_ll("12ab", 10, &ll), -1);
	assert_int_equal(parse_ll("", 10, &ll), -1);
	assert_int_equal(parse_dbl("5e-07", &d), 0);
	assert_int_equal(parse_dbl("nan", &d), -1);
	j = json_number_or_string("N/A");
	assert_string_equal(json_string_value(j), "N/A");
	json_decref(j);
	j = json_number_or_string("11264.11");
	assert_true(json_is_real(j));
	json_decref(j);
	s = slug("GPFS cluster name");
	assert_string_equal(s, "gpfs_cluster_name");
	free(s);
	s = slug("#bytes");
	assert_string_equal(s, "bytes");
	free(s);
}

/* Line numbers count blank lines and survive CRLF endings. */
static void test_line_numbers_with_crlf(void **state)
{
	const char text[] = "CA 'mlx5_0'\r\n\r\n\tCA type: MT4123\r\n\tbogus\r\n";

	(void)state;
	expect_error_text("ibstat", text, sizeof(text) - 1,
			  "ibstat: line 4: expected 'key: value': 'bogus'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_sorted_and_complete),
		cmocka_unit_test(test_empty_input_is_an_error),
		cmocka_unit_test(test_split_helpers),
		cmocka_unit_test(test_numbers_and_slugs),
		cmocka_unit_test(test_line_numbers_with_crlf),
	};
	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}

/* The parser registry and the shared helpers in engine/parse-util.c. */
#include "parse-fixture.h"

#include "../../engine/facts/parse-util.h"

#include <dirent.h>

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
	assert_int_equal(parse_dbl("0x02c9", &d), -1);
	assert_int_equal(parse_dbl("-1.5", &d), 0);
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

/* Every parser on every fixture (other tools' output, truncated copies):
 * a JSON object or ERR_PARSE with a message naming the parser, nothing else,
 * and no leak or overflow under ASan. */
static void check_any_input(const char *text, size_t len)
{
	size_t n;
	const struct parser *p = parser_list(&n);

	for (size_t i = 0; i < n; i++) {
		struct err err = ERR_INIT;
		json_t *out = NULL;
		int rc = p[i].fn(text, len, &out, &err);

		if (rc) {
			assert_int_equal(rc, ERR_PARSE);
			assert_null(out);
			assert_true(!strncmp(err_msg(&err), p[i].name, strlen(p[i].name)));
		} else {
			assert_true(json_is_object(out));
		}
		json_decref(out);
		err_clear(&err);
	}
}

static void test_every_parser_on_every_fixture(void **state)
{
	const char *root = getenv("BRINGUP_FIXTURES");
	DIR *top = opendir(root ? root : "tests/fixtures/tools"), *dir;
	struct dirent *t, *f;
	size_t files = 0;

	(void)state;
	assert_non_null(top);
	while ((t = readdir(top))) {
		char sub[512];

		if (t->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", root ? root : "tests/fixtures/tools",
			 t->d_name);
		if (!(dir = opendir(sub)))
			continue;
		while ((f = readdir(dir))) {
			struct strbuf sb = STRBUF_INIT;

			if (f->d_name[0] == '.')
				continue;
			fixture_read(t->d_name, f->d_name, &sb);
			check_any_input(sb.buf, sb.len);
			check_any_input(sb.buf, sb.len / 2);
			check_any_input(sb.buf, sb.len / 3);
			strbuf_release(&sb);
			files++;
		}
		closedir(dir);
	}
	closedir(top);
	assert_true(files >= 60);
}

/* Issue 26: text that lacks what a tool always prints is refused as not
 * its output, naming what was missing; the shapes each parser checks. */
static void test_not_tool_output(void **state)
{
	(void)state;
	/* any "word rest" line used to become an attribute */
	expect_error_text("mmdiag-config", "Dependency   OK\n", 16,
			  "mmdiag-config: not mmdiag-config output (no '=== mmdiag: config ===' header)");
	expect_error_text("mmdiag-config", "=== mmdiag: network ===\n", 24,
			  "not mmdiag-config output");
	/* kmod's modinfo starts with filename: */
	expect_error_text("modinfo", "sminfo: sm lid 1 sm guid 0x1, activity count 2 priority 0 state 3 SMINFO_MASTER\n",
			  80, "modinfo: not modinfo output (the first field is not 'filename:')");
	/* ibnetdiscover -p's CA line has three lsmod-like fields */
	expect_error_text("lsmod", "CA    45  1 0x0002c90300a1b2c3 4x EDR - SW     7 22 0x0002c903 ( )\n", 68,
			  "lsmod: not lsmod output");
	/* mmauth show's stanzas have no contact nodes */
	expect_error_text("mmremotecluster", "Cluster name:        a.b\nCipher list:         AUTHONLY\n", 52,
			  "mmremotecluster: not mmremotecluster output");
	/* indented text alone is no lspci stanza */
	expect_error_text("lspci", "   Link 1\n   Link 2\n", 20, "lspci: not lspci output");
	/* a sibling's missing command is not this tool's failure */
	expect_error_text("sminfo", "bash: ofed_info: command not found\n", 35, "sminfo: line 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_sorted_and_complete),
		cmocka_unit_test(test_empty_input_is_an_error),
		cmocka_unit_test(test_not_tool_output),
		cmocka_unit_test(test_split_helpers),
		cmocka_unit_test(test_numbers_and_slugs),
		cmocka_unit_test(test_line_numbers_with_crlf),
		cmocka_unit_test(test_every_parser_on_every_fixture),
	};
	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}

/* redact: which inventory values are secrets, and how they leave text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../engine/inventory/redact.h"

static struct redactor *from_json(const char *text)
{
	struct redactor *r = redactor_new();
	json_error_t je;
	json_t *vars = json_loads(text, 0, &je);

	assert_non_null(vars);
	redactor_add_vars(r, vars);
	json_decref(vars);
	return r;
}

static void test_secret_names_anywhere_in_the_tree(void **state)
{
	struct redactor *r = from_json(
		"{\"bmc_password\": \"hunter22\", \"ofed_version\": \"4.7-3.2.9.0\","
		" \"kube\": {\"API_TOKEN\": [\"tok-one\", {\"x\": \"tok-two\"}]},"
		" \"short_secret\": \"abc\", \"sshPrivate_Key\": \"-----BEGIN\"}");
	char *s;

	(void)state;
	s = redact_dup(r, "pw hunter22 ver 4.7-3.2.9.0 t tok-one tok-two abc -----BEGIN");
	/* "abc" is too short to redact: it would hide every "abc" in every log. */
	assert_string_equal(s, "pw ******** ver 4.7-3.2.9.0 t ******** ******** abc ********");
	free(s);
	redactor_free(r);
}

static void test_longest_secret_wins(void **state)
{
	struct redactor *r = redactor_new();
	char *s;

	(void)state;
	redactor_add(r, "pass");
	redactor_add(r, "password123");
	s = redact_dup(r, "password123 pass passpassword123");
	assert_string_equal(s, "******** ******** ****************");
	free(s);
	redactor_free(r);
}

static void test_strbuf_err_and_json_in_place(void **state)
{
	struct redactor *r = redactor_new();
	struct strbuf sb = STRBUF_INIT;
	struct err e = ERR_INIT;
	json_t *j = json_pack("{s:s, s:[s]}", "a", "x-Sekrit-x", "b", "Sekrit");
	char *dump;

	(void)state;
	redactor_add(r, "Sekrit");
	strbuf_addstr(&sb, "head Sekrit tail");
	redact_strbuf(r, &sb);
	assert_string_equal(sb.buf, "head ******** tail");
	err_set(&e, ERR_REMOTE, "dracut: Sekrit: command not found");
	redact_err(r, &e);
	assert_string_equal(err_msg(&e), "dracut: ********: command not found");
	redact_json(r, j);
	dump = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(dump, "{\"a\":\"x-********-x\",\"b\":[\"********\"]}");
	free(dump);
	json_decref(j);
	err_clear(&e);
	strbuf_release(&sb);
	redactor_free(r);
}

static void test_null_redactor_copies(void **state)
{
	char *s = redact_dup(NULL, "nothing secret");

	(void)state;
	assert_string_equal(s, "nothing secret");
	assert_null(redact_dup(NULL, NULL));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secret_names_anywhere_in_the_tree),
		cmocka_unit_test(test_longest_secret_wins),
		cmocka_unit_test(test_strbuf_err_and_json_in_place),
		cmocka_unit_test(test_null_redactor_copies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* jsontext: host bytes become JSON strings without being dropped, and come back exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../engine/base/jsontext.h"

/* What a JSON reader sees: the value as jansson dumps it. */
static char *dump(json_t *j)
{
	char *s = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(j);
	return s;
}

static void test_valid_utf8_is_kept_as_is(void **state)
{
	static const char s[] = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 tab\there";
	bool exact = false;
	json_t *j = json_text(s, sizeof(s) - 1, &exact);

	(void)state;
	assert_true(exact);
	assert_int_equal(json_string_length(j), sizeof(s) - 1);
	assert_memory_equal(json_string_value(j), s, sizeof(s) - 1);
	json_decref(j);
}

static void test_latin1_byte_becomes_replacement_not_dropped(void **state)
{
	/* printf 'caf\351': what jansson's json_stringn() refuses (NULL). */
	bool exact = true;
	char *s;

	(void)state;
	assert_null(json_stringn("caf\351", 4));
	s = dump(json_text("caf\351", 4, &exact));
	assert_false(exact);
	assert_string_equal(s, "\"caf\xef\xbf\xbd\"");
	free(s);
}

static void test_invalid_forms_each_byte_replaced(void **state)
{
	static const struct { const char *in; size_t len; size_t bad; } cases[] = {
		{ "\xc0\xaf", 2, 2 },           /* overlong '/' */
		{ "\xe0\x80\xaf", 3, 3 },       /* overlong, 3 bytes */
		{ "\xed\xa0\x80", 3, 3 },       /* UTF-16 surrogate D800 */
		{ "\xf4\x90\x80\x80", 4, 4 },   /* above U+10FFFF */
		{ "\xf8\x88\x80\x80\x80", 5, 5 },
		{ "\x80x", 2, 1 },              /* lone continuation */
		{ "\xe2\x82", 2, 2 },           /* cut at the end: the 4 MiB cap */
		{ "a\0b", 3, 0 },               /* NUL is valid UTF-8 and JSON (\u0000) */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		size_t bad = utf8_sanitize(cases[i].in, cases[i].len, &sb);
		json_t *j = json_stringn(sb.buf, sb.len);

		assert_int_equal(bad, cases[i].bad);
		assert_non_null(j);
		json_decref(j);
		strbuf_release(&sb);
	}
}

static void test_base64_matches_rfc4648_vectors(void **state)
{
	static const char *const vec[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++) {
		struct strbuf sb = STRBUF_INIT;

		base64_encode(vec[i][0], strlen(vec[i][0]), &sb);
		assert_string_equal(sb.buf, vec[i][1]);
		strbuf_release(&sb);
	}
}

static void test_set_bytes_adds_base64_only_when_needed(void **state)
{
	json_t *o = json_object();
	char *s;

	(void)state;
	json_set_bytes(o, "stdout", "ok\n", 3);
	json_set_bytes(o, "stderr", "caf\351\n", 5);
	s = dump(o);
	assert_string_equal(s, "{\"stdout\":\"ok\\n\",\"stderr\":\"caf\xef\xbf\xbd\\n\","
			    "\"stderr_base64\":\"Y2Fm6Qo=\"}");
	free(s);
}

/* A reader's decoder (RFC 4648), independent of the encoder under test. */
static size_t b64_decode(const char *s, char *out)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned acc = 0;
	int bits = 0;
	size_t n = 0;

	for (; *s && *s != '='; s++) {
		acc = acc << 6 | (unsigned)(strchr(tab, *s) - tab);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (char)(acc >> bits & 0xff);
		}
	}
	return n;
}

static void test_all_bytes_survive_a_round_trip(void **state)
{
	char in[512];
	json_t *o = json_object(), *back;
	char *s;
	json_error_t je;

	(void)state;
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (char)(i * 7 + 3);
	json_set_bytes(o, "stdout", in, sizeof(in));
	s = dump(o);
	back = json_loads(s, JSON_ALLOW_NUL, &je);
	assert_non_null(back);
	assert_non_null(json_object_get(back, "stdout_base64"));
	{
		const char *b = json_string_value(json_object_get(back, "stdout_base64"));
		char out[sizeof(in)];
		size_t n = b64_decode(b, out);

		assert_int_equal(n, sizeof(in));
		assert_memory_equal(out, in, sizeof(in));
	}
	json_decref(back);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_utf8_is_kept_as_is),
		cmocka_unit_test(test_latin1_byte_becomes_replacement_not_dropped),
		cmocka_unit_test(test_invalid_forms_each_byte_replaced),
		cmocka_unit_test(test_base64_matches_rfc4648_vectors),
		cmocka_unit_test(test_set_bytes_adds_base64_only_when_needed),
		cmocka_unit_test(test_all_bytes_survive_a_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

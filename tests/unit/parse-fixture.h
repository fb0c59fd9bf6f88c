/*
 * Helpers for the parser unit tests: run a parser on a copied real sample
 * from tests/fixtures/tools/TOOL/ (or on a string) and look into the JSON
 * by path ("cas/1/ports/0/port_guid"). Tests run from the repository root;
 * BRINGUP_FIXTURES points elsewhere.
 */
#ifndef BRINGUP_TEST_PARSE_FIXTURE_H
#define BRINGUP_TEST_PARSE_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/facts/parse.h"
#include "../../engine/base/strbuf.h"

/* Appends the whole file at path to sb; fails the test if it cannot. */
static inline void file_read(const char *path, struct strbuf *sb)
{
	char chunk[4096];
	size_t got;
	FILE *f = fopen(path, "r");

	if (!f)
		fail_msg("cannot open fixture %s", path);
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		strbuf_add(sb, chunk, got);
	fclose(f);
}

static inline void fixture_read(const char *tool, const char *file,
				struct strbuf *sb)
{
	const char *dir = getenv("BRINGUP_FIXTURES");
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s/%s",
		 dir ? dir : "tests/fixtures/tools", tool, file);
	file_read(path, sb);
}

/* Runs TOOL's parser on text; fails the test unless it succeeds. */
static inline json_t *parse_text(const char *tool, const char *text, size_t len)
{
	const struct parser *p = parser_lookup(tool);
	struct err err = ERR_INIT;
	json_t *out = NULL;

	assert_non_null(p);
	if (p->fn(text, len, &out, &err))
		fail_msg("%s failed: %s", tool, err_msg(&err));
	assert_non_null(out);
	err_clear(&err);
	return out;
}

/* The JSON of TOOL's parser on its fixture FILE; the caller decrefs. */
static inline json_t *parse_fixture(const char *tool, const char *file)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *out;

	fixture_read(tool, file, &sb);
	out = parse_text(tool, sb.buf, sb.len);
	strbuf_release(&sb);
	return out;
}

/* A tool's own failure (parse.h): ok false and, unless want is NULL, its
 * first line as the error. */
static inline void assert_tool_failure(json_t *j, const char *want)
{
	assert_true(json_is_false(json_object_get(j, "ok")));
	if (want)
		assert_string_equal(json_string_value(json_object_get(j, "error")), want);
}

/* Expects TOOL's parser to fail on text with a message containing want. */
static inline void expect_error_text(const char *tool, const char *text,
				     size_t len, const char *want)
{
	struct err err = ERR_INIT;
	json_t *out = NULL;

	assert_int_equal(parser_lookup(tool)->fn(text, len, &out, &err), ERR_PARSE);
	assert_null(out);
	if (!strstr(err_msg(&err), want))
		fail_msg("%s: wanted '%s' in '%s'", tool, want, err_msg(&err));
	err_clear(&err);
}

static inline void expect_error(const char *tool, const char *file,
				const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	fixture_read(tool, file, &sb);
	expect_error_text(tool, sb.buf, sb.len, want);
	strbuf_release(&sb);
}

/* Expands tabs to 8-column stops, as several web sources did. */
static inline void expand_tabs(const struct strbuf *in, struct strbuf *out)
{
	size_t col = 0;

	for (size_t i = 0; i < in->len; i++) {
		char c = in->buf[i];

		if (c == '\t') {
			do
				strbuf_addch(out, ' ');
			while (++col % 8);
		} else {
			strbuf_addch(out, c);
			col = c == '\n' ? 0 : col + 1;
		}
	}
}

/* Follows "a/0/b": object keys and array indexes; NULL when absent. */
static inline json_t *jpath(json_t *j, const char *path)
{
	char *dup = strdup(path), *save = NULL, *part;

	for (part = strtok_r(dup, "/", &save); part && j;
	     part = strtok_r(NULL, "/", &save)) {
		char *end;
		long idx = strtol(part, &end, 10);

		j = json_is_array(j) && !*end ? json_array_get(j, idx) :
						json_object_get(j, part);
	}
	free(dup);
	return j;
}

static inline void assert_jstr_at(json_t *root, const char *path,
				  const char *want)
{
	const char *got = json_string_value(jpath(root, path));

	if (!got || strcmp(got, want))
		fail_msg("%s: wanted \"%s\", got %s%s%s", path, want,
			 got ? "\"" : "", got ? got : "(none)", got ? "\"" : "");
}

static inline void assert_jint_at(json_t *root, const char *path, long long want)
{
	json_t *j = jpath(root, path);

	if (!json_is_integer(j) || json_integer_value(j) != want)
		fail_msg("%s: wanted %lld", path, want);
}

static inline void assert_jnum_at(json_t *root, const char *path, double want)
{
	json_t *j = jpath(root, path);

	if (!json_is_number(j) || fabs(json_number_value(j) - want) > 1e-9)
		fail_msg("%s: wanted %g, got %g", path, want,
			 j ? json_number_value(j) : NAN);
}

static inline void assert_jbool_at(json_t *root, const char *path, int want)
{
	json_t *j = jpath(root, path);

	if (!json_is_boolean(j) || json_is_true(j) != !!want)
		fail_msg("%s: wanted %s", path, want ? "true" : "false");
}

static inline void assert_jsize_at(json_t *root, const char *path, size_t want)
{
	json_t *j = jpath(root, path);
	size_t got = json_is_array(j) ? json_array_size(j) : json_object_size(j);

	if (!j || got != want)
		fail_msg("%s: wanted %zu entries, got %zu", path, want, got);
}

#endif

/*
 * dcgmi diag -r N (NVIDIA DCGM diagnostics): the two-column result table.
 */
#include "parse.h"
#include "parse-util.h"
#include "../base/xalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * Table rows are "| Name | Value |" between "+---+---+" rules; a section
 * starts at "|-----  Deployment  ---+---|" (or "+-----  Stress ...+").
 * A test's value is a result ("Pass", "Fail", "Skip", "Warn", "Not Run"),
 * for some or all GPUs ("Pass - All", "Fail - GPU: 0", "Pass - GPUs: 1, 2",
 * "Fail - GPU 3"), continued on rows with an empty name; "Warning",
 * "Error" and "Info" rows are messages, wrapped at the column's width over
 * rows with an empty name (a word may be cut: the pieces join as they are).
 * Metadata rows (DCGM Version...) are values. An excerpt that starts
 * inside the table is read with a warning. Any other line is an error
 * naming it; dcgmi's own failure ("Error: ..." outside the table) is
 * ok:false. {"ok", "completed", "metadata": {name: value}, "tests":
 * [{"section", "name", "status", "results": [{"status", "all" | "gpus"}]}],
 * "messages": [{"kind", "test", "gpu"?, "text"}]}; a test's status is its
 * worst result (Fail > Warn > Pass > Skip > Not Run).
 */
struct dcgmi_state {
	json_t *root;
	char *section;
	json_t *test;      /* the last test row (borrowed) */
	json_t *message;   /* the message being continued (borrowed) */
	bool header, in_meta;
};

static const char *const results[] = { "Fail", "Warn", "Pass", "Skip", "Not Run" };

/* results[] index of s's leading result word, its length in *ret_n; -1 if none. */
static int result_word(const char *s, size_t *ret_n)
{
	for (size_t i = 0; i < ARRAY_SIZE(results); i++) {
		size_t n = strlen(results[i]);

		if (!strncmp(s, results[i], n) && (!s[n] || s[n] == ' ')) {
			*ret_n = n;
			return (int)i;
		}
	}
	return -1;
}

/* "Pass", "Pass - All", "Fail - GPU: 0", "Pass - GPUs: 1, 2, 3", "Fail - GPU 3". */
static int add_result(json_t *test, const char *v)
{
	size_t n;
	int r = result_word(v, &n), worst;
	json_t *res, *old = json_object_get(test, "status");
	const char *p = v + n;

	if (r < 0)
		return -1;
	res = json_pack("{s:s}", "status", results[r]);
	if (*p) {
		if (!(p = skip_prefix(p, " - ")))
			goto bad;
		if (!strcmp(p, "All")) {
			jset_bool(res, "all", 1);
		} else {
			json_t *gpus = jarray_at(res, "gpus");

			if (!(p = skip_prefix(p, "GPUs")) && !(p = skip_prefix(v + n + 3, "GPU")))
				goto bad;
			if (*p == ':')
				p++;
			do {
				char *end;
				long g;

				while (*p == ' ' || *p == ',')
					p++;
				g = strtol(p, &end, 10);
				if (end == p || g < 0 || g > 1023)
					goto bad;
				json_array_append_new(gpus, json_integer(g));
				p = end;
			} while (*p == ',');
			if (*p)
				goto bad;
		}
	}
	json_array_append_new(jarray_at(test, "results"), res);
	worst = r;
	for (size_t i = 0; old && i < ARRAY_SIZE(results); i++)
		if (!strcmp(json_string_value(old), results[i]) && (int)i < worst)
			worst = (int)i;
	jset_str(test, "status", results[worst]);
	return 0;
bad:
	json_decref(res);
	return -1;
}

/* The GPU a message names first ("GPU 3 has ..."), or -1. */
static long message_gpu(const char *text)
{
	const char *p = skip_prefix(text, "GPU ");
	char *end;
	long g;

	if (!p)
		return -1;
	g = strtol(p, &end, 10);
	return end != p && g >= 0 ? g : -1;
}

/* Cuts "| name | value |" (the closing bar may be missing on a cut capture);
 * the value keeps what follows its one blank of padding. */
static bool row_cells(char *s, char **ret_name, char **ret_value)
{
	char *bar, *v;
	size_t n;

	if (*s != '|' || !(bar = strchr(s + 1, '|')))
		return false;
	*bar = '\0';
	*ret_name = trim(s + 1);
	v = bar + 1;
	n = strlen(v);
	if (n && v[n - 1] == '|')
		v[--n] = '\0';
	if (strchr(v, '|'))
		return false;
	if (*v == ' ')
		v++;
	n = strlen(v);
	while (n && v[n - 1] == ' ')
		v[--n] = '\0';
	*ret_value = v;
	return true;
}

static int dcgmi_line(void *state, struct pline *ln, struct err *err)
{
	static const char *const failures[] = { "Error: " };
	static const char *const kinds[] = { "Warning", "Error", "Info" };
	struct dcgmi_state *st = state;
	char *s = ln->text, *name, *value;

	if (!*s)
		return 0;
	if (!strcmp(s, "Successfully ran diagnostic for group.")) {
		jset_bool(st->root, "completed", 1);
		return 0;
	}
	if (*s != '|' && *s != '+' &&
	    parse_tool_line(st->root, ln->tool, s, failures, ARRAY_SIZE(failures), NULL))
		return 0;
	if ((*s == '+' || *s == '|') && (skip_prefix(s + 1, "-----  "))) {
		char *w = s + 8, *end = strchr(w, ' ');

		if (!end || end == w)
			return pline_error(ln, err, "expected a section name");
		free(st->section);
		st->section = xstrndup(w, (size_t)(end - w));
		st->in_meta = !strcmp(st->section, "Metadata");
		st->test = st->message = NULL;
		return 0;
	}
	if (*s == '+') {
		s++;
		if (strspn(s, "-=+") != strlen(s))
			return pline_error(ln, err, "expected a table rule");
		return 0;
	}
	if (!row_cells(s, &name, &value))
		return pline_error(ln, err, "expected '| name | value |'");
	if (!st->header) {
		st->header = true;
		if (!strcmp(name, "Diagnostic") && !strcmp(trim(value), "Result"))
			return 0;
		/* an excerpt that starts inside the table: kept, and said so */
		parse_warning(st->root, "the table starts before line 1 (an excerpt: no header)");
	}
	if (!*name) {
		if (st->in_meta)
			return pline_error(ln, err, "a continued metadata row");
		if (st->message) {
			const char *old = json_string_value(json_object_get(st->message, "text"));
			char *joined = xasprintf("%s%s", old, value);

			jset_str(st->message, "text", joined);
			free(joined);
			return 0;
		}
		if (st->test && !add_result(st->test, trim(value)))
			return 0;
		return pline_error(ln, err, "a continued row that is neither a result nor a message");
	}
	st->message = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (strcmp(name, kinds[i]))
			continue;
		st->message = jarray_new_object(jarray_at(st->root, "messages"));
		jset_str(st->message, "kind", kinds[i]);
		jset_str(st->message, "section", st->section);
		if (st->test)
			jset_str(st->message, "test", json_string_value(json_object_get(st->test, "name")));
		jset_str(st->message, "text", value);
		return 0;
	}
	if (st->in_meta) {
		jset_str(jobject_at(st->root, "metadata"), name, trim(value));
		return 0;
	}
	st->test = jarray_new_object(jarray_at(st->root, "tests"));
	jset_str(st->test, "section", st->section); /* NULL (skipped) in an excerpt */
	jset_str(st->test, "name", name);
	if (add_result(st->test, trim(value)))
		return pline_error(ln, err, "not a result (Pass, Fail, Skip, Warn, Not Run [- All | - GPU: N])");
	return 0;
}

int parse_dcgmi_diag(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct dcgmi_state st = { .root = json_object() };
	json_t *m;
	size_t i;
	int rc;

	jarray_at(st.root, "tests");
	jarray_at(st.root, "messages");
	rc = parse_lines("dcgmi-diag", buf, len, dcgmi_line, &st, err);
	free(st.section);
	if (!rc && !st.header && !json_object_get(st.root, "ok"))
		rc = parse_error_end("dcgmi-diag", err, "no 'Diagnostic | Result' table");
	/* the GPU a message is about, once its wrapped text is whole */
	json_array_foreach(json_object_get(st.root, "messages"), i, m) {
		long g = message_gpu(json_string_value(json_object_get(m, "text")));

		if (g >= 0)
			jset_int(m, "gpu", g);
	}
	if (!rc)
		parse_failed(st.root);
	return parse_done(rc, st.root, ret);
}

/* by[subject]: its worst status and every reason, each once. */
static void problem_note(json_t *by, const char *subject, bool fail, const char *what)
{
	json_t *o = json_object_get(by, subject);
	const char *old;
	char *both;

	if (!o) {
		o = json_pack("{s:b, s:s}", "fail", 0, "what", "");
		json_object_set_new(by, subject, o);
	}
	if (fail)
		json_object_set_new(o, "fail", json_true());
	old = json_string_value(json_object_get(o, "what"));
	if (strstr(old, what))
		return;
	both = xasprintf("%s%s%s", old, *old ? "; " : "", what);
	json_object_set_new(o, "what", json_string(both));
	free(both);
}

/*
 * A test that fails names the GPUs its result lists ("Fail - GPU: 0"); an
 * Error or Warning row names the GPU its words do ("GPU 3 has uncorrectable
 * memory errors..."), else the test. Judged from the table alone.
 */
json_t *dcgmi_diag_problems(const json_t *diag)
{
	json_t *by = json_object(), *t, *r, *m;
	size_t i, k;

	json_array_foreach(json_object_get(diag, "tests"), i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));

		json_array_foreach(json_object_get(t, "results"), k, r) {
			const char *st = json_string_value(json_object_get(r, "status"));
			json_t *gpus = json_object_get(r, "gpus"), *g;
			size_t gi;
			char *what;

			if (!st || !name || (strcmp(st, "Fail") && strcmp(st, "Warn")))
				continue;
			what = xasprintf("%s: %s", name, st);
			json_array_foreach(gpus, gi, g) {
				char *subj = xasprintf("GPU %lld", (long long)json_integer_value(g));

				problem_note(by, subj, !strcmp(st, "Fail"), what);
				free(subj);
			}
			if (!json_array_size(gpus))
				problem_note(by, name, !strcmp(st, "Fail"), what);
			free(what);
		}
	}
	json_array_foreach(json_object_get(diag, "messages"), i, m) {
		const char *kind = json_string_value(json_object_get(m, "kind"));
		const char *test = json_string_value(json_object_get(m, "test"));
		const char *section = json_string_value(json_object_get(m, "section"));
		const char *text = json_string_value(json_object_get(m, "text"));
		json_t *g = json_object_get(m, "gpu");
		char *subj, *what;

		if (!kind || !text || !strcmp(kind, "Info"))
			continue;
		subj = json_is_integer(g) ? xasprintf("GPU %lld", (long long)json_integer_value(g)) :
		       xstrdup(test ? test : section ? section : "diagnostic");
		what = xasprintf("%s: %s", test ? test : kind, text);
		/* An Error row stops the diagnostic: a failure whatever else
		 * ran; a Warning alone warns (problem_note never lowers a fail). */
		problem_note(by, subj, !strcmp(kind, "Error"), what);
		free(subj);
		free(what);
	}
	return by;
}

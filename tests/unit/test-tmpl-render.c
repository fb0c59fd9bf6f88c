/*
 * Unit tests for engine/kube/tmpl-render.c: variables, loops, conditionals,
 * standalone tag lines, the errors that name the template's line, and
 * values that would change a YAML document's shape.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../engine/kube/tmpl-render.h"

static json_t *ctx(void)
{
	json_error_t je;
	json_t *j = json_loads("{ \"name\": \"scc-for-mpi\", \"n\": 100, \"on\": true, "
			       "\"off\": false, \"empty\": [], \"ns\": [\"adas\", \"ml\"], "
			       "\"hcas\": [ {\"dev\": \"ib0\"}, {\"dev\": \"ib1\"} ], "
			       "\"scale\": { \"id\": \"16217308676014575381\" }, "
			       "\"bad\": \"a: b\", \"nl\": \"x\\ny\", \"s_on\": \"on\", "
			       "\"s_oct\": \"0123\", \"s_true\": \"true\", \"s_hex\": \"0x1F\", "
			       "\"s_sexa\": \"1:20\", \"s_ip\": \"192.168.1.30\", \"s_inf\": \"-.inf\", "
			       "\"s_tilde\": \"~\", \"s_amp\": \"&x\", \"s_text\": \"100Gi\" }", 0, &je);

	assert_non_null(j);
	return j;
}

/* Renders src with ctx(); returns the text (caller frees) or NULL with *e set. */
static char *render(const char *src, struct err *e)
{
	struct tmpl *t = NULL;
	struct strbuf sb = STRBUF_INIT;
	json_t *c = ctx();
	int rc = tmpl_parse("t.yaml", src, strlen(src), &t, e);

	if (!rc)
		rc = tmpl_expand(t, c, &sb, NULL, NULL, e);
	tmpl_free(t);
	json_decref(c);
	if (rc) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

static void assert_renders(const char *src, const char *want)
{
	struct err e = ERR_INIT;
	char *got = render(src, &e);

	if (!got)
		fail_msg("%s", err_msg(&e));
	assert_string_equal(got, want);
	free(got);
}

static void assert_fails(const char *src, const char *msg)
{
	struct err e = ERR_INIT;
	char *got = render(src, &e);

	assert_null(got);
	assert_int_equal(e.code, ERR_PARSE);
	if (!strstr(err_msg(&e), msg))
		fail_msg("'%s' lacks '%s'", err_msg(&e), msg);
	err_clear(&e);
}

static void test_variables_and_paths(void **state)
{
	(void)state;
	assert_renders("name: {{name}} {{ n }}\n", "name: scc-for-mpi 100\n");
	assert_renders("id: '{{scale.id}}'\n", "id: '16217308676014575381'\n");
	assert_renders("on: {{on}} {{off}}\n", "on: true false\n");
	assert_renders("v: {{q bad}}\n", "v: \"a: b\"\n");
	assert_renders("v: {{q nl}}\n", "v: \"x\\ny\"\n");
}

/*
 * A string that YAML 1.2 core (bringup's re-parse) or YAML 1.1 (the API
 * server's sigs.k8s.io/yaml) would read as a boolean, null or number, or
 * that starts a YAML construct, is written double-quoted when it is a whole
 * plain scalar, so the inventory's "on" stays the string "on" and "0123"
 * is not octal 83; inside quotes or beside other text it is left alone.
 */
static void test_strings_that_yaml_would_retype_are_quoted(void **state)
{
	(void)state;
	assert_renders("a: {{s_on}}\nb: {{s_oct}}\nc: {{s_true}}\nd: {{s_hex}}\n",
		       "a: \"on\"\nb: \"0123\"\nc: \"true\"\nd: \"0x1F\"\n");
	assert_renders("- {{s_sexa}}\n- {{s_ip}}\n- {{s_inf}}\n- {{s_tilde}}\n- {{s_amp}}\n",
		       "- \"1:20\"\n- \"192.168.1.30\"\n- \"-.inf\"\n- \"~\"\n- \"&x\"\n");
	assert_renders("  {{s_on}}\n", "  \"on\"\n");
	/* plain text stays plain; numbers and booleans of the context stay typed */
	assert_renders("a: {{s_text}}\nb: {{n}}\nc: {{on}}\n", "a: 100Gi\nb: 100\nc: true\n");
	/* not a whole scalar: in quotes, beside text, in a comment */
	assert_renders("a: '{{s_on}}'\nb: \"{{s_oct}}\"\nc: x-{{s_on}}\nd: {{s_on}}-x\n",
		       "a: 'on'\nb: \"0123\"\nc: x-on\nd: on-x\n");
	assert_renders("# mode: {{s_on}}\n", "# mode: on\n");
}

static void test_loops_with_first_last_index(void **state)
{
	(void)state;
	assert_renders("l:\n{{#ns}}\n- {{.}}\n{{/ns}}\n", "l:\n- adas\n- ml\n");
	assert_renders("[{{#hcas}}{{dev}}@{{@index}}{{^@last}},{{/@last}}{{/hcas}}]",
		       "[ib0@0,ib1@1]");
	/* outer names are visible inside a loop */
	assert_renders("{{#ns}}{{.}}/{{name}} {{/ns}}", "adas/scc-for-mpi ml/scc-for-mpi ");
	assert_renders("{{#scale}}{{id}}{{/scale}}", "16217308676014575381");
}

static void test_conditionals(void **state)
{
	(void)state;
	assert_renders("{{#on}}yes{{/on}}{{#off}}no{{/off}}", "yes");
	assert_renders("{{^off}}a{{/off}}{{^on}}b{{/on}}{{^empty}}c{{/empty}}{{^absent}}d{{/absent}}",
		       "acd");
	assert_renders("{{#empty}}x{{/empty}}{{#absent}}y{{/absent}}", "");
	assert_renders("{{! a comment }}k: v\n", "k: v\n");
}

static void test_standalone_tag_lines_vanish(void **state)
{
	(void)state;
	assert_renders("a:\n  {{#on}}\n  b: 1\n  {{/on}}\nc: 2\n", "a:\n  b: 1\nc: 2\n");
	assert_renders("x: {{#on}}1{{/on}}\n", "x: 1\n");
}

static void test_template_errors_name_line_and_column(void **state)
{
	(void)state;
	assert_fails("a: 1\nb: {{nope}}\n", "t.yaml:2:4: unknown variable 'nope'");
	assert_fails("a:\n{{#ns}}\n- x\n", "t.yaml:2:1: section 'ns' is never closed");
	assert_fails("{{#ns}}{{/on}}", "t.yaml:1:8: '{{/on}}' where '{{/ns}}' was expected");
	assert_fails("x\n{{/ns}}", "t.yaml:2:1: '{{/ns}}' closes no section");
	assert_fails("a: {{name", "t.yaml:1:4: '{{' is never closed");
	assert_fails("{{a b}}", "t.yaml:1:1: '{{a b}}' is not a variable name");
	assert_fails("{{ns}}", "'ns' is a list");
	assert_fails("k: {{bad}}", "t.yaml:1:4: the value of 'bad' holds ': '");
	assert_fails("k: {{nl}}", "holds a line break");
}

static void test_render_yaml_parses_and_points_at_template_line(void **state)
{
	const char *good = "kind: ConfigMap\nmetadata:\n  name: {{name}}\n";
	const char *bad = "kind: ConfigMap\n{{#ns}}\nmetadata:\n  name: [{{.}}\n{{/ns}}\nx: 1\n";
	struct strbuf sb = STRBUF_INIT;
	struct err e = ERR_INIT;
	json_t *c = ctx(), *obj = NULL;

	(void)state;
	assert_int_equal(tmpl_render_yaml("cm.yaml", good, strlen(good), c, &sb, &obj, &e), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(obj, "metadata"),
							      "name")), "scc-for-mpi");
	json_decref(obj);
	assert_int_equal(tmpl_render_yaml("cm.yaml", bad, strlen(bad), c, &sb, &obj, &e), ERR_PARSE);
	assert_null(obj);
	/* the broken flow sequence opens on template line 4 and fails after it */
	if (!strstr(err_msg(&e), "cm.yaml:") || !strstr(err_msg(&e), "renders invalid YAML"))
		fail_msg("%s", err_msg(&e));
	assert_non_null(strstr(err_msg(&e), "cm.yaml:4:") ?: strstr(err_msg(&e), "cm.yaml:3:"));
	/* nothing of the failed render stays in the buffer */
	assert_int_equal(sb.len, strlen("kind: ConfigMap\nmetadata:\n  name: scc-for-mpi\n"));
	err_clear(&e);
	assert_int_equal(tmpl_render_yaml("two.yaml", "a: 1\n---\nb: 2\n", 13, c, &sb, NULL, &e),
			 ERR_PARSE);
	assert_non_null(strstr(err_msg(&e), "two.yaml:2: renders more than one YAML document"));
	err_clear(&e);
	assert_int_equal(tmpl_render_yaml("s.yaml", "{{name}}\n", 9, c, &sb, NULL, &e), ERR_PARSE);
	assert_non_null(strstr(err_msg(&e), "not an object"));
	err_clear(&e);
	strbuf_release(&sb);
	json_decref(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variables_and_paths),
		cmocka_unit_test(test_strings_that_yaml_would_retype_are_quoted),
		cmocka_unit_test(test_loops_with_first_last_index),
		cmocka_unit_test(test_conditionals),
		cmocka_unit_test(test_standalone_tag_lines_vanish),
		cmocka_unit_test(test_template_errors_name_line_and_column),
		cmocka_unit_test(test_render_yaml_parses_and_points_at_template_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

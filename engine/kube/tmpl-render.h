/*
 * tmpl-render: the small, logic-less template language of the Kubernetes
 * manifests (templates/openshift/). Mustache-like, over a jansson context:
 *
 *   {{name}}  {{a.b}}  {{.}}   the value (string, number, boolean) at the
 *                              path; the first name is looked up from the
 *                              innermost loop outwards. Unknown is an error.
 *   {{q name}}                 the same as a double-quoted YAML/JSON string
 *   {{#name}} ... {{/name}}    a list: once per item (the item becomes the
 *                              innermost scope); a map: once inside it;
 *                              true, a number, a non-empty string: once;
 *                              false, null, [], "" or absent: not at all
 *   {{^name}} ... {{/name}}    once when {{#name}} would not run
 *   {{@first}} {{@last}} {{@index}}  inside a list (booleans, 0-based index)
 *   {{! comment }}
 *
 * A line holding only a section or comment tag disappears with its newline,
 * so templates indent like the YAML they produce. A plain {{name}} refuses a
 * value that could change the document's structure (a newline, a quote, a
 * backslash, ": ", " #"): such values go through {{q name}}. A string that
 * is a whole plain scalar of its line but that YAML would read as something
 * else (1.2 core or 1.1, as the API server's sigs.k8s.io/yaml reads: "on",
 * "yes", "0123", "1:20", "~") is written double-quoted by itself, so it
 * stays a string.
 *
 * tmpl_render_yaml() re-parses what it rendered with libyaml; a template that
 * renders invalid YAML is an error naming the template and its line.
 */
#ifndef BRINGUP_TMPL_RENDER_H
#define BRINGUP_TMPL_RENDER_H

#include <jansson.h>
#include <stddef.h>

#include "../base/err.h"
#include "../base/strbuf.h"

struct tmpl;

/*
 * Parses a template (`name` is used in messages: "NAME:LINE:COL: ...").
 * ERR_PARSE for an unclosed, stray or mismatched section or a bad tag.
 * *ret is owned by the caller (tmpl_free); `src` is copied.
 */
int tmpl_parse(const char *name, const char *src, size_t len, struct tmpl **ret,
	       struct err *err);
void tmpl_free(struct tmpl *t);

/*
 * Appends the template rendered with `ctx` to `out`. When ret_lines is not
 * NULL it gets (caller frees) the template line that produced each output
 * line (index 0 for output line 1), *ret_nlines entries.
 * ERR_PARSE naming NAME:LINE:COL for an unknown variable or an unsafe value.
 */
int tmpl_expand(const struct tmpl *t, json_t *ctx, struct strbuf *out,
		unsigned **ret_lines, size_t *ret_nlines, struct err *err);

/*
 * Parses, expands and re-parses as exactly one YAML document. On success
 * `out` holds the text and, when ret_obj is not NULL, *ret_obj the document
 * as JSON (caller decrefs). Invalid YAML: ERR_PARSE with
 * "NAME:LINE: renders invalid YAML: <problem> (rendered line N)".
 */
int tmpl_render_yaml(const char *name, const char *src, size_t len, json_t *ctx,
		     struct strbuf *out, json_t **ret_obj, struct err *err);

#endif

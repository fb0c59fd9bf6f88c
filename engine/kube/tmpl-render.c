/*
 * The manifest template language (see tmpl-render.h): a parser into a tree
 * of nodes, an expander over a jansson context, and the YAML re-parse that
 * maps libyaml's complaint back to the template line that caused it.
 */
#include "tmpl-render.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "../base/xalloc.h"
#include "../base/yamltree.h"

enum node_kind { N_TEXT, N_VAR, N_QVAR, N_SECTION, N_INVERTED };

struct node {
	enum node_kind kind;
	unsigned line, col;       /* where the node starts in the template */
	size_t off, len;          /* N_TEXT: the bytes of t->src */
	char *path;               /* N_VAR, N_QVAR, sections */
	struct node *child;       /* sections: first node inside */
	struct node *next;
};

struct tmpl {
	char *name;
	char *src;
	size_t len;
	struct node *root;
};

/* Sections nest at most this deep: the expander recurses once per level. */
#define TMPL_MAX_DEPTH 32

static void nodes_free(struct node *n)
{
	while (n) {
		struct node *next = n->next;

		nodes_free(n->child);
		free(n->path);
		free(n);
		n = next;
	}
}

void tmpl_free(struct tmpl *t)
{
	if (!t)
		return;
	nodes_free(t->root);
	free(t->name);
	free(t->src);
	free(t);
}

struct parser {
	struct tmpl *t;
	size_t pos;
	unsigned line;
	size_t line_start;
	struct err *err;
};

static unsigned col_at(const struct parser *p, size_t off)
{
	return (unsigned)(off - p->line_start) + 1;
}

/* Moves p->pos to `to`, counting lines. */
static void advance(struct parser *p, size_t to)
{
	for (; p->pos < to; p->pos++)
		if (p->t->src[p->pos] == '\n') {
			p->line++;
			p->line_start = p->pos + 1;
		}
}

static bool valid_path(const char *s)
{
	if (!strcmp(s, ".") || !strcmp(s, "@first") || !strcmp(s, "@last") ||
	    !strcmp(s, "@index"))
		return true;
	if (!*s || *s == '.')
		return false;
	for (const char *c = s; *c; c++) {
		if (*c == '.' && (c[1] == '.' || !c[1]))
			return false;
		if (!(*c == '_' || *c == '-' || *c == '.' || (*c >= 'a' && *c <= 'z') ||
		      (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			return false;
	}
	return true;
}

static struct node *node_new(enum node_kind k, unsigned line, unsigned col)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->kind = k;
	n->line = line;
	n->col = col;
	return n;
}

/*
 * True when the tag at [open, close) is alone on its line (only blanks
 * around it); *ret_from and *ret_to then span the whole line with its newline.
 */
static bool standalone(const struct tmpl *t, size_t open, size_t close,
		       size_t *ret_from, size_t *ret_to)
{
	size_t a = open, b = close;

	while (a > 0 && (t->src[a - 1] == ' ' || t->src[a - 1] == '\t'))
		a--;
	if (a > 0 && t->src[a - 1] != '\n')
		return false;
	while (b < t->len && (t->src[b] == ' ' || t->src[b] == '\t' || t->src[b] == '\r'))
		b++;
	if (b < t->len && t->src[b] != '\n')
		return false;
	*ret_from = a;
	*ret_to = b < t->len ? b + 1 : b;
	return true;
}

/*
 * Parses nodes until the end or a closing tag; `closing` is the section being
 * closed (NULL at top level). Appends to *tail.
 */
static int parse_nodes(struct parser *p, const char *closing, unsigned depth,
		       struct node **head)
{
	struct tmpl *t = p->t;
	struct node **tail = head;

	while (p->pos < t->len) {
		const char *open = memmem(t->src + p->pos, t->len - p->pos, "{{", 2);
		size_t o = open ? (size_t)(open - t->src) : t->len;
		size_t from = o, to;

		if (!open) {
			struct node *n = node_new(N_TEXT, p->line, col_at(p, p->pos));

			n->off = p->pos;
			n->len = t->len - p->pos;
			*tail = n;
			advance(p, t->len);
			break;
		}
		const char *close = memmem(open + 2, t->len - o - 2, "}}", 2);
		size_t tag_line_pos = o;

		if (!close) {
			advance(p, o);
			return err_set(p->err, ERR_PARSE, "%s:%u:%u: '{{' is never closed by '}}'",
				       t->name, p->line, col_at(p, tag_line_pos));
		}
		size_t c = (size_t)(close - t->src) + 2;
		char sigil = t->src[o + 2];
		bool is_block = sigil == '#' || sigil == '^' || sigil == '/' || sigil == '!';

		to = c;
		if (is_block)
			standalone(t, o, c, &from, &to);
		if (from > p->pos) {
			struct node *n = node_new(N_TEXT, p->line, col_at(p, p->pos));

			n->off = p->pos;
			n->len = from - p->pos;
			*tail = n;
			tail = &n->next;
		}
		advance(p, o);
		unsigned line = p->line, col = col_at(p, o);
		size_t ib = o + 2 + (is_block ? 1 : 0), ie = c - 2;
		bool quoted = false;

		while (ib < ie && t->src[ib] == ' ')
			ib++;
		if (!is_block && ie - ib > 2 && t->src[ib] == 'q' && t->src[ib + 1] == ' ') {
			quoted = true;
			ib += 2;
			while (ib < ie && t->src[ib] == ' ')
				ib++;
		}
		while (ie > ib && t->src[ie - 1] == ' ')
			ie--;
		advance(p, to);
		if (sigil == '!')
			continue;
		char *path = xstrndup(t->src + ib, ie - ib);

		if (!valid_path(path)) {
			err_set(p->err, ERR_PARSE, "%s:%u:%u: '%.*s' is not a variable name "
				"(letters, digits, '_', '-', dotted paths, '.', @first, @last, @index)",
				t->name, line, col, (int)(c - o), t->src + o);
			free(path);
			return ERR_PARSE;
		}
		if (sigil == '/') {
			if (!closing) {
				err_set(p->err, ERR_PARSE, "%s:%u:%u: '{{/%s}}' closes no section",
					t->name, line, col, path);
				free(path);
				return ERR_PARSE;
			}
			if (strcmp(closing, path)) {
				err_set(p->err, ERR_PARSE, "%s:%u:%u: '{{/%s}}' where '{{/%s}}' was expected",
					t->name, line, col, path, closing);
				free(path);
				return ERR_PARSE;
			}
			free(path);
			return 1; /* closed */
		}
		struct node *n = node_new(sigil == '#' ? N_SECTION : sigil == '^' ? N_INVERTED :
					  quoted ? N_QVAR : N_VAR, line, col);

		n->path = path;
		*tail = n;
		tail = &n->next;
		if (n->kind == N_SECTION || n->kind == N_INVERTED) {
			if (depth + 1 > TMPL_MAX_DEPTH)
				return err_set(p->err, ERR_PARSE, "%s:%u:%u: sections nest deeper than %d",
					       t->name, line, col, TMPL_MAX_DEPTH);
			int rc = parse_nodes(p, path, depth + 1, &n->child);

			if (rc < 0)
				return rc;
			if (rc == 0)
				return err_set(p->err, ERR_PARSE, "%s:%u:%u: section '%s' is never closed "
					       "(no '{{/%s}}')", t->name, line, col, path, path);
		}
	}
	return 0;
}

int tmpl_parse(const char *name, const char *src, size_t len, struct tmpl **ret,
	       struct err *err)
{
	struct tmpl *t = xcalloc(1, sizeof(*t));
	struct parser p = { .t = t, .line = 1, .err = err };
	int rc;

	t->name = xstrdup(name);
	t->src = xmalloc(len + 1);
	memcpy(t->src, src, len);
	t->src[len] = '\0';
	t->len = len;
	*ret = NULL;
	rc = parse_nodes(&p, NULL, 0, &t->root);
	if (rc < 0) {
		tmpl_free(t);
		return rc;
	}
	*ret = t;
	return 0;
}

/* The expander's scope stack: one frame per section entered. */
struct frame {
	json_t *value;
	bool in_list;
	size_t index, count;
};

struct expander {
	const struct tmpl *t;
	struct frame stack[TMPL_MAX_DEPTH + 1];
	unsigned depth;
	struct strbuf *out;
	unsigned *lines;          /* template line per output line */
	size_t nlines, alloc;
	bool at_bol;              /* the next byte starts an output line */
	struct err *err;
};

static void emit(struct expander *x, const char *s, size_t len, unsigned tline)
{
	for (size_t i = 0; i < len; i++) {
		if (x->at_bol) {
			if (x->nlines == x->alloc) {
				x->alloc = x->alloc ? 2 * x->alloc : 64;
				x->lines = xrealloc(x->lines, x->alloc * sizeof(*x->lines));
			}
			x->lines[x->nlines++] = tline;
			x->at_bol = false;
		}
		strbuf_addch(x->out, s[i]);
		if (s[i] == '\n') {
			x->at_bol = true;
			tline++;
		}
	}
}

static json_t *loop_var(struct expander *x, const char *name)
{
	for (unsigned d = x->depth; d > 0; d--) {
		const struct frame *f = &x->stack[d];

		if (!f->in_list)
			continue;
		if (!strcmp(name, "@first"))
			return f->index == 0 ? json_true() : json_false();
		if (!strcmp(name, "@last"))
			return f->index + 1 == f->count ? json_true() : json_false();
		return json_integer((json_int_t)f->index);
	}
	return NULL;
}

/*
 * The value at `path` (a new reference, or NULL when absent). The first
 * segment is searched from the innermost scope out.
 */
static json_t *lookup(struct expander *x, const char *path)
{
	if (path[0] == '@')
		return loop_var(x, path);
	if (!strcmp(path, "."))
		return json_incref(x->stack[x->depth].value);
	const char *dot = strchr(path, '.');
	size_t seg = dot ? (size_t)(dot - path) : strlen(path);
	char *first = xstrndup(path, seg);
	json_t *v = NULL;

	for (unsigned d = x->depth + 1; d-- > 0;) {
		v = json_is_object(x->stack[d].value) ? json_object_get(x->stack[d].value, first) : NULL;
		if (v)
			break;
	}
	free(first);
	while (v && dot) {
		const char *s = dot + 1;

		dot = strchr(s, '.');
		seg = dot ? (size_t)(dot - s) : strlen(s);
		char *key = xstrndup(s, seg);

		v = json_is_object(v) ? json_object_get(v, key) : NULL;
		free(key);
	}
	return json_incref(v);
}

static bool truthy(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_ARRAY: return json_array_size(v) > 0;
	case JSON_OBJECT: return true;
	case JSON_STRING: return json_string_length(v) > 0;
	case JSON_INTEGER: return json_integer_value(v) != 0;
	case JSON_REAL: return json_real_value(v) != 0;
	case JSON_TRUE: return true;
	default: return false;
	}
}

/* A value that plain YAML text could not hold without changing shape. */
static const char *unsafe_reason(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n' || c == '\r')
			return "a line break";
		if (c < 0x20 && c != '\t')
			return "a control character";
		if (c == '"' || c == '\\')
			return "a quote or backslash";
		if (c == ':' && (i + 1 == len || s[i + 1] == ' '))
			return "': '";
		if (c == '#' && i > 0 && s[i - 1] == ' ')
			return "' #'";
	}
	return NULL;
}

/*
 * Whether a string, written plain, would be read back as something else:
 * by the YAML 1.2 core schema (bringup's own re-parse: "0123" is 123, "true"
 * a boolean, "~" null) or by YAML 1.1 (the API server's sigs.k8s.io/yaml:
 * "on", "yes", "n" booleans, "0123" octal 83, "1:20" sexagesimal), or would
 * start a YAML construct (an anchor, alias, tag, flow collection, block
 * scalar, directive). Such a string is written double-quoted instead.
 */
static bool retyped_plain(const char *s, size_t len)
{
	static const char *const words[] = {
		"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE",
		"false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null",
		"NULL", "~",
	};
	size_t i = 0, digits = 0;
	bool hex = false;

	if (!len)
		return true;
	for (size_t w = 0; w < sizeof(words) / sizeof(*words); w++)
		if (strlen(words[w]) == len && !memcmp(words[w], s, len))
			return true;
	if (strchr("-?:,[]{}#&*!|>'\"%@`", s[0]) && !(s[0] == '-' && len > 1 && s[1] != ' '))
		return true;
	if (s[0] == '+' || s[0] == '-')
		i++;
	if (i < len && s[i] == '.' && len - i == 4 &&
	    (!strncasecmp(s + i, ".inf", 4) || !strncasecmp(s + i, ".nan", 4)))
		return true;
	if (len - i > 2 && s[i] == '0' && strchr("xXoObB", s[i + 1])) {
		hex = s[i + 1] == 'x' || s[i + 1] == 'X';
		i += 2;
	}
	/* every number form of either schema: digits, '_', ':', '.', exponents */
	for (size_t j = i; j < len; j++) {
		unsigned char c = (unsigned char)s[j];

		if (isdigit(c) || (hex && isxdigit(c)))
			digits++;
		else if (!strchr("_:.+-eE", c))
			return false;
	}
	return digits > 0;
}

/*
 * Whether the tag of `n` is a whole plain scalar of its line: after ": ",
 * "- " or only indentation, and followed by the end of the line. Only there
 * may a value be written quoted instead; inside quotes or beside other text
 * (name: {{x}}-pv) it stays as it is.
 */
static bool whole_scalar(const struct tmpl *t, const struct node *n)
{
	size_t pos = 0, start;
	const char *end;

	for (unsigned l = 1; l < n->line && pos < t->len; pos++)
		if (t->src[pos] == '\n')
			l++;
	start = pos;
	pos += n->col - 1;
	if (pos + 2 > t->len || memcmp(t->src + pos, "{{", 2))
		return false;
	end = memmem(t->src + pos, t->len - pos, "}}", 2);
	if (!end || (end + 2 < t->src + t->len && end[2] != '\n'))
		return false;
	if (pos >= start + 2 && t->src[pos - 1] == ' ' &&
	    (t->src[pos - 2] == ':' || t->src[pos - 2] == '-'))
		return t->src[start + strspn(t->src + start, " ")] != '#';
	for (size_t i = start; i < pos; i++)
		if (t->src[i] != ' ')
			return false;
	return true;
}

static int expand_var(struct expander *x, const struct node *n)
{
	json_t *v = lookup(x, n->path);
	struct strbuf tmp = STRBUF_INIT;
	int rc = 0;

	if (!v)
		return err_set(x->err, ERR_PARSE, "%s:%u:%u: unknown variable '%s'",
			       x->t->name, n->line, n->col, n->path);
	switch (json_typeof(v)) {
	case JSON_STRING:
		strbuf_add(&tmp, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		strbuf_addf(&tmp, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		strbuf_addf(&tmp, "%.17g", json_real_value(v));
		break;
	case JSON_TRUE:
		strbuf_addstr(&tmp, "true");
		break;
	case JSON_FALSE:
		strbuf_addstr(&tmp, "false");
		break;
	default:
		rc = err_set(x->err, ERR_PARSE, "%s:%u:%u: '%s' is %s, not a value to insert "
			     "(use a section to walk it)", x->t->name, n->line, n->col, n->path,
			     json_is_null(v) ? "null" : json_is_array(v) ? "a list" : "a map");
		goto out;
	}
	if (n->kind == N_QVAR || (json_is_string(v) && retyped_plain(tmp.buf, tmp.len) &&
				  whole_scalar(x->t, n))) {
		json_t *s = json_stringn(tmp.buf, tmp.len);
		char *q = s ? json_dumps(s, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;

		json_decref(s);
		if (!q) {
			rc = err_set(x->err, ERR_PARSE, "%s:%u:%u: '%s' is not valid UTF-8",
				     x->t->name, n->line, n->col, n->path);
			goto out;
		}
		emit(x, q, strlen(q), n->line);
		free(q);
	} else {
		const char *why = unsafe_reason(tmp.buf, tmp.len);

		if (why) {
			rc = err_set(x->err, ERR_PARSE, "%s:%u:%u: the value of '%s' holds %s: "
				     "write {{q %s}} to insert it quoted", x->t->name, n->line,
				     n->col, n->path, why, n->path);
			goto out;
		}
		emit(x, tmp.buf, tmp.len, n->line);
	}
out:
	strbuf_release(&tmp);
	json_decref(v);
	return rc;
}

static int expand_nodes(struct expander *x, const struct node *n);

static int expand_in(struct expander *x, const struct node *n, json_t *value, bool in_list,
		     size_t index, size_t count)
{
	int rc;

	x->depth++;
	x->stack[x->depth] = (struct frame){ value, in_list, index, count };
	rc = expand_nodes(x, n->child);
	x->depth--;
	return rc;
}

static int expand_nodes(struct expander *x, const struct node *n)
{
	for (; n; n = n->next) {
		int rc = 0;

		switch (n->kind) {
		case N_TEXT:
			emit(x, x->t->src + n->off, n->len, n->line);
			break;
		case N_VAR:
		case N_QVAR:
			rc = expand_var(x, n);
			break;
		case N_SECTION:
		case N_INVERTED: {
			json_t *v = lookup(x, n->path);
			bool on = v && truthy(v);

			if (n->kind == N_INVERTED) {
				if (!on)
					rc = expand_in(x, n, x->stack[x->depth].value, false, 0, 0);
			} else if (on && json_is_array(v)) {
				size_t cnt = json_array_size(v);

				for (size_t i = 0; i < cnt && !rc; i++)
					rc = expand_in(x, n, json_array_get(v, i), true, i, cnt);
			} else if (on) {
				rc = expand_in(x, n, json_is_object(v) ? v : x->stack[x->depth].value,
					       false, 0, 0);
			}
			json_decref(v);
			break;
		}
		}
		if (rc)
			return rc;
	}
	return 0;
}

int tmpl_expand(const struct tmpl *t, json_t *ctx, struct strbuf *out,
		unsigned **ret_lines, size_t *ret_nlines, struct err *err)
{
	struct expander x = { .t = t, .out = out, .at_bol = true, .err = err };
	int rc;

	x.stack[0] = (struct frame){ ctx, false, 0, 0 };
	rc = expand_nodes(&x, t->root);
	if (ret_lines && !rc) {
		*ret_lines = x.lines;
		*ret_nlines = x.nlines;
	} else {
		free(x.lines);
	}
	return rc;
}

/* The template line behind rendered line `line` (0-based). */
static unsigned src_line(const unsigned *lines, size_t n, size_t line)
{
	if (!n)
		return 1;
	return lines[line < n ? line : n - 1];
}

/* Checks the text is exactly one YAML document, pointing into the template. */
static int check_yaml(const struct tmpl *t, const struct strbuf *out, const unsigned *lines,
		      size_t nlines, struct err *err)
{
	yaml_parser_t p;
	yaml_event_t ev;
	unsigned docs = 0;
	int rc = 0;

	if (!yaml_parser_initialize(&p))
		return err_set(err, ERR_INTERNAL, "%s: out of memory", t->name);
	yaml_parser_set_input_string(&p, (const unsigned char *)out->buf, out->len);
	for (;;) {
		if (!yaml_parser_parse(&p, &ev)) {
			size_t l = p.problem_mark.line;

			rc = err_set(err, ERR_PARSE, "%s:%u: renders invalid YAML: %s%s%s "
				     "(rendered line %zu, column %zu)", t->name,
				     src_line(lines, nlines, l), p.problem ? p.problem : "error",
				     p.context ? " " : "", p.context ? p.context : "", l + 1,
				     (size_t)p.problem_mark.column + 1);
			break;
		}
		yaml_event_type_t type = ev.type;

		if (type == YAML_DOCUMENT_START_EVENT && ++docs > 1)
			rc = err_set(err, ERR_PARSE, "%s:%u: renders more than one YAML document",
				     t->name, src_line(lines, nlines, ev.start_mark.line));
		yaml_event_delete(&ev);
		if (rc || type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&p);
	if (!rc && docs == 0)
		rc = err_set(err, ERR_PARSE, "%s: renders an empty document", t->name);
	return rc;
}

int tmpl_render_yaml(const char *name, const char *src, size_t len, json_t *ctx,
		     struct strbuf *out, json_t **ret_obj, struct err *err)
{
	struct tmpl *t = NULL;
	unsigned *lines = NULL;
	size_t nlines = 0, start = out->len;
	struct strbuf doc = STRBUF_INIT;
	struct ytree yt;
	int rc;

	if (ret_obj)
		*ret_obj = NULL;
	rc = tmpl_parse(name, src, len, &t, err);
	if (rc)
		return rc;
	rc = tmpl_expand(t, ctx, &doc, &lines, &nlines, err);
	if (!rc)
		rc = check_yaml(t, &doc, lines, nlines, err);
	if (!rc) {
		rc = ytree_load(&yt, name, doc.buf, doc.len, err);
		if (!rc && !ytree_root(&yt))
			rc = err_set(err, ERR_PARSE, "%s: renders an empty document", name);
		if (!rc) {
			json_t *j = ytree_to_json(&yt, ytree_root(&yt), "the rendered document");

			if (!j)
				rc = err && err->code ? err->code : ERR_PARSE;
			else if (!json_is_object(j))
				rc = err_set(err, ERR_PARSE, "%s: renders %s, not an object", name,
					     json_is_array(j) ? "a list" : "a scalar");
			if (!rc && ret_obj)
				*ret_obj = json_incref(j);
			json_decref(j);
		}
		ytree_release(&yt);
	}
	if (!rc)
		strbuf_add(out, doc.buf, doc.len);
	else
		strbuf_setlen(out, start);
	strbuf_release(&doc);
	free(lines);
	tmpl_free(t);
	return rc;
}

/*
 * yamltree: libyaml's document API with positions kept for messages, and
 * table-driven checks of mappings. See yamltree.h.
 */
#include "yamltree.h"
#include "strbuf.h"
#include "xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Longest value quoted back in a message before it is cut. */
#define DESCRIBE_MAX 40
/* Most keys one ykey table may list. */
#define YKEY_MAX 32

/* A document is walked depth first, recursively, by every reader (and by
 * ytree_to_json): its depth with aliases followed must stay well inside the
 * stack. No inventory or playbook nests anywhere near this deep. */
#define YTREE_MAX_DEPTH 128
/* Nodes that aliases may add when followed: far above what anchors for
 * shared settings need, far below a "billion laughs" document. */
#define YTREE_MAX_ALIAS_NODES 100000u

/*
 * libyaml gives a byte offset into the raw input, not a mark, for
 * undecodable input; the offset counts a byte order mark. libyaml reads
 * UTF-16 only after a BOM (reader.c, yaml_parser_determine_encoding), so the
 * encoding it settled on says how to count characters.
 */
static int fail_reader(struct ytree *t, yaml_parser_t *p, const char *buf,
		       size_t len)
{
	const unsigned char *b = (const unsigned char *)buf;
	size_t line = 1, col = 1, end = p->problem_offset < len ? p->problem_offset : len;
	bool utf16 = p->encoding == YAML_UTF16LE_ENCODING ||
		     p->encoding == YAML_UTF16BE_ENCODING;
	size_t i = utf16 ? 2 : len >= 3 && !memcmp(b, "\xef\xbb\xbf", 3) ? 3 : 0;

	for (; utf16 && i + 1 < end; i += 2) {
		unsigned unit = p->encoding == YAML_UTF16LE_ENCODING ?
				b[i] | (unsigned)b[i + 1] << 8 : (unsigned)b[i] << 8 | b[i + 1];

		if (unit == '\n') {
			line++;
			col = 1;
		} else if (unit < 0xdc00 || unit > 0xdfff) { /* not a low surrogate */
			col++;
		}
	}
	for (; !utf16 && i < end; i++) {
		if (buf[i] == '\n') {
			line++;
			col = 1;
		} else if ((b[i] & 0xc0) != 0x80) {
			col++;
		}
	}
	return err_set(t->err, ERR_PARSE, "%s:%zu:%zu: %s, expected %s text",
		       t->file, line, col, p->problem ? p->problem : "unreadable input",
		       utf16 ? "UTF-16" : "UTF-8");
}

static int fail_syntax(struct ytree *t, yaml_parser_t *p)
{
	const yaml_mark_t *m = &p->problem_mark;

	if (p->context)
		return err_set(t->err, ERR_PARSE, "%s:%zu:%zu: YAML syntax error: "
			       "%s %s (line %zu)", t->file, m->line + 1,
			       m->column + 1, p->problem, p->context,
			       p->context_mark.line + 1);
	return err_set(t->err, ERR_PARSE, "%s:%zu:%zu: YAML syntax error: %s",
		       t->file, m->line + 1, m->column + 1,
		       p->problem ? p->problem : "malformed input");
}

static int fail_load(struct ytree *t, yaml_parser_t *p, const char *buf, size_t len)
{
	if (p->error == YAML_READER_ERROR)
		return fail_reader(t, p, buf, len);
	return fail_syntax(t, p);
}

/* A second document in the file is almost always a stray "---". */
static int check_single_document(struct ytree *t, yaml_parser_t *p,
				 const char *buf, size_t len)
{
	yaml_document_t extra;
	yaml_node_t *root;
	int ret = 0;

	if (!yaml_parser_load(p, &extra))
		return fail_load(t, p, buf, len);
	root = yaml_document_get_root_node(&extra);
	if (root)
		ret = err_set(t->err, ERR_PARSE, "%s:%zu:%zu: found a second YAML "
			      "document, expected one document", t->file,
			      extra.start_mark.line + 1, extra.start_mark.column + 1);
	yaml_document_delete(&extra);
	return ret;
}

/*
 * libyaml resolves an alias to the node it names, so a document is a graph:
 * an alias inside its own anchor ("&a [*a]") makes a cycle, and aliases of
 * aliases multiply ("billion laughs"). One walk in document order finds both
 * before anything follows the graph: a node met again while still open is a
 * cycle; a node met again once closed is an alias use and adds its expanded
 * size. Sizes and heights are kept per node so the walk stays linear.
 */
struct graph_walk {
	struct ytree *t;
	unsigned char *state;   /* per node id: 0 new, 1 open, 2 closed */
	size_t *size;           /* expanded size, saturating */
	unsigned *height;       /* expanded height */
	size_t alias_nodes;     /* nodes added by alias uses so far */
};

static int walk_node(struct graph_walk *w, yaml_node_t *parent, int id,
		     unsigned depth, size_t *ret_size, unsigned *ret_height);

static int walk_child(struct graph_walk *w, yaml_node_t *parent, int id,
		      unsigned depth, size_t *size, unsigned *height)
{
	size_t s = 0;
	unsigned h = 0;
	int ret = walk_node(w, parent, id, depth, &s, &h);

	if (ret)
		return ret;
	*size = *size + s < *size ? SIZE_MAX : *size + s;
	if (h + 1 > *height)
		*height = h + 1;
	return 0;
}

static int walk_node(struct graph_walk *w, yaml_node_t *parent, int id,
		     unsigned depth, size_t *ret_size, unsigned *ret_height)
{
	yaml_node_t *n = yaml_document_get_node(&w->t->doc, id);
	size_t size = 1;
	unsigned height = 1;
	int ret = 0;

	if (!n)
		return 0;
	if (w->state[id] == 1)
		return ytree_fail(w->t, parent, 0, "found an alias to the anchored "
				  "node at line %u, column %u inside that node, "
				  "expected an alias outside its anchor (no cycles)",
				  ytree_line(n), ytree_col(n));
	if (w->state[id] == 2) {
		w->alias_nodes = w->alias_nodes + w->size[id] < w->alias_nodes ?
				 SIZE_MAX : w->alias_nodes + w->size[id];
		if (w->alias_nodes > YTREE_MAX_ALIAS_NODES)
			return ytree_fail(w->t, parent, 0, "found aliases that expand "
					  "to more than %u nodes, expected at most %u "
					  "(is this a \"billion laughs\" document?)",
					  YTREE_MAX_ALIAS_NODES, YTREE_MAX_ALIAS_NODES);
		if (depth + w->height[id] > YTREE_MAX_DEPTH)
			return ytree_fail(w->t, parent, 0, "found values nested more "
					  "than %u deep through an alias, expected at "
					  "most %u", YTREE_MAX_DEPTH, YTREE_MAX_DEPTH);
		*ret_size = w->size[id];
		*ret_height = w->height[id];
		return 0;
	}
	if (depth >= YTREE_MAX_DEPTH)
		return ytree_fail(w->t, n, 0, "found values nested more than %u deep, "
				  "expected at most %u", YTREE_MAX_DEPTH, YTREE_MAX_DEPTH);
	w->state[id] = 1;
	if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     !ret && it < n->data.sequence.items.top; it++)
			ret = walk_child(w, n, *it, depth + 1, &size, &height);
	} else if (n->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     !ret && p < n->data.mapping.pairs.top; p++) {
			ret = walk_child(w, n, p->key, depth + 1, &size, &height);
			if (!ret)
				ret = walk_child(w, n, p->value, depth + 1, &size, &height);
		}
	}
	w->state[id] = 2;
	w->size[id] = size;
	w->height[id] = height;
	*ret_size = size;
	*ret_height = height;
	return ret;
}

static int check_graph(struct ytree *t)
{
	size_t nnodes = (size_t)(t->doc.nodes.top - t->doc.nodes.start);
	struct graph_walk w = { t, xcalloc(nnodes + 1, 1),
				xcalloc(nnodes + 1, sizeof(size_t)),
				xcalloc(nnodes + 1, sizeof(unsigned)), 0 };
	size_t size;
	unsigned height;
	int ret = ytree_root(t) ? walk_node(&w, NULL, 1, 0, &size, &height) : 0;

	free(w.state);
	free(w.size);
	free(w.height);
	return ret;
}

/*
 * libyaml's scanner costs O(depth) per token inside flow collections, so
 * 60,000 nested '[' take seconds before any document exists: a first pass
 * over the events stops at the first node nested too deep.
 */
static int check_nesting(struct ytree *t, const char *buf, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	unsigned depth = 0;
	int ret = 0;
	bool done = false;

	if (!yaml_parser_initialize(&parser))
		return err_set(t->err, ERR_INTERNAL, "%s: cannot start the YAML parser",
			       t->file);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (!done && !ret) {
		if (!yaml_parser_parse(&parser, &ev)) {
			ret = fail_load(t, &parser, buf, len);
			break;
		}
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > YTREE_MAX_DEPTH)
				ret = err_set(t->err, ERR_INVENTORY, "%s:%zu:%zu: found "
					      "values nested more than %u deep, "
					      "expected at most %u", t->file,
					      ev.start_mark.line + 1,
					      ev.start_mark.column + 1,
					      YTREE_MAX_DEPTH, YTREE_MAX_DEPTH);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return ret;
}

/* 'text' of `len` bytes, cut at DESCRIBE_MAX characters; control
 * characters (NUL included) shown as \xHH or \u00HH, since messages reach
 * terminals (an ESC in a value must not act there). */
static char *describe_bytes(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, chars = 0;

	strbuf_addch(&sb, '\'');
	for (i = 0; i < len && (chars < DESCRIBE_MAX || ((unsigned char)s[i] & 0xc0) == 0x80);
	     i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c & 0xc0) != 0x80)
			chars++;
		if (c < 0x20 || c == 0x7f)
			strbuf_addf(&sb, "\\x%02x", c);
		else if (c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 &&
			 (unsigned char)s[i + 1] <= 0x9f)
			strbuf_addf(&sb, "\\u%04x", (unsigned char)s[++i]);
		else
			strbuf_addch(&sb, (char)c);
	}
	strbuf_addstr(&sb, i < len ? "...'" : "'");
	return strbuf_detach(&sb, NULL);
}

/*
 * Every scalar, keys included, is text without control characters: no NUL
 * (libyaml keeps "\0" and "\x00" escapes in a scalar of explicit length,
 * which every C string reader would cut short: "dgx\0evil" read as "dgx"),
 * no C0 control but tab and newline, no DEL, no C1 control (U+0080-U+009F,
 * "\e" or "\N" escapes). libyaml refuses them raw in the file, whatever its
 * encoding, but not escaped in double quotes.
 */
static int check_text(struct ytree *t)
{
	for (yaml_node_t *n = t->doc.nodes.start; n < t->doc.nodes.top; n++) {
		const unsigned char *v;
		size_t len, chars = 0;

		if (n->type != YAML_SCALAR_NODE)
			continue;
		v = n->data.scalar.value;
		len = n->data.scalar.length;
		for (size_t i = 0; i < len; i++) {
			unsigned c = v[i];
			char *found;

			if ((c & 0xc0) != 0x80)
				chars++;
			if (c == '\t' || c == '\n' ||
			    ((c >= 0x20 && c != 0x7f) &&
			     !(c == 0xc2 && i + 1 < len && v[i + 1] >= 0x80 && v[i + 1] <= 0x9f)))
				continue;
			found = describe_bytes((const char *)v, len);
			ytree_fail(t, n, ytree_text_col(n), "found control character %s%02X "
				   "as character %zu of %s, expected text without control "
				   "characters (tab and newline allowed)",
				   c == 0xc2 ? "U+00" : "0x", c == 0xc2 ? v[i + 1] : c,
				   chars, found);
			free(found);
			return ERR_INVENTORY;
		}
	}
	return 0;
}

int ytree_load(struct ytree *t, const char *file, const char *buf, size_t len,
	       struct err *err)
{
	yaml_parser_t parser;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	t->file = file;
	t->err = err;
	if (!yaml_parser_initialize(&parser))
		return err_set(err, ERR_INTERNAL, "%s: cannot start the YAML parser", file);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	ret = check_nesting(t, buf, len);
	if (ret)
		goto out;
	if (!yaml_parser_load(&parser, &t->doc)) {
		ret = fail_load(t, &parser, buf, len);
		goto out;
	}
	t->loaded = true;
	if (ytree_root(t))
		ret = check_single_document(t, &parser, buf, len);
	if (!ret)
		ret = check_text(t);
	if (!ret)
		ret = check_graph(t);
out:
	yaml_parser_delete(&parser);
	return ret;
}

void ytree_release(struct ytree *t)
{
	if (t->loaded)
		yaml_document_delete(&t->doc);
	t->loaded = false;
}

/* Adds a copy of n (of src) to dst's document; returns its id, 0 on failure. */
static int copy_node(yaml_document_t *dst, struct ytree *src, yaml_node_t *n)
{
	yaml_char_t *tag = n->tag;
	int id = 0;

	switch (n->type) {
	case YAML_SCALAR_NODE:
		id = yaml_document_add_scalar(dst, tag, n->data.scalar.value,
					      (int)n->data.scalar.length, n->data.scalar.style);
		break;
	case YAML_SEQUENCE_NODE:
		id = yaml_document_add_sequence(dst, tag, n->data.sequence.style);
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     id && it < n->data.sequence.items.top; it++) {
			int item = copy_node(dst, src, yaml_document_get_node(&src->doc, *it));

			if (!item || !yaml_document_append_sequence_item(dst, id, item))
				id = 0;
		}
		break;
	case YAML_MAPPING_NODE:
		id = yaml_document_add_mapping(dst, tag, n->data.mapping.style);
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     id && p < n->data.mapping.pairs.top; p++) {
			int k = copy_node(dst, src, yaml_document_get_node(&src->doc, p->key));
			int v = k ? copy_node(dst, src, yaml_document_get_node(&src->doc, p->value)) : 0;

			if (!v || !yaml_document_append_mapping_pair(dst, id, k, v))
				id = 0;
		}
		break;
	default:
		break;
	}
	if (id) {
		/* The node array may have moved while children were added. */
		yaml_node_t *copy = yaml_document_get_node(dst, id);

		copy->start_mark = n->start_mark;
		copy->end_mark = n->end_mark;
	}
	return id;
}

int ytree_copy(struct ytree *dst, struct ytree *src, yaml_node_t *n)
{
	*dst = (struct ytree){ .file = src->file };
	if (yaml_document_initialize(&dst->doc, NULL, NULL, NULL, 1, 1)) {
		dst->loaded = true;
		if (copy_node(&dst->doc, src, n))
			return 0;
		ytree_release(dst);
	}
	return err_set(src->err, ERR_INTERNAL, "%s: out of memory keeping a section",
		       src->file);
}

yaml_node_t *ytree_root(struct ytree *t)
{
	return t->loaded ? yaml_document_get_root_node(&t->doc) : NULL;
}

unsigned ytree_line(const yaml_node_t *n)
{
	return (unsigned)n->start_mark.line + 1;
}

unsigned ytree_col(const yaml_node_t *n)
{
	return (unsigned)n->start_mark.column + 1;
}

unsigned ytree_text_col(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE)
		return 0;
	switch (n->data.scalar.style) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		return 1;
	default:
		return 0;
	}
}

int ytree_fail(struct ytree *t, const yaml_node_t *n, unsigned coloff,
	       const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	err_set(t->err, ERR_INVENTORY, "%s:%u:%u: %s", t->file, ytree_line(n),
		ytree_col(n) + coloff, sb.buf);
	strbuf_release(&sb);
	return ERR_INVENTORY;
}

/* Levenshtein distance, enough to catch "adress" for "address". */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row = xcalloc(lb + 1, sizeof(*row));
	size_t ret;

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	ret = row[lb];
	free(row);
	return ret;
}

static const char *closest(const char *word, const char *const *choices, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, len = strlen(word);

	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, choices[i]);

		if (d < best_d) {
			best_d = d;
			best = choices[i];
		}
	}
	return best_d <= 2 && best_d < len ? best : NULL;
}

int ytree_fail_choice(struct ytree *t, const yaml_node_t *n, const char *noun,
		      const char *where, const char *const *choices, size_t nchoices)
{
	const char *word = ytree_str(n), *near = closest(word, choices, nchoices);
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_addf(&sb, "unknown %s '%s' in %s (", noun, word, where);
	if (near)
		strbuf_addf(&sb, "did you mean '%s'?; ", near);
	if (nchoices)
		strbuf_addstr(&sb, "expected one of: ");
	else
		strbuf_addf(&sb, "none is defined");
	for (size_t i = 0; i < nchoices; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", choices[i]);
	strbuf_addch(&sb, ')');
	ret = ytree_fail(t, n, ytree_text_col(n), "%s", sb.buf);
	strbuf_release(&sb);
	return ret;
}

bool ytree_is_empty(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE && !n->data.scalar.length &&
	       n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

char *ytree_describe(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE:
		return xstrdup("a mapping");
	case YAML_SEQUENCE_NODE:
		return xstrdup("a sequence");
	case YAML_SCALAR_NODE:
		if (ytree_is_empty(n))
			return xstrdup("an empty value");
		return describe_bytes(ytree_str(n), n->data.scalar.length);
	default:
		return xstrdup("nothing");
	}
}

static const char *kind_name(enum ykind kind)
{
	switch (kind) {
	case Y_MAP:
		return "a mapping";
	case Y_SEQ:
		return "a sequence";
	case Y_SCALAR:
		return "a single value";
	case Y_SCALAR_OR_SEQ:
		return "a value or a sequence of values";
	default:
		return "a value";
	}
}

static bool kind_ok(const yaml_node_t *n, enum ykind kind)
{
	switch (kind) {
	case Y_MAP:
		return n->type == YAML_MAPPING_NODE || ytree_is_empty(n);
	case Y_SEQ:
		return n->type == YAML_SEQUENCE_NODE || ytree_is_empty(n);
	case Y_SCALAR:
		return n->type == YAML_SCALAR_NODE;
	case Y_SCALAR_OR_SEQ:
		return n->type == YAML_SCALAR_NODE || n->type == YAML_SEQUENCE_NODE;
	default:
		return true;
	}
}

int ytree_expect(struct ytree *t, yaml_node_t *n, enum ykind kind, const char *what)
{
	char *found;
	int ret;

	if (kind_ok(n, kind))
		return 0;
	found = ytree_describe(n);
	ret = ytree_fail(t, n, 0, "found %s for %s, expected %s", found, what,
			 kind_name(kind));
	free(found);
	return ret;
}

size_t ytree_map_len(const yaml_node_t *n)
{
	if (n->type != YAML_MAPPING_NODE)
		return 0;
	return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
}

yaml_node_t *ytree_map_key(struct ytree *t, yaml_node_t *n, size_t i)
{
	return yaml_document_get_node(&t->doc, n->data.mapping.pairs.start[i].key);
}

yaml_node_t *ytree_map_value(struct ytree *t, yaml_node_t *n, size_t i)
{
	return yaml_document_get_node(&t->doc, n->data.mapping.pairs.start[i].value);
}

size_t ytree_seq_len(const yaml_node_t *n)
{
	if (n->type == YAML_SCALAR_NODE)
		return ytree_is_empty(n) ? 0 : 1;
	if (n->type != YAML_SEQUENCE_NODE)
		return 0;
	return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *ytree_seq_item(struct ytree *t, yaml_node_t *n, size_t i)
{
	if (n->type == YAML_SCALAR_NODE)
		return n;
	return yaml_document_get_node(&t->doc, n->data.sequence.items.start[i]);
}

const char *ytree_str(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE)
		return "";
	return (const char *)n->data.scalar.value;
}

static int check_key_node(struct ytree *t, yaml_node_t *key, const char *where)
{
	char *found;

	if (key->type == YAML_SCALAR_NODE && key->data.scalar.length)
		return 0;
	found = ytree_describe(key);
	ytree_fail(t, key, 0, "found %s as a key in %s, expected a name", found, where);
	free(found);
	return ERR_INVENTORY;
}

static int fail_duplicate(struct ytree *t, yaml_node_t *key, yaml_node_t *first,
			  const char *where)
{
	return ytree_fail(t, key, ytree_text_col(key), "duplicate key '%s' in %s "
			  "(first at line %u, column %u), expected each key once",
			  ytree_str(key), where, ytree_line(first), ytree_col(first));
}

struct key_ref {
	const char *name;
	size_t i;
};

static int cmp_key_ref(const void *a, const void *b)
{
	const struct key_ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Reports what a pairwise scan in document order would meet first: a bad key,
 * or a key equal to an earlier one (named with that earlier one). Sorted, so
 * that a mapping of 100,000 keys is not 5e9 comparisons.
 */
int ytree_check_keys(struct ytree *t, yaml_node_t *n, const char *where)
{
	size_t len = ytree_map_len(n), bad = len, dup = len, first = 0, m = 0;
	struct key_ref *refs;

	if (ytree_expect(t, n, Y_MAP, where))
		return ERR_INVENTORY;
	for (size_t i = 0; i < len && bad == len; i++)
		if (ytree_map_key(t, n, i)->type != YAML_SCALAR_NODE ||
		    !ytree_map_key(t, n, i)->data.scalar.length)
			bad = i;
	refs = xmalloc((bad ? bad : 1) * sizeof(*refs));
	for (size_t i = 0; i < bad; i++)
		refs[m++] = (struct key_ref){ ytree_str(ytree_map_key(t, n, i)), i };
	qsort(refs, m, sizeof(*refs), cmp_key_ref);
	for (size_t k = 1; k < m; k++)
		if (!strcmp(refs[k].name, refs[k - 1].name) &&
		    (k < 2 || strcmp(refs[k - 1].name, refs[k - 2].name)) &&
		    refs[k].i < dup) {
			dup = refs[k].i;
			first = refs[k - 1].i;
		}
	free(refs);
	if (dup < bad)
		return fail_duplicate(t, ytree_map_key(t, n, dup),
				      ytree_map_key(t, n, first), where);
	if (bad < len)
		return check_key_node(t, ytree_map_key(t, n, bad), where);
	return 0;
}

static int key_index(const struct ykey *keys, const char *name)
{
	for (int i = 0; keys[i].name; i++)
		if (!strcmp(keys[i].name, name))
			return i;
	return -1;
}

static int fail_unknown_key(struct ytree *t, yaml_node_t *key,
			    const struct ykey *keys, const char *where)
{
	const char *names[YKEY_MAX];
	size_t n = 0;

	while (keys[n].name && n < YKEY_MAX) {
		names[n] = keys[n].name;
		n++;
	}
	return ytree_fail_choice(t, key, "key", where, names, n);
}

/* Checks each key of `n` against the table and fills vals/keyn. */
static int check_pairs(struct ytree *t, yaml_node_t *n, const struct ykey *keys,
		       const char *where, yaml_node_t **vals, yaml_node_t **keyn)
{
	size_t len = ytree_map_len(n);

	for (size_t i = 0; i < len; i++) {
		yaml_node_t *key = ytree_map_key(t, n, i);
		int k;
		char *what;
		int ret;

		if (check_key_node(t, key, where))
			return ERR_INVENTORY;
		k = key_index(keys, ytree_str(key));
		if (k < 0)
			return fail_unknown_key(t, key, keys, where);
		if (keyn[k])
			return fail_duplicate(t, key, keyn[k], where);
		keyn[k] = key;
		vals[k] = ytree_map_value(t, n, i);
		what = xasprintf("'%s' in %s", keys[k].name, where);
		ret = ytree_expect(t, vals[k], keys[k].kind, what);
		free(what);
		if (ret)
			return ret;
	}
	return 0;
}

int ytree_check_map(struct ytree *t, yaml_node_t *n, const struct ykey *keys,
		    const char *where, yaml_node_t **vals)
{
	yaml_node_t *keyn[YKEY_MAX] = { NULL };
	size_t nkeys = 0;

	while (keys[nkeys].name)
		vals[nkeys++] = NULL;
	if (nkeys > YKEY_MAX)
		return err_set(t->err, ERR_INTERNAL, "key table for %s too long", where);
	if (ytree_expect(t, n, Y_MAP, where))
		return ERR_INVENTORY;
	if (check_pairs(t, n, keys, where, vals, keyn))
		return ERR_INVENTORY;
	for (size_t k = 0; k < nkeys; k++)
		if (keys[k].required && !vals[k])
			return ytree_fail(t, n, 0, "found no key '%s' in %s, "
					  "expected it (it is required)",
					  keys[k].name, where);
	return 0;
}

int ytree_string(struct ytree *t, yaml_node_t *n, const char *what, char **ret)
{
	char *found;

	if (n->type == YAML_SCALAR_NODE && n->data.scalar.length) {
		*ret = xstrdup(ytree_str(n));
		return 0;
	}
	found = ytree_describe(n);
	ytree_fail(t, n, 0, "found %s for %s, expected a string", found, what);
	free(found);
	return ERR_INVENTORY;
}

int ytree_uint(struct ytree *t, yaml_node_t *n, unsigned min, unsigned max,
	       const char *what, unsigned *ret)
{
	const char *s = ytree_str(n);
	unsigned long v = 0;
	char *end = NULL, *found;

	if (n->type == YAML_SCALAR_NODE && *s >= '0' && *s <= '9') {
		errno = 0;
		v = strtoul(s, &end, 10);
		if (!*end && !errno && v >= min && v <= max) {
			*ret = (unsigned)v;
			return 0;
		}
	}
	found = ytree_describe(n);
	ytree_fail(t, n, 0, "found %s for %s, expected an integer %u-%u",
		   found, what, min, max);
	free(found);
	return ERR_INVENTORY;
}

static bool is_one_of(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(s, *words))
			return true;
	return false;
}

/* The YAML 1.2 core schema's reading of a plain scalar. */
static json_t *plain_scalar(const char *s)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
	static const char *const trues[] = { "true", "True", "TRUE", NULL };
	static const char *const falses[] = { "false", "False", "FALSE", NULL };
	char *end;

	if (is_one_of(s, nulls))
		return json_null();
	if (is_one_of(s, trues))
		return json_true();
	if (is_one_of(s, falses))
		return json_false();
	if (strspn(s, "+-0123456789") == strlen(s)) {
		long long v;

		errno = 0;
		v = strtoll(s, &end, 10);
		if (!*end && !errno && end != s)
			return json_integer(v);
	}
	if (strspn(s, "+-0123456789.eE") == strlen(s) && strpbrk(s, "0123456789")) {
		double d = strtod(s, &end);

		if (!*end)
			return json_real(d);
	}
	return json_string(s);
}

/* jansson returns NULL (or -1) when it cannot allocate: a value that is
 * silently missing would be read as "not set", so it is an error here. */
static json_t *fail_oom(struct ytree *t, yaml_node_t *n, const char *where)
{
	ytree_fail(t, n, 0, "out of memory reading %s", where);
	return NULL;
}

static json_t *map_to_json(struct ytree *t, yaml_node_t *n, const char *where)
{
	json_t *obj;
	size_t len = ytree_map_len(n);

	if (ytree_check_keys(t, n, where))
		return NULL;
	obj = json_object();
	if (!obj)
		return fail_oom(t, n, where);
	for (size_t i = 0; i < len; i++) {
		json_t *v = ytree_to_json(t, ytree_map_value(t, n, i), where);

		if (!v)
			goto fail;
		if (json_object_set_new(obj, ytree_str(ytree_map_key(t, n, i)), v)) {
			fail_oom(t, n, where);
			goto fail;
		}
	}
	return obj;
fail:
	json_decref(obj);
	return NULL;
}

static json_t *seq_to_json(struct ytree *t, yaml_node_t *n, const char *where)
{
	json_t *arr = json_array();

	if (!arr)
		return fail_oom(t, n, where);
	for (size_t i = 0; i < ytree_seq_len(n); i++) {
		json_t *v = ytree_to_json(t, ytree_seq_item(t, n, i), where);

		if (!v || json_array_append_new(arr, v)) {
			if (v)
				fail_oom(t, n, where);
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

json_t *ytree_to_json(struct ytree *t, yaml_node_t *n, const char *where)
{
	json_t *v;

	switch (n->type) {
	case YAML_MAPPING_NODE:
		return map_to_json(t, n, where);
	case YAML_SEQUENCE_NODE:
		return seq_to_json(t, n, where);
	case YAML_SCALAR_NODE:
		if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			v = plain_scalar(ytree_str(n));
		else
			v = json_string(ytree_str(n));
		return v ? v : fail_oom(t, n, where);
	default:
		return json_null();
	}
}

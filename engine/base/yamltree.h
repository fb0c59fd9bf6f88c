/*
 * yamltree: a libyaml document plus the checks every YAML reader of ours
 * needs, with errors that point into the file ("FILE:LINE:COL: found ...,
 * expected ...").
 *
 * A mapping whose keys are fixed (a host entry, the ssh settings) is checked
 * against a table of struct ykey: unknown keys (with a "did you mean"),
 * duplicates, missing required keys and the kind of each value are all
 * caught in one place, so readers only convert values.
 */
#ifndef BRINGUP_YAMLTREE_H
#define BRINGUP_YAMLTREE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "err.h"

struct ytree {
	const char *file;      /* name used in messages; not owned */
	yaml_document_t doc;
	bool loaded;
	struct err *err;       /* where failures go; may be NULL */
};

/*
 * Parses `buf` as one YAML document. On a syntax error returns ERR_PARSE
 * with "FILE:LINE:COL: ...". A document that is not a tree the readers can
 * walk is refused with ERR_INVENTORY at its FILE:LINE:COL: an alias inside
 * its own anchor (a cycle), aliases adding more than 100,000 nodes once
 * followed ("billion laughs"), nesting deeper than 128 (aliases followed).
 * Release with ytree_release() either way.
 */
int ytree_load(struct ytree *t, const char *file, const char *buf, size_t len,
	       struct err *err);
void ytree_release(struct ytree *t);

/*
 * Copies the subtree at n of src into *dst (not loaded yet) as a document
 * whose root it is. Every node keeps its marks and scalar style, so that a
 * reader of dst reports the same FILE:LINE:COL and types scalars the same
 * way as a reader of src; dst->file is src's. This lets a loader keep a
 * section that another subsystem reads later (the inventory's `validate:`).
 * Returns 0, or ERR_INTERNAL in src->err when libyaml could not allocate;
 * release dst with ytree_release.
 */
int ytree_copy(struct ytree *dst, struct ytree *src, yaml_node_t *n);

/* The document's root node; NULL when the document is empty. */
yaml_node_t *ytree_root(struct ytree *t);

/* 1-based position of a node. */
unsigned ytree_line(const yaml_node_t *n);
unsigned ytree_col(const yaml_node_t *n);
/* Offset from a scalar's start to its first character (1 when quoted). */
unsigned ytree_text_col(const yaml_node_t *n);

/*
 * Sets t->err to ERR_INVENTORY with "FILE:LINE:COL: <message>" at node `n`,
 * `coloff` columns to the right; returns ERR_INVENTORY.
 */
int ytree_fail(struct ytree *t, const yaml_node_t *n, unsigned coloff,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * "unknown NOUN 'word' in WHERE (did you mean 'x'?; expected one of: a, b)"
 * at node n, the word being n's scalar value.
 */
int ytree_fail_choice(struct ytree *t, const yaml_node_t *n, const char *noun,
		      const char *where, const char *const *choices, size_t nchoices);

/* For messages: "a mapping", "a sequence", "'text'", "an empty value". */
char *ytree_describe(const yaml_node_t *n);

enum ykind {
	Y_ANY,
	Y_MAP,        /* a mapping; an empty value counts as an empty one */
	Y_SEQ,
	Y_SCALAR,
	Y_SCALAR_OR_SEQ,
};

struct ykey {
	const char *name;
	enum ykind kind;
	bool required;
};

/*
 * Checks that `n` is a mapping whose keys all appear in `keys` (terminated
 * by a NULL name), each at most once, each required one present, each value
 * of its kind. vals[i] gets the value of keys[i] or NULL. `where` names the
 * mapping in messages ("host 'dgx01'").
 */
int ytree_check_map(struct ytree *t, yaml_node_t *n, const struct ykey *keys,
		    const char *where, yaml_node_t **vals);

/* Checks that `n` is a mapping (or empty) with unique scalar keys. */
int ytree_check_keys(struct ytree *t, yaml_node_t *n, const char *where);

/* Checks a node's kind; `what` says whose value it is ("'ssh' of host 'x'"). */
int ytree_expect(struct ytree *t, yaml_node_t *n, enum ykind kind, const char *what);

/* Iteration over a mapping (an empty scalar has no pairs). */
size_t ytree_map_len(const yaml_node_t *n);
yaml_node_t *ytree_map_key(struct ytree *t, yaml_node_t *n, size_t i);
yaml_node_t *ytree_map_value(struct ytree *t, yaml_node_t *n, size_t i);
/* Iteration over a sequence; a scalar counts as a sequence of itself. */
size_t ytree_seq_len(const yaml_node_t *n);
yaml_node_t *ytree_seq_item(struct ytree *t, yaml_node_t *n, size_t i);

/* A scalar's text (NUL-terminated, owned by the tree); "" for others. */
const char *ytree_str(const yaml_node_t *n);
bool ytree_is_empty(const yaml_node_t *n);

/* A non-empty scalar copied into *ret (caller frees). */
int ytree_string(struct ytree *t, yaml_node_t *n, const char *what, char **ret);
/* An integer scalar within [min, max]. */
int ytree_uint(struct ytree *t, yaml_node_t *n, unsigned min, unsigned max,
	       const char *what, unsigned *ret);

/*
 * Converts a subtree to JSON. Plain scalars that look like integers, reals,
 * true/false or null (YAML 1.2 core schema) become those types; quoted ones
 * stay strings. Duplicate keys are errors. Returns NULL on error, t->err
 * always filled (jansson out of memory included).
 */
json_t *ytree_to_json(struct ytree *t, yaml_node_t *n, const char *where);

#endif

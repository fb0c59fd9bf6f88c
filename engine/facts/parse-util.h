/*
 * What the tool-output parsers share: one line loop with line numbers and
 * indentation, in-place splitting and trimming, number parsing, and small
 * JSON setters. Only engine/parse-*.c include this.
 */
#ifndef BRINGUP_PARSE_UTIL_H
#define BRINGUP_PARSE_UTIL_H

#include <jansson.h>
#include <stddef.h>

#include "../base/err.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* One line of tool output as a parser's line function sees it. */
struct pline {
	const char *tool;
	size_t no;     /* 1-based line number */
	char *text;    /* after leading blanks, trailing blanks and \r removed;
			  writable until the next line */
	size_t indent; /* columns of leading blanks, tabs to the next 8 */
	const char *orig; /* text as it was before any in-place splitting */
};

/* Called once per line (blank lines too: text is ""); returns 0 or a
 * negative error (use pline_error()). */
typedef int pline_fn(void *state, struct pline *ln, struct err *err);

/*
 * Feeds buf line by line to fn. Input that is empty or only blanks fails
 * with "TOOL: no TOOL output" before fn sees anything.
 */
int parse_lines(const char *tool, const char *buf, size_t len, pline_fn *fn,
		void *state, struct err *err);

/* Sets err to "TOOL: line N: what: 'text'" (ERR_PARSE); returns ERR_PARSE. */
int pline_error(const struct pline *ln, struct err *err, const char *what);
/* Sets err to "TOOL: what" for problems found after the last line. */
int parse_error_end(const char *tool, struct err *err, const char *what);
/* Sets err to "TOOL: not TOOL output (why)" (ERR_PARSE): text that lacks
 * what the tool always prints (its header, key set, column shape), so
 * that a parser never reads another tool's output as its own. */
int parse_not_tool(const char *tool, struct err *err, const char *why);

/* Trims blanks (spaces, tabs) at both ends, in place. */
char *trim(char *s);
/* s after prefix when s starts with it, else NULL. */
char *skip_prefix(const char *s, const char *prefix);
/* True when s starts with one of the n prefixes in list. */
int has_prefix_in(const char *s, const char *const *list, size_t n);
/* Splits at the first sep into trimmed key and value; 0 if no sep. */
int split_kv(char *s, int sep, char **ret_key, char **ret_val);
/* Splits at runs of blanks into at most max tokens (the last one keeps the
 * rest of the line); returns how many were found. */
size_t split_ws(char *s, char **tok, size_t max);
/* Splits at runs of two or more blanks or any tab: column headers whose
 * names contain single spaces ("BW peak[MB/sec]"). */
size_t split_columns(char *s, char **tok, size_t max);
/* True when s is non-empty and made only of c (underlines like "-----"). */
int all_of(const char *s, int c);

/* Whole-string numbers; 0 on success, -1 if s is not one. base 0 takes 0x. */
int parse_ll(const char *s, int base, long long *ret);
int parse_dbl(const char *s, double *ret);
/* A JSON integer or real when s is a number, else a JSON string. */
json_t *json_number_or_string(const char *s);
/* "GPFS cluster name" -> "gpfs_cluster_name"; the caller frees. */
char *slug(const char *s);

/* Setters that take a C value (NULL strings are skipped). */
void jset_str(json_t *o, const char *key, const char *val);
void jset_int(json_t *o, const char *key, long long val);
void jset_real(json_t *o, const char *key, double val);
void jset_bool(json_t *o, const char *key, int val);
/* Sets key to json_number_or_string(val). */
void jset_num(json_t *o, const char *key, const char *val);
/* The array at key, created empty on first use (borrowed reference). */
json_t *jarray_at(json_t *o, const char *key);
/* The object at key, created empty on first use (borrowed reference). */
json_t *jobject_at(json_t *o, const char *key);
/* Appends a new empty object to arr and returns it (borrowed). */
json_t *jarray_new_object(json_t *arr);

/* A JSON integer when d is whole, else a real (rates like 2.5 Gb/s). */
json_t *json_num(double d);

/*
 * Table-driven "Key: value" fields: from is the tool's key, to the JSON key,
 * set converts the value (one of the fset_* below or a parser's own).
 * Setters return 0, or -1 when the value does not fit.
 */
typedef int fset_fn(json_t *o, const char *to, const char *val);
struct field_map {
	const char *from;
	const char *to;
	fset_fn *set;
};
/* fset_yes_no: "Yes"/"yes"/"Active" -> true, "No"/"no"/"Not Active" ->
 * false, anything else stays a string ("N/A"). */
fset_fn fset_str, fset_int, fset_num, fset_lead_int, fset_yes_no;
/* Applies the entry for key: 1 when set, 0 when key is not in map, or -1
 * when the setter refused the value. map ends with a NULL from. */
int field_map_apply(const struct field_map *map, json_t *o, const char *key,
		    const char *val);
/* Maps field_map_apply's result for the parser: unknown keys are skipped
 * (tools add fields across versions), refused values fail on this line. */
int pline_field(const struct pline *ln, struct err *err,
		const struct field_map *map, json_t *o, const char *key,
		const char *val);

/* Appends {keys[i]: tok[i]} to arr for the first min(n, nkeys) tokens,
 * numbers as numbers; returns the new object (borrowed). */
json_t *jarray_add_row(json_t *arr, const char *const *keys, size_t nkeys,
		       char **tok, size_t n);

/*
 * The contract for a tool's own failure (parse.h): a line in which the tool
 * or the shell says the tool could not do its job ("bash: ibstat: command
 * not found", "ibpanic: ...", "Fatal error: ...", "Failed to initialize
 * NVML: ...", "No IB devices found") is valid input. tool_failure_line()
 * says whether s is the shell's word that tool's own command (parse-util.c's
 * tool_commands: a sibling's "command not found" is not this tool's) is
 * missing, or starts with one of the tool's own prefixes in extra (n of
 * them), which list only what that tool itself prints; parse_failure()
 * records it in root:
 * "ok": false, "error" (the first such line) and "errors" (all of them).
 */
int tool_failure_line(const char *tool, const char *s, const char *const *extra, size_t n);
void parse_failure(json_t *root, const char *msg);
/* Records s when it is a failure (common or in failures) or starts with
 * warn_prefix (may be NULL), as above; 1 when it was one of them. */
int parse_tool_line(json_t *root, const char *tool, const char *s,
		    const char *const *failures, size_t n, const char *warn_prefix);
/* Appends msg to root's "warnings" (lines kept, not understood as data). */
void parse_warning(json_t *root, const char *msg);
/* Sets "ok": true unless a failure was recorded; true when it was. */
int parse_failed(json_t *root);

/* Ends a parser: on error drops root and returns rc, else hands root to
 * *ret and returns 0. */
int parse_done(int rc, json_t *root, json_t **ret);

#endif

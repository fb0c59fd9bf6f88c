/*
 * perftest (ib_write_bw, ib_read_bw, ib_send_lat, ...): the test info
 * header, the result table (columns taken from its own header, so bandwidth
 * and latency tests both fit), warnings, and the tool's own failure lines
 * ("Couldn't allocate MR"), which make "ok": false rather than a parse error.
 */
#include "parse.h"
#include "parse-util.h"
#include "../base/strlist.h"
#include "../base/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct perftest_state {
	json_t *root, *info, *results;
	struct strlist cols; /* result column keys, from the "#bytes" header */
	json_t *address;     /* the last local/remote address, for its GID */
};

static const char *const perftest_warnings[] = {
	"Conflicting CPU frequency values detected",
	"Requested mtu is higher than active mtu",
	"Warning:",
	"WARNING:",
};

/* perftest's own failure wordings (perftest_resources.c, perftest_
 * communication.c); not libibverbs' "Failed to get IB devices list" nor
 * NVML's "Failed to initialize NVML", which perftest does not print. */
static const char *const perftest_failures[] = {
	"Couldn't", "Failed to create", "Failed to modify", "Failed to alloc",
	"Failed to register", "Failed to query", "Failed to open", "Failed to post",
	"Failed to exchange", "Failed to deallocate", "Failed to destroy",
	"failed to", "Unable", "Error", "ERROR", "Completion with error", "Problem",
	/* no device: " Did not detect devices" / " If device exists, check if
	 * driver is up" (perftest_resources.c ctx_find_dev); a port not up:
	 * " Port number %d state is %s" (portStates: Down, Init, Armed...),
	 * "Link layer on port %d is Unknown" (perftest_parameters.c) */
	"Did not detect devices", "If device exists", "Port number ", "Link layer on port",
};

/* " #bytes  #iterations  BW peak[MB/sec] ...": keys and units. */
static void perftest_columns(struct perftest_state *st, char *s)
{
	char *col[32];
	size_t n = split_columns(s, col, ARRAY_SIZE(col));

	for (size_t i = 0; i < n; i++) {
		char *unit = strchr(col[i], '[');

		if (unit) {
			*unit++ = '\0';
			unit[strcspn(unit, "]")] = '\0';
		}
		strlist_push_owned(&st->cols, slug(col[i]));
		if (unit)
			jset_str(jobject_at(st->root, "units"),
				 st->cols.v[st->cols.n - 1], unit);
	}
}

/* " Dual-port : OFF\t\tDevice : mlx5_1", also with the tabs expanded:
 * pieces are "key : value", "key" then ": value". */
static int perftest_info(struct perftest_state *st, char *s)
{
	char *piece[16], *pending = NULL, *key, *val;
	size_t n = split_columns(s, piece, ARRAY_SIZE(piece));

	for (size_t i = 0; i < n; i++) {
		if (*piece[i] == ':' && pending) {
			key = pending;
			val = trim(piece[i] + 1);
		} else if (split_kv(piece[i], ':', &key, &val)) {
			/* one piece, "Transport type : IB" */
		} else {
			pending = piece[i];
			continue;
		}
		key = slug(key);
		jset_num(st->info, key, val);
		free(key);
		pending = NULL;
	}
	return pending ? -1 : 0;
}

/* "LID 0x0d QPN 0x16cb PSN 0xa2ff90 RKey 0x038f5c VAddr 0x007fa65e670000",
 * one line per QP: {"lid": "0x0d", "qpn": ...} in local or remote. */
static int perftest_address(struct perftest_state *st, const char *side,
			    char *s)
{
	char *tok[16];
	size_t n = split_ws(s, tok, ARRAY_SIZE(tok));

	if (n < 2 || n % 2 || n == ARRAY_SIZE(tok))
		return -1;
	st->address = jarray_new_object(jarray_at(st->root, side));
	for (size_t i = 0; i < n; i += 2) {
		char *key = slug(tok[i]);

		jset_str(st->address, key, tok[i + 1]);
		free(key);
	}
	return 0;
}

static int perftest_row(struct perftest_state *st, char *s)
{
	char **tok = xcalloc(st->cols.n + 1, sizeof(*tok));
	size_t n = split_ws(s, tok, st->cols.n + 1);

	if (n == st->cols.n)
		jarray_add_row(st->results, (const char *const *)st->cols.v,
			       st->cols.n, tok, n);
	free(tok);
	return n == st->cols.n ? 0 : -1;
}

static int perftest_line(void *state, struct pline *ln, struct err *err)
{
	struct perftest_state *st = state;
	char *s = ln->text, *p;

	if (!*s || all_of(s, '-') || all_of(s, '*') || *s == '*')
		return 0;
	if (has_prefix_in(s, perftest_warnings, ARRAY_SIZE(perftest_warnings))) {
		json_array_append_new(jarray_at(st->root, "warnings"), json_string(s));
		return 0;
	}
	if (has_prefix_in(s, perftest_failures, ARRAY_SIZE(perftest_failures))) {
		json_array_append_new(jarray_at(st->root, "errors"), json_string(s));
		return 0;
	}
	if ((p = skip_prefix(s, "local address:")) ||
	    (p = skip_prefix(s, "remote address:"))) {
		if (perftest_address(st, *s == 'l' ? "local" : "remote", p))
			return pline_error(ln, err, "expected 'NAME value' pairs");
		return 0;
	}
	/* RoCE runs follow each address line with its GID */
	if ((p = skip_prefix(s, "GID:"))) {
		if (!st->address)
			return pline_error(ln, err, "GID before any address line");
		jset_str(st->address, "gid", trim(p));
		return 0;
	}
	if (skip_prefix(s, "#bytes")) {
		perftest_columns(st, s);
		return 0;
	}
	if (st->cols.n && isdigit((unsigned char)*s)) {
		if (perftest_row(st, s))
			return pline_error(ln, err, "result row does not match the columns");
		return 0;
	}
	if (!strchr(s, ':') && strlen(s) > 5 && !strcmp(s + strlen(s) - 5, " Test")) {
		jset_str(st->root, "test", s);
		return 0;
	}
	if (!st->cols.n && strchr(s, ':') && json_object_get(st->root, "test")) {
		if (perftest_info(st, s))
			return pline_error(ln, err, "expected 'key : value'");
		return 0;
	}
	return pline_error(ln, err, "not a perftest line");
}

int parse_perftest(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct perftest_state st = { 0 };
	int rc;

	st.root = json_object();
	st.info = jobject_at(st.root, "info");
	st.results = jarray_at(st.root, "results");
	jarray_at(st.root, "warnings");
	jarray_at(st.root, "errors");
	rc = parse_lines("perftest", buf, len, perftest_line, &st, err);
	strlist_clear(&st.cols);
	jset_bool(st.root, "ok", !json_array_size(json_object_get(st.root, "errors")));
	/* parse.h: a failure names the tool's own first failure line */
	if (json_array_size(json_object_get(st.root, "errors")))
		json_object_set(st.root, "error",
				json_array_get(json_object_get(st.root, "errors"), 0));
	return parse_done(rc, st.root, ret);
}

/*
 * Unified diff by longest common subsequence over lines (quadratic, which
 * is fine for configuration files); see diff.h.
 */
#include "diff.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

#define CONTEXT 3

struct lines {
	const char **v;
	size_t *len;
	size_t n;
};

static void split_lines(const char *s, struct lines *l)
{
	size_t alloc = 0;

	l->v = NULL;
	l->len = NULL;
	l->n = 0;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s + 1) : strlen(s);

		if (l->n + 1 > alloc) {
			alloc = alloc ? alloc * 2 : 16;
			l->v = xrealloc(l->v, alloc * sizeof(*l->v));
			l->len = xrealloc(l->len, alloc * sizeof(*l->len));
		}
		l->v[l->n] = s;
		l->len[l->n++] = len;
		s += len;
	}
}

static int same(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && !memcmp(a->v[i], b->v[j], a->len[i]);
}

static void add_line(struct strbuf *out, char tag, const char *s, size_t len)
{
	strbuf_addch(out, tag);
	strbuf_add(out, s, len);
	if (!len || s[len - 1] != '\n')
		strbuf_addstr(out, "\n\\ No newline at end of file\n");
}

/* ops: '=' both advance, '-' a advances, '+' b advances. */
static char *edit_script(const struct lines *a, const struct lines *b, size_t *ret_n)
{
	size_t n = a->n, m = b->n, k = 0;
	unsigned *t = xcalloc((n + 1) * (m + 1), sizeof(*t));
	char *ops = xmalloc(n + m + 1);

#define T(i, j) t[(i) * (m + 1) + (j)]
	for (size_t i = n; i-- > 0;)
		for (size_t j = m; j-- > 0;)
			T(i, j) = same(a, i, b, j) ? T(i + 1, j + 1) + 1 :
				  (T(i + 1, j) > T(i, j + 1) ? T(i + 1, j) : T(i, j + 1));
	for (size_t i = 0, j = 0; i < n || j < m;) {
		if (i < n && j < m && same(a, i, b, j)) {
			ops[k++] = '=';
			i++, j++;
		} else if (i < n && (j == m || T(i + 1, j) >= T(i, j + 1))) {
			ops[k++] = '-'; /* removals first, as diff -u prints them */
			i++;
		} else {
			ops[k++] = '+';
			j++;
		}
	}
#undef T
	free(t);
	*ret_n = k;
	return ops;
}

static void emit_hunks(const struct lines *a, const struct lines *b, const char *ops,
		       size_t nops, struct strbuf *out)
{
	size_t k = 0, ai = 0, bi = 0;

	while (k < nops) {
		size_t start, end, last, as, bs, ac = 0, bc = 0, x, y;

		while (k < nops && ops[k] == '=')
			k++, ai++, bi++;
		if (k == nops)
			break;
		/* Hunk: back up CONTEXT lines, then run until CONTEXT*2 equal lines in a row. */
		start = k;
		x = 0;
		while (start > 0 && x < CONTEXT && ops[start - 1] == '=')
			start--, x++;
		as = ai - x;
		bs = bi - x;
		last = k;
		for (end = k; end < nops; end++) {
			if (ops[end] != '=')
				last = end;
			else if (end - last > 2 * CONTEXT)
				break;
		}
		end = last + 1;
		for (y = 0; end < nops && ops[end] == '=' && y < CONTEXT; y++)
			end++;
		for (size_t i = start; i < end; i++) {
			ac += ops[i] != '+';
			bc += ops[i] != '-';
		}
		strbuf_addf(out, "@@ -%zu,%zu +%zu,%zu @@\n", ac ? as + 1 : as, ac,
			    bc ? bs + 1 : bs, bc);
		ai = as;
		bi = bs;
		for (size_t i = start; i < end; i++) {
			if (ops[i] == '=') {
				add_line(out, ' ', a->v[ai], a->len[ai]);
				ai++, bi++;
			} else if (ops[i] == '-') {
				add_line(out, '-', a->v[ai], a->len[ai]);
				ai++;
			} else {
				add_line(out, '+', b->v[bi], b->len[bi]);
				bi++;
			}
		}
		k = end;
	}
}

void diff_unified(const char *a_name, const char *a, const char *b_name,
		  const char *b, struct strbuf *out)
{
	struct lines la, lb;
	size_t nops;
	char *ops;

	if (!strcmp(a, b))
		return;
	split_lines(a, &la);
	split_lines(b, &lb);
	strbuf_addf(out, "--- %s\n+++ %s\n", a_name, b_name);
	if (la.n > DIFF_MAX_LINES || lb.n > DIFF_MAX_LINES) {
		strbuf_addf(out, "(files differ: %zu and %zu lines, too long to show)\n",
			    la.n, lb.n);
	} else {
		ops = edit_script(&la, &lb, &nops);
		emit_hunks(&la, &lb, ops, nops, out);
		free(ops);
	}
	free(la.v);
	free(la.len);
	free(lb.v);
	free(lb.len);
}

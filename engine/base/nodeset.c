/*
 * Node sets: expanding "dgx[01-03],scale00" into names and folding names
 * back into the shortest such string. See nodeset.h.
 *
 * Expansion works item by item (items are the top-level comma-separated
 * parts). An item is a row of pieces, each a literal or a [..] range list;
 * its names are the cartesian product of the pieces, first piece outermost,
 * as ClusterShell orders them ("r[1-2]n[1-2]" gives r1n1 r1n2 r2n1 r2n2).
 */
#include "nodeset.h"
#include "strbuf.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Range bounds beyond this many digits are typos, not host numbers. */
#define MAX_DIGITS 9

struct expander {
	const char *pat;
	size_t pos;
	size_t err_pos;
	struct err *err;
};

/* What sits at `pos`, for "found ..." messages. */
static char *found_at(const struct expander *ex, size_t pos)
{
	char c = ex->pat[pos];

	if (!c)
		return xstrdup("the end of the pattern");
	if (isspace((unsigned char)c))
		return xstrdup("a space");
	return xasprintf("'%c'", c);
}

static int fail(struct expander *ex, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct expander *ex, size_t pos, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ex->err_pos = pos;
	err_set(ex->err, ERR_PARSE, "%s", sb.buf);
	strbuf_release(&sb);
	return ERR_PARSE;
}

/* "found <what is at pos>, expected <expected>" */
static int fail_found(struct expander *ex, size_t pos, const char *expected)
{
	char *found = found_at(ex, pos);

	fail(ex, pos, "found %s, expected %s", found, expected);
	free(found);
	return ERR_PARSE;
}

/* Reads a decimal number at ex->pos; its digits go to *ret_digits. */
static int read_number(struct expander *ex, unsigned long *ret,
		       const char **ret_digits, size_t *ret_len)
{
	const char *s = ex->pat + ex->pos;
	size_t len = strspn(s, "0123456789");

	if (!len)
		return fail_found(ex, ex->pos, "a number");
	if (len > MAX_DIGITS)
		return fail(ex, ex->pos, "found a number of more than %d digits, "
			    "expected a host number", MAX_DIGITS);
	*ret = strtoul(s, NULL, 10);
	*ret_digits = s;
	*ret_len = len;
	ex->pos += len;
	return 0;
}

/* Zero padding is set by the first bound, as in ClusterShell: "[08-10]". */
static int range_width(const char *digits, size_t len)
{
	return len > 1 && digits[0] == '0' ? (int)len : 0;
}

/* Parses "[a-b,c,...]" at ex->pos into the strings it stands for. */
static int read_ranges(struct expander *ex, struct strlist *alts)
{
	ex->pos++; /* '[' */
	for (;;) {
		unsigned long lo, hi;
		const char *lo_s, *hi_s;
		size_t lo_len, hi_len, start = ex->pos;
		int width;

		if (read_number(ex, &lo, &lo_s, &lo_len))
			return ERR_PARSE;
		hi = lo;
		if (ex->pat[ex->pos] == '-') {
			ex->pos++;
			if (read_number(ex, &hi, &hi_s, &hi_len))
				return ERR_PARSE;
			if (hi < lo) {
				return fail(ex, start, "found the descending range "
					    "'%.*s', expected the smaller number first",
					    (int)(ex->pos - start), ex->pat + start);
			}
		}
		if (hi - lo >= NODESET_MAX - alts->n) {
			return fail(ex, start, "found a range of %lu names, expected "
				    "at most %d names in one node set",
				    hi - lo + 1, NODESET_MAX);
		}
		width = range_width(lo_s, lo_len);
		for (unsigned long v = lo; v <= hi; v++)
			strlist_push_owned(alts, xasprintf("%0*lu", width, v));
		if (ex->pat[ex->pos] == ',') {
			ex->pos++;
			continue;
		}
		if (ex->pat[ex->pos] == ']') {
			ex->pos++;
			return 0;
		}
		return fail_found(ex, ex->pos, "',' or ']'");
	}
}

/* Appends the cartesian product of `pieces` to `out`. */
static void emit_product(struct strlist *pieces, size_t npieces,
			 struct strlist *out)
{
	size_t *idx = xcalloc(npieces ? npieces : 1, sizeof(*idx));
	struct strbuf sb = STRBUF_INIT;

	for (;;) {
		size_t k;

		strbuf_reset(&sb);
		for (k = 0; k < npieces; k++)
			strbuf_addstr(&sb, pieces[k].v[idx[k]]);
		strlist_push(out, sb.buf);
		/* Odometer: the last piece turns fastest. */
		for (k = npieces; k > 0; k--) {
			if (++idx[k - 1] < pieces[k - 1].n)
				break;
			idx[k - 1] = 0;
		}
		if (k == 0)
			break;
	}
	strbuf_release(&sb);
	free(idx);
}

static void push_literal(struct strlist **pieces, size_t *n, size_t *alloc,
			 struct strbuf *lit)
{
	struct strlist one = STRLIST_INIT;

	if (!lit->len)
		return;
	strlist_push(&one, lit->buf);
	ALLOC_GROW(*pieces, *n + 1, *alloc);
	(*pieces)[(*n)++] = one;
	strbuf_reset(lit);
}

static bool at_item_end(const struct expander *ex)
{
	size_t p = ex->pos;

	while (ex->pat[p] == ' ' || ex->pat[p] == '\t')
		p++;
	return !ex->pat[p] || ex->pat[p] == ',';
}

/* Parses one comma-separated item at ex->pos and appends its names. */
static int read_item(struct expander *ex, struct strlist *out)
{
	struct strlist *pieces = NULL;
	size_t npieces = 0, alloc = 0, count = 1, start;
	struct strbuf lit = STRBUF_INIT;
	int ret = 0;

	while (ex->pat[ex->pos] == ' ' || ex->pat[ex->pos] == '\t')
		ex->pos++;
	start = ex->pos;
	while (ex->pat[ex->pos] && ex->pat[ex->pos] != ',') {
		char c = ex->pat[ex->pos];
		struct strlist alts = STRLIST_INIT;

		if (c == '[') {
			push_literal(&pieces, &npieces, &alloc, &lit);
			ret = read_ranges(ex, &alts);
			ALLOC_GROW(pieces, npieces + 1, alloc);
			pieces[npieces++] = alts;
			if (ret)
				goto out;
		} else if (c == ']') {
			ret = fail(ex, ex->pos, "found ']' without its '[', "
				   "expected a host name");
			goto out;
		} else if (isspace((unsigned char)c)) {
			if (!at_item_end(ex)) {
				ret = fail(ex, ex->pos, "found a space inside a name, "
					   "expected ',' between names");
				goto out;
			}
			ex->pos++;
		} else {
			strbuf_addch(&lit, c);
			ex->pos++;
		}
	}
	push_literal(&pieces, &npieces, &alloc, &lit);
	if (!npieces) {
		ret = fail(ex, ex->pos, "found an empty name, expected a host name");
		goto out;
	}
	for (size_t k = 0; k < npieces; k++) {
		if (count > (NODESET_MAX - out->n) / pieces[k].n) {
			ret = fail(ex, start, "found a node set of more than %d "
				   "names, expected at most that many", NODESET_MAX);
			goto out;
		}
		count *= pieces[k].n;
	}
	emit_product(pieces, npieces, out);
out:
	for (size_t k = 0; k < npieces; k++)
		strlist_clear(&pieces[k]);
	free(pieces);
	strbuf_release(&lit);
	return ret;
}

int nodeset_expand_at(const char *pattern, struct strlist *out,
		      size_t *ret_pos, struct err *err)
{
	struct expander ex = { pattern, 0, 0, err };
	struct strlist names = STRLIST_INIT;

	for (;;) {
		if (read_item(&ex, &names)) {
			if (ret_pos)
				*ret_pos = ex.err_pos;
			strlist_clear(&names);
			return ERR_PARSE;
		}
		if (!pattern[ex.pos])
			break;
		ex.pos++; /* ',' */
	}
	for (size_t i = 0; i < names.n; i++)
		strlist_push_owned(out, names.v[i]);
	free(names.v);
	return 0;
}

int nodeset_expand(const char *pattern, struct strlist *out, struct err *err)
{
	size_t pos = 0;

	if (!nodeset_expand_at(pattern, out, &pos, err))
		return 0;
	return err_prefix(err, "node set '%s', column %zu: ", pattern, pos + 1);
}

/*
 * Folding. Names are grouped by what surrounds their last number (prefix and
 * suffix); each group prints as prefix[runs]suffix, groups in the order of
 * their first name.
 */
struct fold_num {
	unsigned long val;
	const char *digits;
	size_t len;
};

struct fold_group {
	const char *name;      /* first name seen: prefix, digits, suffix */
	size_t plen, slen;     /* prefix and suffix lengths */
	bool numbered;
	struct fold_num *nums;
	size_t n, alloc;
};

/* Splits a name around its last run of digits; false if it has none. */
static bool split_last_number(const char *name, size_t *ret_plen,
			      size_t *ret_dlen)
{
	size_t end = strlen(name), start;

	while (end > 0 && !isdigit((unsigned char)name[end - 1]))
		end--;
	if (!end)
		return false;
	start = end;
	while (start > 0 && isdigit((unsigned char)name[start - 1]))
		start--;
	if (end - start > MAX_DIGITS)
		return false;
	*ret_plen = start;
	*ret_dlen = end - start;
	return true;
}

static bool same_group(const struct fold_group *g, const char *name,
		       bool numbered, size_t plen, size_t dlen)
{
	size_t slen = strlen(name) - plen - dlen;

	if (g->numbered != numbered)
		return false;
	if (!numbered)
		return !strcmp(g->name, name);
	return g->plen == plen && g->slen == slen &&
	       !strncmp(g->name, name, plen) &&
	       !strcmp(g->name + strlen(g->name) - g->slen, name + plen + dlen);
}

static int cmp_num(const void *a, const void *b)
{
	const struct fold_num *x = a, *y = b;

	if (x->val != y->val)
		return x->val < y->val ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

static size_t num_width(unsigned long v)
{
	size_t w = 1;

	while (v >= 10) {
		v /= 10;
		w++;
	}
	return w;
}

/* Does `next` print as the number after `prev` in a run of this width? */
static bool continues_run(const struct fold_num *prev, const struct fold_num *next,
			  int width)
{
	size_t want = num_width(next->val);

	if (want < (size_t)width)
		want = (size_t)width;
	return next->val == prev->val + 1 && next->len == want;
}

static void add_runs(struct strbuf *sb, struct fold_num *nums, size_t n)
{
	size_t i = 0;

	while (i < n) {
		int width = range_width(nums[i].digits, nums[i].len);
		size_t j = i;

		while (j + 1 < n && continues_run(&nums[j], &nums[j + 1], width))
			j++;
		if (i)
			strbuf_addch(sb, ',');
		strbuf_add(sb, nums[i].digits, nums[i].len);
		if (j > i) {
			strbuf_addch(sb, '-');
			strbuf_add(sb, nums[j].digits, nums[j].len);
		}
		i = j + 1;
	}
}

static void add_group(struct strbuf *sb, struct fold_group *g)
{
	size_t n = 0;

	if (!g->numbered) {
		strbuf_addstr(sb, g->name);
		return;
	}
	qsort(g->nums, g->n, sizeof(*g->nums), cmp_num);
	for (size_t i = 0; i < g->n; i++) /* drop repeated names */
		if (!n || cmp_num(&g->nums[n - 1], &g->nums[i]))
			g->nums[n++] = g->nums[i];
	strbuf_add(sb, g->name, g->plen);
	if (n == 1) {
		strbuf_add(sb, g->nums[0].digits, g->nums[0].len);
	} else {
		strbuf_addch(sb, '[');
		add_runs(sb, g->nums, n);
		strbuf_addch(sb, ']');
	}
	strbuf_addstr(sb, g->name + strlen(g->name) - g->slen);
}

/* FNV-1a over what makes a group: numbered or not, prefix, suffix. */
static size_t group_hash(const char *name, bool numbered, size_t plen, size_t dlen)
{
	size_t h = numbered ? 2166136261u : 16777619u;
	const char *suffix = name + plen + dlen;

	if (!numbered)
		plen = strlen(name);
	for (size_t i = 0; i < plen; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	h = (h ^ 0x100) * 16777619u; /* ends the prefix; same_group decides */
	if (numbered)
		for (; *suffix; suffix++)
			h = (h ^ (unsigned char)*suffix) * 16777619u;
	return h;
}

/*
 * Finds the group of names[i] through an open-addressing table of group
 * indices (slots hold index + 1), so that n names that all differ around
 * their last number ("n1-ib0" ... "n65536-ib0") cost O(n), not O(n^2).
 */
struct group_table {
	size_t *slots;
	size_t mask;
};

static size_t *group_slot(struct group_table *tab, const struct fold_group *groups,
			  const char *name, bool numbered, size_t plen, size_t dlen)
{
	size_t i = group_hash(name, numbered, plen, dlen) & tab->mask;

	while (tab->slots[i] &&
	       !same_group(&groups[tab->slots[i] - 1], name, numbered, plen, dlen))
		i = (i + 1) & tab->mask;
	return &tab->slots[i];
}

char *nodeset_fold(char *const *names, size_t n)
{
	struct fold_group *groups = NULL;
	size_t ngroups = 0, alloc = 0, cap = 16;
	struct strbuf sb = STRBUF_INIT;
	struct group_table tab;

	while (cap < 2 * n)
		cap *= 2;
	tab.slots = xcalloc(cap, sizeof(*tab.slots));
	tab.mask = cap - 1;
	for (size_t i = 0; i < n; i++) {
		size_t plen = 0, dlen = 0, *slot;
		bool numbered = split_last_number(names[i], &plen, &dlen);
		struct fold_group *g;

		slot = group_slot(&tab, groups, names[i], numbered, plen, dlen);
		if (!*slot) {
			ALLOC_GROW(groups, ngroups + 1, alloc);
			groups[ngroups++] = (struct fold_group){
				.name = names[i], .plen = plen, .numbered = numbered,
				.slen = strlen(names[i]) - plen - dlen,
			};
			*slot = ngroups;
		}
		g = &groups[*slot - 1];
		if (!numbered)
			continue;
		ALLOC_GROW(g->nums, g->n + 1, g->alloc);
		g->nums[g->n++] = (struct fold_num){
			strtoul(names[i] + plen, NULL, 10), names[i] + plen, dlen
		};
	}
	free(tab.slots);
	for (size_t k = 0; k < ngroups; k++) {
		if (k)
			strbuf_addch(&sb, ',');
		add_group(&sb, &groups[k]);
		free(groups[k].nums);
	}
	free(groups);
	return strbuf_detach(&sb, NULL);
}

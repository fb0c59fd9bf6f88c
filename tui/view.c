/*
 * The TUI's one screen: header, matrix (hosts by stages, with a bar per
 * stage), detail pane, status line; and the help and log pager over it.
 * Called on the TUI thread with the model locked; draws into curses'
 * buffers only (the write to the terminal happens after the unlock).
 */
#include "tui-int.h"
#include "../engine/base/xalloc.h"

#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

enum { P_OK = 1, P_CHANGED, P_FAILED, P_RUNNING, P_UNREACH, P_BAR };

/* Glyphs carry the state; colour only helps (NO_COLOR, monochrome). */
static const wchar_t *const glyph_utf8[CS__COUNT] = {
	[CS_NONE] = L" ", [CS_PENDING] = L"\u00b7", [CS_OK] = L"\u2713",
	[CS_CHANGED] = L"\u25cf", [CS_FAILED] = L"\u2717", [CS_SKIPPED] = L"\u00bb",
	[CS_UNREACHABLE] = L"\u2298", [CS_NOTHERE] = L"\u2013",
};
static const wchar_t *const glyph_ascii[CS__COUNT] = {
	[CS_NONE] = L" ", [CS_PENDING] = L".", [CS_OK] = L"o", [CS_CHANGED] = L"+",
	[CS_FAILED] = L"X", [CS_SKIPPED] = L">", [CS_UNREACHABLE] = L"U", [CS_NOTHERE] = L"-",
};

/* The UTF-8 text, or its ASCII stand-in outside a UTF-8 locale (LANG=C). */
static const char *U(const struct tui *t, const char *utf8, const char *ascii)
{
	return t->utf8 ? utf8 : ascii;
}

/* A state's name; a dry run's "changed" is what would change. */
static const char *sname(const struct tui *t, enum cstate s)
{
	return s == CS_CHANGED && t->m.dry_run ? "would change" : cstate_name(s);
}
static const wchar_t spin_utf8[] = L"\u280b\u2819\u2839\u2838\u283c\u2834\u2826\u2827\u2807\u280f";
static const wchar_t spin_ascii[] = L"|/-\\";

void view_colours(struct tui *t)
{
	if (!t->colour)
		return;
	start_color();
	use_default_colors();
	init_pair(P_OK, COLOR_GREEN, -1);
	init_pair(P_CHANGED, COLOR_YELLOW, -1);
	init_pair(P_FAILED, COLOR_RED, -1);
	init_pair(P_RUNNING, COLOR_CYAN, -1);
	init_pair(P_UNREACH, COLOR_MAGENTA, -1);
	init_pair(P_BAR, COLOR_BLUE, -1);
}

static attr_t state_attr(const struct tui *t, enum cstate s)
{
	static const short pair[CS__COUNT] = { [CS_OK] = P_OK, [CS_CHANGED] = P_CHANGED,
		[CS_FAILED] = P_FAILED, [CS_RUNNING] = P_RUNNING, [CS_UNREACHABLE] = P_UNREACH };
	attr_t a = s == CS_FAILED || s == CS_UNREACHABLE ? A_BOLD : A_NORMAL;

	if (s == CS_PENDING || s == CS_SKIPPED || s == CS_NONE || s == CS_NOTHERE)
		a |= A_DIM;
	if (t->colour && pair[s])
		a |= COLOR_PAIR(pair[s]);
	return a;
}

static const wchar_t *glyph(const struct tui *t, enum cstate s)
{
	static wchar_t spin[2];
	const wchar_t *frames = t->utf8 ? spin_utf8 : spin_ascii;

	if (s == CS_RUNNING) {
		size_t n = wcslen(frames);

		spin[0] = frames[(size_t)(t->now * 10) % n];
		spin[1] = 0;
		return spin;
	}
	return (t->utf8 ? glyph_utf8 : glyph_ascii)[s];
}

/*
 * The next character of *s (UTF-8, *len bytes left) as it is drawn: a tab
 * as a space, control and invalid bytes as '?'. Advances *s and *len;
 * returns its width in columns.
 */
static int next_char(const char **s, size_t *len, mbstate_t *ps, wchar_t *ret)
{
	wchar_t wc;
	size_t k = mbrtowc(&wc, *s, *len, ps);
	int w;

	if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
		wc = L'?';
		k = 1;
		memset(ps, 0, sizeof(*ps));
	}
	if (wc == L'\t')
		wc = L' ';
	if (wc < 32 || wc == 127)
		wc = L'?';
	w = wcwidth(wc);
	if (w < 0)
		wc = L'?', w = 1;
	*s += k;
	*len -= k;
	*ret = wc;
	return w;
}

/* Writes s (UTF-8) at y,x in at most `width` columns; control bytes show as '?'. */
static int put(int y, int x, int width, const char *s, attr_t a)
{
	mbstate_t ps = { 0 };
	int used = 0;
	size_t len = s ? strlen(s) : 0;

	if (width <= 0 || y < 0 || y >= LINES)
		return 0;
	move(y, x);
	attr_set(a, PAIR_NUMBER(a), NULL);
	while (len) {
		const char *p = s;
		size_t l = len;
		wchar_t wc;
		int w = next_char(&p, &l, &ps, &wc);

		if (used + w > width)
			break;
		addnwstr(&wc, 1);
		used += w;
		s = p;
		len = l;
	}
	attr_set(A_NORMAL, 0, NULL);
	return used;
}

static int putf(int y, int x, int width, attr_t a, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int putf(int y, int x, int width, attr_t a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put(y, x, width, buf, a);
}

static void put_glyph(const struct tui *t, int y, int x, enum cstate s, bool selected)
{
	attr_t a = state_attr(t, s) | (selected ? A_REVERSE : 0);

	attr_set(a, PAIR_NUMBER(a), NULL);
	mvaddwstr(y, x, glyph(t, s));
	attr_set(A_NORMAL, 0, NULL);
}

static double elapsed(const struct tui *t)
{
	double live = t->now - t->t_open;

	if (t->ctl.replay || t->ctl.attached || t->m.done)
		return t->m.t;
	return live > t->m.t ? live : t->m.t;
}

/* "1:02:03" or "2:03" */
static const char *hms(char *buf, size_t n, double s)
{
	long v = s > 0 ? (long)s : 0;

	if (v >= 3600)
		snprintf(buf, n, "%ld:%02ld:%02ld", v / 3600, v / 60 % 60, v % 60);
	else
		snprintf(buf, n, "%ld:%02ld", v / 60, v % 60);
	return buf;
}

/* The header's order of host states. */
static const enum cstate header_order[] = { CS_OK, CS_CHANGED, CS_FAILED, CS_UNREACHABLE,
					    CS_SKIPPED, CS_RUNNING, CS_PENDING };
#define NORDER (sizeof(header_order) / sizeof(header_order[0]))

static const char *header_name(const struct tui *t, enum cstate s)
{
	return s == CS_UNREACHABLE ? "unreach" : sname(t, s);
}

/* Line 0: what runs, its clock and marks; line 1: hosts per state (not cells). */
static void draw_header(struct tui *t)
{
	const struct model *m = &t->m;
	int e = (int)elapsed(t), x, header_end, full = 0;
	size_t hosts[CS__COUNT], stages_done = 0;
	bool short_form;

	for (size_t s = 0; s < m->nst; s++) {
		size_t done, total;

		model_stage_progress(m, s, &done, &total);
		stages_done += total && done == total;
	}
	x = putf(0, 0, COLS, A_BOLD, "bringup%s", t->ctl.replay ? " replay" :
		 t->ctl.attached ? " attached" : "");
	x += putf(0, x, COLS - x, A_NORMAL, " %s  %s  %02d:%02d:%02d  %zu host%s, stages %zu/%zu",
		  m->cluster, m->playbook, e / 3600, e / 60 % 60, e % 60, m->nh,
		  m->nh == 1 ? "" : "s", stages_done, m->nst);
	if (m->dry_run)
		x += put(0, x, COLS - x, "  [DRY RUN]", A_BOLD | A_REVERSE);
	if (t->paused)
		x += put(0, x, COLS - x, "  [PAUSED]", A_BOLD | A_REVERSE);
	if (m->done)
		x += put(0, x, COLS - x, m->interrupted ? "  [INTERRUPTED]" : "  [DONE]", A_BOLD);
	else if (t->stop_asked || t->interrupted)
		x += put(0, x, COLS - x, "  [STOPPING]", A_BOLD);
	header_end = x;
	model_host_counts(m, hosts);
	/* names when they fit, else glyphs and numbers alone */
	for (size_t i = 0; i < NORDER; i++)
		full += snprintf(NULL, 0, "%s? %s %zu", i ? " " : "", header_name(t, header_order[i]),
				 hosts[header_order[i]]);
	short_form = full > COLS;
	/* outside UTF-8 the names alone read better than "ook 3" */
	x = 0;
	for (size_t i = 0; i < NORDER; i++) {
		enum cstate s = header_order[i];
		attr_t a = s == CS_FAILED && hosts[s] ? state_attr(t, s) : A_NORMAL;

		x += put(1, x, COLS - x, i ? " " : "", A_NORMAL);
		if (x >= COLS)
			break;
		if (t->utf8 || short_form) {
			put_glyph(t, 1, x, s, false);
			x += 1;
		}
		if (short_form)
			x += putf(1, x, COLS - x, a, "%zu", hosts[s]);
		else
			x += putf(1, x, COLS - x, a, "%s %zu", header_name(t, s), hosts[s]);
	}
	if (t->failures_only || t->filter.len)
		putf(0, header_end, COLS - header_end, A_BOLD, "  [%s%s%s]", t->failures_only ? "failures only" : "",
		     t->failures_only && t->filter.len ? ", " : "",
		     t->filter.len ? t->filter.buf : "");
}

struct layout {
	int hw, cw, rows_y, rows_h, detail_y, detail_h;
	size_t nvis;             /* stages that fit */
};

/* " (N)" after a folded row's node set */
static int count_width(size_t n)
{
	return snprintf(NULL, 0, " (%zu)", n);
}

static void plan_layout(struct tui *t, struct layout *l, const struct mrow *rows, size_t nrows,
			bool zoom)
{
	size_t longest = 4, longest_stage = 4;
	int avail, cap;

	for (size_t i = 0; i < nrows; i++) {
		size_t n = strlen(rows[i].label) + 2 + (rows[i].n > 1 ? (size_t)count_width(rows[i].n) : 0);

		if (n > longest)
			longest = n;
	}
	for (size_t s = 0; s < t->m.nst; s++)
		if (strlen(t->m.stages.v[s]) > longest_stage)
			longest_stage = strlen(t->m.stages.v[s]);
	l->hw = (int)(longest > 30 ? 30 : longest) + 1;
	if (l->hw > COLS / 2)
		l->hw = COLS / 2;
	avail = COLS - l->hw;
	/* a column as wide as the longest stage name (up to 20), narrower when
	 * that makes every stage fit; never under 4 */
	cap = (int)longest_stage + 1;
	if (cap > 20)
		cap = 20;
	l->cw = t->m.nst ? avail / (int)t->m.nst : avail;
	if (l->cw > cap)
		l->cw = cap;
	if (l->cw < 4)
		l->cw = 4;
	l->nvis = (size_t)(avail / l->cw);
	if (l->nvis < 1)
		l->nvis = 1;
	l->detail_h = zoom ? LINES - 7 : (LINES - 5) / 3;
	if (!zoom && l->detail_h > 14)
		l->detail_h = 14;
	if (l->detail_h < 4)
		l->detail_h = 4;
	l->rows_y = 4;
	l->rows_h = LINES - l->rows_y - l->detail_h - 1;
	if (l->rows_h < 1)
		l->rows_h = 1;
	l->detail_y = l->rows_y + l->rows_h;
}

static void draw_matrix_head(struct tui *t, const struct layout *l)
{
	const struct model *m = &t->m;

	if ((size_t)(l->cw - 1) != t->abbrev_w || t->abbrev.n != m->nst) {
		model_abbrev(m->stages.v, m->nst, (size_t)(l->cw - 1), &t->abbrev);
		t->abbrev_w = (size_t)(l->cw - 1);
	}
	put(2, 0, l->hw, t->stage_off ? U(t, "HOST  \u2190", "HOST  <") : "HOST", A_BOLD);
	for (size_t v = 0; v < l->nvis && t->stage_off + v < m->nst; v++) {
		size_t s = t->stage_off + v, done, total;
		int x = l->hw + (int)v * l->cw, w = l->cw - 1, filled, tx, tl;
		char txt[32];

		model_stage_progress(m, s, &done, &total);
		put(2, x, w, t->abbrev.v[s], A_BOLD | (s == t->sel_stage ? A_UNDERLINE : 0));
		filled = total ? (int)(done * (size_t)w / total) : 0;
		/* the bar, with the stage's done/total in it where that fits */
		tl = total ? snprintf(txt, sizeof(txt), "%zu/%zu", done, total) : 0;
		if (tl > w)
			tl = 0;
		tx = (w - tl) / 2;
		for (int i = 0; i < w; i++) {
			bool in_txt = tl && i >= tx && i < tx + tl;
			attr_t a = i < filled ? (t->colour ? COLOR_PAIR(P_BAR) : A_NORMAL) : A_DIM;
			wchar_t wc[2] = { 0, 0 };

			if (in_txt) {
				wc[0] = (wchar_t)txt[i - tx];
				a = i < filled ? A_REVERSE | (t->colour ? COLOR_PAIR(P_BAR) : 0) : A_NORMAL;
			} else {
				wc[0] = i < filled ? (t->utf8 ? L'\u2588' : L'#') :
					(t->utf8 ? L'\u2591' : L'.');
			}
			attr_set(a, PAIR_NUMBER(a), NULL);
			mvaddwstr(3, x + i, wc);
		}
		attr_set(A_NORMAL, 0, NULL);
	}
	if (t->stage_off + l->nvis < m->nst)
		put(2, COLS - 1, 1, U(t, "\u2192", ">"), A_BOLD);
}

/* The row's label in at most w columns, a folded row's " (N)" always kept. */
static void draw_label(const struct tui *t, int y, int w, const struct mrow *row, attr_t a)
{
	const char *mark = row->n > 1 ? (row->expanded ? U(t, "\u25be ", "v ") : U(t, "\u25b8 ", "+ ")) :
			   row->member ? "  " : "";
	int x = put(y, 0, w, mark, a), cw = row->n > 1 ? count_width(row->n) : 0;
	int room = w - x - cw, lw = (int)strlen(row->label);

	if (room < 1)
		room = 1;
	if (lw <= room) {
		x += put(y, x, room, row->label, a);
	} else {
		x += put(y, x, room - 1, row->label, a);
		x += put(y, x, 1, U(t, "\u2026", "~"), a);
	}
	if (cw)
		putf(y, x, w - x, a, " (%zu)", row->n);
}

static void draw_rows(struct tui *t, const struct layout *l, const struct mrow *rows)
{
	const struct model *m = &t->m;

	for (int i = 0; i < l->rows_h && t->top + (size_t)i < t->nrows; i++) {
		size_t r = t->top + (size_t)i;
		const struct mrow *row = &rows[r];
		int y = l->rows_y + i;
		bool sel = r == t->sel_row;
		attr_t rev = sel ? A_REVERSE : 0;

		/* the cursor is the whole line */
		if (sel) {
			attr_set(A_REVERSE, 0, NULL);
			mvhline(y, 0, ' ', COLS);
			attr_set(A_NORMAL, 0, NULL);
		}
		draw_label(t, y, l->hw - 1, row, (sel ? A_BOLD : A_NORMAL) | rev);
		for (size_t v = 0; v < l->nvis && t->stage_off + v < m->nst; v++) {
			size_t s = t->stage_off + v;
			enum cstate st = model_cell(m, row->host, s)->st;
			attr_t a = state_attr(t, st);

			/* in the cursor's line, the chosen cell stands out the other way */
			if (sel)
				a = s == t->sel_stage ? (a & ~A_DIM) | A_BOLD | A_UNDERLINE : a | A_REVERSE;
			attr_set(a, PAIR_NUMBER(a), NULL);
			mvaddwstr(y, l->hw + (int)v * l->cw + (l->cw - 1) / 2, glyph(t, st));
			attr_set(A_NORMAL, 0, NULL);
		}
	}
	if (!t->nrows)
		put(l->rows_y, 0, COLS, t->failures_only ? "(no host has failed)" :
		    "(no host matches the filter)", A_DIM);
}

/*
 * Writes s after prefix from line y in width w, keeping its line breaks
 * and wrapping long lines (at a space near the end when there is one),
 * in at most maxl lines; returns the lines it takes (all of them, drawn
 * or not: y out of the screen only counts).
 */
static int wrapped(int y, int x, int w, int maxl, const char *prefix, const char *s, attr_t a)
{
	char *text = xasprintf("%s%s", prefix, s);
	size_t len = strlen(text), off = 0;
	int n = 0;

	if (w < 1)
		w = 1;
	while (off < len) {
		size_t eol = strcspn(text + off, "\n"), take = eol < (size_t)w ? eol : (size_t)w;

		/* break at a space when one is near the end */
		if (take < eol)
			for (size_t k = take; k > take / 2; k--)
				if (text[off + k] == ' ') {
					take = k;
					break;
				}
		if (n < maxl) {
			char save = text[off + take];

			text[off + take] = '\0';
			put(y + n, x, w, text + off, a);
			text[off + take] = save;
		}
		off += take;
		if (take == eol && off < len)
			off++; /* the line break */
		else
			while (off < len && text[off] == ' ')
				off++;
		n++;
	}
	free(text);
	return n;
}

/* The host the detail pane shows for a row: the chosen host when the row holds it. */
static size_t detail_host(const struct tui *t, const struct mrow *row)
{
	if (row->n > 1 && t->sel_host < t->m.nh && row->sig) {
		char *sig = model_signature(&t->m, t->sel_host);
		bool same = !strcmp(sig, row->sig);

		free(sig);
		if (same)
			return t->sel_host;
	}
	return row->host;
}

static void draw_detail(struct tui *t, const struct layout *l, const struct mrow *rows)
{
	const struct model *m = &t->m;
	const struct mrow *row;
	const struct mcell *c;
	int y = l->detail_y, bottom = l->detail_y + l->detail_h - 1, nout, need, w = COLS - 2;
	int title_w = COLS - 2;
	size_t h, done, total;
	enum cstate st;
	struct strbuf title = STRBUF_INIT;
	const char *dot = U(t, " \u00b7 ", " - ");
	char b1[32], b2[32];
	double eta;

	attr_set(A_NORMAL, 0, NULL);
	mvhline(y, 0, t->utf8 ? 0 : '-', COLS);
	if (t->nrows) {
		/* where the window is: row N/M, and rows hidden above and below */
		int rx;
		size_t below = t->nrows > t->top + (size_t)l->rows_h ?
			       t->nrows - t->top - (size_t)l->rows_h : 0;
		char pos[96];

		snprintf(pos, sizeof(pos), " row %zu/%zu%s%.0zu%s%.0zu ", t->sel_row + 1, t->nrows,
			 t->top ? U(t, " \u2191", " ^") : "", t->top,
			 below ? U(t, " \u2193", " v") : "", below);
		rx = COLS - 1 - view_line_rows(pos, 1);
		if (rx > 0) {
			put(y, rx, COLS - rx, pos, A_BOLD);
			title_w = rx - 2;
		}
	}
	if (!t->nrows || t->sel_stage >= m->nst)
		return;
	row = &rows[t->sel_row];
	h = detail_host(t, row);
	c = model_cell(m, h, t->sel_stage);
	st = c->st;
	model_stage_progress(m, t->sel_stage, &done, &total);
	if (row->n > 1)
		strbuf_addf(&title, " %s (%zu hosts, showing %s)", row->label, row->n, m->hosts.v[h]);
	else
		strbuf_addf(&title, " %s", m->hosts.v[h]);
	strbuf_addf(&title, "%s%s%s%s", dot, m->stages.v[t->sel_stage], dot, sname(t, st));
	if (st == CS_RUNNING) {
		char b3[32];

		strbuf_addf(&title, " %s", hms(b2, sizeof(b2), (m->done || t->ctl.replay ||
							       t->ctl.attached ? m->t :
							       t->now - t->t_open) - c->t_start));
		/* against the limit a command there has before it is stopped,
		 * as "elapsed/limit": short enough to leave the stage's count
		 * on an 80-column title */
		if (c->limit_s)
			strbuf_addf(&title, "/%s", hms(b3, sizeof(b3), c->limit_s));
	}
	strbuf_addf(&title, "%sstage %zu/%zu", dot, done, total);
	eta = model_stage_eta(m, t->sel_stage, m->done || t->ctl.replay || t->ctl.attached ? m->t :
			      t->now - t->t_open);
	if (eta >= 0)
		strbuf_addf(&title, " ETA %s", hms(b1, sizeof(b1), eta));
	strbuf_addstr(&title, " ");
	put(y, 1, title_w, title.buf, A_BOLD);
	strbuf_release(&title);
	y++;
	/* what an admin last did to the host, and who */
	if (m->control[h] && y <= bottom)
		putf(y++, 1, w, A_BOLD, "%s %s", U(t, "\u00bb", ">"), m->control[h]);
	/* the result, reason and hint take the bottom lines; output fills the rest */
	need = 0;
	if (st > CS_RUNNING && st != CS_NOTHERE) {
		need = 1;
		if (c->reason)
			need += wrapped(-1000, 1, w, 1000, "reason: ", c->reason, A_NORMAL);
		if (c->hint)
			need += wrapped(-1000, 1, w, 1000, "hint: ", c->hint, A_NORMAL);
	}
	nout = bottom - y + 1 - need;
	if (nout < 0)
		nout = 0;
	if (c->out.n && nout) {
		size_t from = c->out.n > (size_t)nout ? c->out.n - (size_t)nout : 0;

		for (size_t i = from; i < c->out.n && y <= bottom; i++)
			put(y++, 1, w, c->out.v[i], A_NORMAL);
	} else if (st == CS_RUNNING || st == CS_PENDING) {
		put(y++, 1, w, st == CS_RUNNING ? "(running, no output yet)" : "(pending)", A_DIM);
	} else if (st == CS_NOTHERE) {
		put(y++, 1, w, "(not here: the stage ran once, on another host)", A_DIM);
	}
	if (st > CS_RUNNING && st != CS_NOTHERE && y <= bottom) {
		int room;

		if (c->nchanges)
			putf(y++, 1, w, state_attr(t, st), "result: %s in %.2fs, %zu change%s%s (c lists them)",
			     sname(t, st), c->dur, c->nchanges, c->nchanges == 1 ? "" : "s",
			     m->dry_run ? ", none made: DRY RUN" : "");
		else
			putf(y++, 1, w, state_attr(t, st), "result: %s in %.2fs", sname(t, st), c->dur);
		/* what does not fit says where the whole text is */
		if (c->reason && y <= bottom) {
			room = bottom - y + 1 - (c->hint ? 1 : 0);
			if (room < 1)
				room = 1;
			need = wrapped(y, 1, w, room, "reason: ", c->reason, A_NORMAL);
			if (need > room) {
				y += room;
				put(y - 1, 1, w, "  ... (F: every failure in full)", A_DIM);
			} else {
				y += need;
			}
		}
		if (c->hint && y <= bottom)
			y += wrapped(y, 1, w, bottom - y + 1, "hint: ", c->hint, A_NORMAL);
	}
}

/* The keys line: as many hints as fit, "? help" and "q quit" always. */
static void draw_hints(struct tui *t, int y)
{
	static const char *const live[] = { "arrows move", "Enter details", "/ filter",
		"f failures", "F why", "p pause", "r retry", "l log", "c changes", NULL };
	static const char *const done[] = { "arrows move", "Enter details", "/ filter",
		"f failures", "F why", "r retry", "l log", "c changes", NULL };
	const char *const *items = t->m.done ? done : live;
	const char *tail = "? help  q quit";
	int room = COLS - (int)strlen(tail), x = 0;
	const char *own[3] = { NULL, NULL, NULL };
	size_t h = t->sel_host, no = 0;

	/* the chosen host's own keys first: what it can take now */
	if (!t->sel_is_group && h < t->m.nh) {
		bool running = false;

		for (size_t s = 0; s < t->m.nst; s++)
			running |= model_cell(&t->m, h, s)->st == CS_RUNNING;
		if (t->ctl.retry_host && model_host_failed(&t->m, h))
			own[no++] = "R retry host";
		if (t->ctl.stop_host && running && !t->m.done)
			own[no++] = "x stop host";
		if (t->ctl.skip_host && !t->m.done)
			own[no++] = "S skip host";
	}
	for (size_t i = 0; i < no; i++) {
		int n = (int)strlen(own[i]) + 2;

		if (x + n > room)
			break;
		x += putf(y, x, n, A_NORMAL, "%s  ", own[i]);
	}

	for (size_t i = 0; items[i]; i++) {
		int n = (int)strlen(items[i]) + 2;

		/* no key for what this view cannot do (a replay, --attach) */
		if ((!t->ctl.pause && !strcmp(items[i], "p pause")) ||
		    (!t->ctl.retry && !strcmp(items[i], "r retry")))
			continue;
		if (x + n > room)
			break;
		x += putf(y, x, n, A_DIM, "%s  ", items[i]);
	}
	put(y, x, COLS - x, tail, A_BOLD);
}

static void draw_status(struct tui *t)
{
	int y = LINES - 1;

	if (t->asking == ASK_STOP) {
		putf(y, 0, COLS, A_BOLD | A_REVERSE, "Stop %s? its running command is killed "
		     "(process group, as on a timeout) and it fails [y/N]",
		     t->m.hosts.v[t->ask_host]);
	} else if (t->asking == ASK_SKIP) {
		putf(y, 0, COLS, A_BOLD | A_REVERSE, "Skip %s? the stages it has not begun are "
		     "skipped [y/N]", t->m.hosts.v[t->ask_host]);
	} else if (t->asking_quit) {
		putf(y, 0, COLS, A_BOLD | A_REVERSE, "Stop the run? %s [y/N]",
		     t->ctl.stop_what ? t->ctl.stop_what : "");
	} else if (t->editing_filter) {
		putf(y, 0, COLS, A_BOLD, "/%s", t->filter.buf ? t->filter.buf : "");
		curs_set(1);
		return;
	} else if (t->paging && t->pager_searching) {
		putf(y, 0, COLS, A_BOLD, "/%s", t->pager_search.buf ? t->pager_search.buf : "");
		curs_set(1);
		return;
	} else if (t->msg[0] && t->now < t->msg_until) {
		put(y, 0, COLS, t->msg, A_BOLD);
	} else if (t->paging) {
		put(y, 0, COLS, "arrows/PgUp/PgDn/g/G scroll  / search  n N next/previous  "
		    "q or Esc back", A_DIM);
	} else {
		draw_hints(t, y);
	}
	curs_set(0);
}

static void draw_help(struct tui *t)
{
	static const char *const lines[] = {
		"Keys",
		"  Up/Down j/k PgUp/PgDn       choose a host (or a folded group)",
		"  Home/End g/G                the first / the last row",
		"  Left/Right h                choose a stage",
		"  Enter                       open a folded group, or the details",
		"  Esc                         back: close the details, a list, the log",
		"  /                           filter: a node set (dgx[01-04]) or text",
		"  f                           failures only",
		"  F                           every failure: reason in full and hint",
		"  c                           what changed (or would: a dry run), by stage",
		"  p                           pause: no new work starts",
		"  r                           retry the failed hosts of the stage",
		"  R                           retry this host now (and the cluster-wide stages it missed)",
		"  S                           skip this host's stages not begun (asks)",
		"  x F9 ^K                     stop this host: kill its running command (asks)",
		"  l                           the host's log (follows it; / n N search)",
		"  ^L                          draw the screen again",
		"  q                           quit (asks while work is running)",
		"",
		"States",
		NULL,
	};
	int h = 23, w = 76, y0, x0, y;

	if (w > COLS)
		w = COLS;
	if (h > LINES)
		h = LINES;
	y0 = (LINES - h) / 2;
	x0 = (COLS - w) / 2;
	for (int i = 0; i < h; i++)
		mvhline(y0 + i, x0, ' ', w);
	y = y0;
	putf(y++, x0 + 1, w - 2, A_BOLD | A_REVERSE, "bringup tui: help%s (any key closes)",
	     t->m.dry_run ? " [DRY RUN]" : "");
	for (size_t i = 0; lines[i] && y < y0 + h; i++)
		put(y++, x0 + 1, w - 2, lines[i], i == 0 || !strcmp(lines[i], "States") ?
		    A_BOLD : A_NORMAL);
	for (int s = CS_PENDING, x = x0 + 3; s < CS__COUNT && y < y0 + h; s++) {
		int n = (int)strlen(sname(t, (enum cstate)s)) + 4;

		if (x + n > x0 + w - 1)
			x = x0 + 3, y++;
		if (y >= y0 + h)
			break;
		put_glyph(t, y, x, (enum cstate)s, false);
		x += 2;
		x += put(y, x, 14, sname(t, (enum cstate)s), A_NORMAL) + 2;
	}
}

int view_line_rows(const char *s, int cols)
{
	mbstate_t ps = { 0 };
	size_t len = strlen(s);
	int w = 0;
	wchar_t wc;

	if (cols < 1)
		return 1;
	while (len)
		w += next_char(&s, &len, &ps, &wc);
	return w ? (w + cols - 1) / cols : 1;
}

/* One logical line from y, wrapped at the screen's width; returns the lines used. */
static int pager_line(int y, int ymax, const char *s, attr_t a)
{
	mbstate_t ps = { 0 };
	size_t len = strlen(s);
	int x = 0, n = 1;

	move(y, 0);
	attr_set(a, PAIR_NUMBER(a), NULL);
	while (len && y < ymax) {
		wchar_t wc;
		int w = next_char(&s, &len, &ps, &wc);

		if (x + w > COLS) {
			if (++y >= ymax)
				break;
			n++;
			x = 0;
			move(y, 0);
		}
		addnwstr(&wc, 1);
		x += w;
	}
	attr_set(A_NORMAL, 0, NULL);
	return n;
}

static void draw_pager(struct tui *t)
{
	int h = LINES - 2, y = 1;
	size_t last = t->pager_top;

	putf(0, 0, COLS, A_BOLD | A_REVERSE, "%s%s  (%zu lines%s)", t->m.dry_run ? "[DRY RUN] " : "",
	     t->pager_title ? t->pager_title : "log", t->pager.n,
	     t->pager_path && t->pager_follow ? ", following" : "");
	for (size_t i = t->pager_top; i < t->pager.n && y < 1 + h; i++) {
		bool hit = t->pager_search.len && strstr(t->pager.v[i], t->pager_search.buf);

		y += pager_line(y, 1 + h, t->pager.v[i], hit ? A_REVERSE : A_NORMAL);
		last = i;
	}
	if (!t->pager.n)
		put(1, 0, COLS, "(empty)", A_DIM);
	else
		putf(0, COLS - 16 > 0 ? COLS - 16 : 0, 16, A_BOLD | A_REVERSE, " %zu-%zu/%zu ",
		     t->pager_top + 1, last + 1, t->pager.n);
}

/* The rows' top so that the chosen row shows and no row is hidden needlessly. */
static void clamp_top(struct tui *t, size_t rows_h)
{
	if (!rows_h)
		rows_h = 1;
	/* no empty lines below while rows hide above (after a resize, zoom or fold) */
	if (t->nrows <= rows_h)
		t->top = 0;
	else if (t->top > t->nrows - rows_h)
		t->top = t->nrows - rows_h;
	if (t->sel_row < t->top)
		t->top = t->sel_row;
	if (t->sel_row >= t->top + rows_h)
		t->top = t->sel_row - rows_h + 1;
}

/*
 * Keeps the selection on the same host as rows come and go: its own row,
 * else the folded group that holds it now (the group is chosen, the host
 * stays the one the detail pane shows).
 */
static void follow_selection(struct tui *t, const struct mrow *rows, const struct layout *l)
{
	bool found = false;
	char *sig = NULL;

	t->rows = (struct mrow *)rows;
	/* a chosen group: the same group, by its signature */
	for (size_t i = 0; i < t->nrows && !found && t->sel_is_group && t->sel_sig; i++)
		if (rows[i].n > 1 && rows[i].sig && !strcmp(rows[i].sig, t->sel_sig) &&
		    rows[i].host == t->sel_host)
			t->sel_row = i, found = true;
	/* the host's own row */
	for (size_t i = 0; i < t->nrows && !found; i++)
		if (rows[i].host == t->sel_host && rows[i].n == 1)
			t->sel_row = i, found = true;
	if (found) {
		view_select_row(t, t->sel_row);
	} else if (t->sel_host < t->m.nh) {
		/* the group the host folded into */
		sig = model_signature(&t->m, t->sel_host);
		for (size_t i = 0; i < t->nrows && !found; i++)
			if (rows[i].n > 1 && rows[i].sig && !strcmp(rows[i].sig, sig) && !rows[i].expanded) {
				t->sel_row = i, found = true;
				t->sel_is_group = true;
				free(t->sel_sig);
				t->sel_sig = xstrdup(sig);
			}
		free(sig);
	}
	if (!found) {
		if (t->sel_row >= t->nrows)
			t->sel_row = t->nrows ? t->nrows - 1 : 0;
		if (t->nrows)
			view_select_row(t, t->sel_row);
	}
	clamp_top(t, (size_t)l->rows_h);
	if (t->sel_stage >= t->m.nst)
		t->sel_stage = t->m.nst ? t->m.nst - 1 : 0;
	if (t->sel_stage < t->stage_off)
		t->stage_off = t->sel_stage;
	if (t->sel_stage >= t->stage_off + l->nvis)
		t->stage_off = t->sel_stage - l->nvis + 1;
	/* no stage column left empty when the screen widened */
	if (t->m.nst > l->nvis && t->stage_off > t->m.nst - l->nvis)
		t->stage_off = t->m.nst - l->nvis;
	if (t->m.nst <= l->nvis)
		t->stage_off = 0;
}

void view_draw(struct tui *t, double now)
{
	struct view_opts vo = { t->filter.len ? t->filter.buf : NULL, t->failures_only, 0,
				&t->expanded };
	struct layout l;
	struct mrow *rows;

	t->now = now;
	erase();
	if (t->paging) {
		draw_pager(t);
		draw_status(t);
		if (t->help)
			draw_help(t);
		return;
	}
	/* fold when the hosts do not fit the rows (a first layout, unzoomed, tells how
	 * many fit: zooming the details must not fold the matrix) */
	plan_layout(t, &l, NULL, 0, false);
	vo.fold_over = (size_t)(l.rows_h > 0 ? l.rows_h : 1);
	if (t->rows_stale || t->rows_gen != t->m.generation || t->rows_fold != vo.fold_over) {
		model_rows_free(t->rows, t->nrows);
		t->rows = NULL;
		t->nrows = model_rows(&t->m, &vo, &rows);
		t->rows_stale = false;
		t->rows_gen = t->m.generation;
		t->rows_fold = vo.fold_over;
	} else {
		rows = t->rows;
	}
	plan_layout(t, &l, rows, t->nrows, t->zoom);
	t->page = (size_t)l.rows_h;
	follow_selection(t, rows, &l);
	draw_header(t);
	draw_matrix_head(t, &l);
	draw_rows(t, &l, rows);
	draw_detail(t, &l, rows);
	draw_status(t);
	if (t->help)
		draw_help(t);
	t->rows = rows;
}

void view_select_row(struct tui *t, size_t r)
{
	if (!t->nrows)
		return;
	if (r >= t->nrows)
		r = t->nrows - 1;
	t->sel_row = r;
	t->sel_host = t->rows[r].host;
	t->sel_is_group = t->rows[r].n > 1;
	free(t->sel_sig);
	t->sel_sig = t->rows[r].sig ? xstrdup(t->rows[r].sig) : NULL;
}

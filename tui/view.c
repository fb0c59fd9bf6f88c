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
	[CS_UNREACHABLE] = L"\u2298",
};
static const wchar_t *const glyph_ascii[CS__COUNT] = {
	[CS_NONE] = L" ", [CS_PENDING] = L".", [CS_OK] = L"o", [CS_CHANGED] = L"+",
	[CS_FAILED] = L"X", [CS_SKIPPED] = L">", [CS_UNREACHABLE] = L"?",
};
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

	if (s == CS_PENDING || s == CS_SKIPPED || s == CS_NONE)
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
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, len, &ps);
		int w;

		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			wc = L'?';
			k = 1;
			memset(&ps, 0, sizeof(ps));
		}
		if (wc == L'\t')
			wc = L' ';
		if (wc < 32 || wc == 127)
			wc = L'?';
		w = wcwidth(wc);
		if (w < 0)
			wc = L'?', w = 1;
		if (used + w > width)
			break;
		addnwstr(&wc, 1);
		used += w;
		s += k;
		len -= k;
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

	if (t->ctl.replay || t->m.done)
		return t->m.t;
	return live > t->m.t ? live : t->m.t;
}

static void draw_header(struct tui *t)
{
	const struct model *m = &t->m;
	int e = (int)elapsed(t), x, header_end;
	static const enum cstate order[] = { CS_OK, CS_CHANGED, CS_FAILED, CS_UNREACHABLE,
					     CS_SKIPPED, CS_RUNNING, CS_PENDING };

	x = putf(0, 0, COLS, A_BOLD, "bringup%s", t->ctl.replay ? " replay" : "");
	x += putf(0, x, COLS - x, A_NORMAL, " %s  %s  %02d:%02d:%02d",
		  m->cluster, m->playbook, e / 3600, e / 60 % 60, e % 60);
	if (t->paused)
		x += put(0, x, COLS - x, "  [PAUSED]", A_BOLD | A_REVERSE);
	if (m->done)
		x += put(0, x, COLS - x, m->interrupted ? "  [INTERRUPTED]" : "  [DONE]", A_BOLD);
	else if (t->stop_asked || t->interrupted)
		x += put(0, x, COLS - x, "  [STOPPING]", A_BOLD);
	header_end = x;
	x = 0;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		enum cstate s = order[i];

		x += put(1, x, COLS - x, i ? " " : "", A_NORMAL);
		put_glyph(t, 1, x, s, false);
		x += 1;
		x += putf(1, x, COLS - x, s == CS_FAILED && m->count[s] ? state_attr(t, s) : A_NORMAL,
			  "%s %zu", cstate_name(s), m->count[s]);
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

static void plan_layout(struct tui *t, struct layout *l, const struct mrow *rows, size_t nrows)
{
	size_t longest = 4;
	int avail;

	for (size_t i = 0; i < nrows; i++) {
		size_t n = strlen(rows[i].label) + (rows[i].n > 1 ? 8 : 0);

		if (n > longest)
			longest = n;
	}
	l->hw = (int)(longest > 30 ? 30 : longest) + 3;
	if (l->hw > COLS / 2)
		l->hw = COLS / 2;
	avail = COLS - l->hw;
	l->cw = t->m.nst ? avail / (int)t->m.nst : avail;
	if (l->cw > 12)
		l->cw = 12;
	if (l->cw < 4)
		l->cw = 4;
	l->nvis = (size_t)(avail / l->cw);
	if (l->nvis < 1)
		l->nvis = 1;
	l->detail_h = t->zoom ? LINES - 7 : (LINES - 5) / 3;
	if (!t->zoom && l->detail_h > 14)
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

	put(2, 0, l->hw, t->stage_off ? "HOST  \u2190" : "HOST", A_BOLD);
	for (size_t v = 0; v < l->nvis && t->stage_off + v < m->nst; v++) {
		size_t s = t->stage_off + v;
		int x = l->hw + (int)v * l->cw, w = l->cw - 1, filled;
		size_t total = m->nh - m->stage_count[s * CS__COUNT + CS_NONE];
		size_t fin = total - m->stage_count[s * CS__COUNT + CS_PENDING] -
			     m->stage_count[s * CS__COUNT + CS_RUNNING];

		put(2, x, w, m->stages.v[s], A_BOLD | (s == t->sel_stage ? A_UNDERLINE : 0));
		filled = total ? (int)(fin * (size_t)w / total) : 0;
		for (int i = 0; i < w; i++) {
			attr_t a = i < filled ? (t->colour ? COLOR_PAIR(P_BAR) : A_NORMAL) : A_DIM;

			attr_set(a, PAIR_NUMBER(a), NULL);
			mvaddwstr(3, x + i, i < filled ? (t->utf8 ? L"\u2588" : L"#") :
				  (t->utf8 ? L"\u2591" : L"."));
		}
		attr_set(A_NORMAL, 0, NULL);
	}
	if (t->stage_off + l->nvis < m->nst)
		put(2, COLS - 1, 1, "\u2192", A_BOLD);
}

static void draw_rows(struct tui *t, const struct layout *l, const struct mrow *rows)
{
	const struct model *m = &t->m;

	for (int i = 0; i < l->rows_h && t->top + (size_t)i < t->nrows; i++) {
		size_t r = t->top + (size_t)i;
		const struct mrow *row = &rows[r];
		int y = l->rows_y + i;
		bool sel = r == t->sel_row;
		const char *mark = row->n > 1 ? (row->expanded ? "\u25be " : "\u25b8 ") :
				   row->member ? "  " : "";

		if (row->n > 1)
			putf(y, 0, l->hw - 1, sel ? A_BOLD : A_NORMAL, "%s%s (%zu)", mark,
			     row->label, row->n);
		else
			putf(y, 0, l->hw - 1, sel ? A_BOLD : A_NORMAL, "%s%s", mark, row->label);
		for (size_t v = 0; v < l->nvis && t->stage_off + v < m->nst; v++) {
			size_t s = t->stage_off + v;
			enum cstate st = model_cell(m, row->host, s)->st;

			put_glyph(t, y, l->hw + (int)v * l->cw + (l->cw - 1) / 2, st,
				  sel && s == t->sel_stage);
		}
	}
	if (!t->nrows)
		put(l->rows_y, 0, COLS, t->failures_only ? "(no host has failed)" :
		    "(no host matches the filter)", A_DIM);
}

/* Wraps s into at most maxl lines of width w from line y; returns lines used. */
static int wrapped(int y, int x, int w, int maxl, const char *prefix, const char *s, attr_t a)
{
	char *text = xasprintf("%s%s", prefix, s);
	size_t len = strlen(text), off = 0;
	int n = 0;

	while (off < len && n < maxl) {
		size_t take = len - off < (size_t)w ? len - off : (size_t)w;

		/* break at a space when one is near the end */
		if (off + take < len)
			for (size_t k = take; k > take / 2; k--)
				if (text[off + k] == ' ') {
					take = k;
					break;
				}
		char save = text[off + take];

		text[off + take] = '\0';
		put(y + n, x, w, text + off, a);
		text[off + take] = save;
		off += take;
		while (off < len && text[off] == ' ')
			off++;
		n++;
	}
	free(text);
	return n;
}

static void draw_detail(struct tui *t, const struct layout *l, const struct mrow *rows)
{
	const struct model *m = &t->m;
	const struct mrow *row;
	const struct mcell *c;
	int y = l->detail_y, bottom = l->detail_y + l->detail_h - 1, tail, nout;
	enum cstate st;

	mvhline(y, 0, t->utf8 ? 0 : '-', COLS);
	if (!t->nrows || t->sel_stage >= m->nst)
		return;
	row = &rows[t->sel_row];
	c = model_cell(m, row->host, t->sel_stage);
	st = c->st;
	if (row->n > 1)
		putf(y, 1, COLS - 2, A_BOLD, " %s (%zu hosts, showing %s) \u00b7 %s \u00b7 %s ",
		     row->label, row->n, m->hosts.v[row->host], m->stages.v[t->sel_stage],
		     cstate_name(st));
	else
		putf(y, 1, COLS - 2, A_BOLD, " %s \u00b7 %s \u00b7 %s ", row->label,
		     m->stages.v[t->sel_stage], cstate_name(st));
	y++;
	/* the result, reason and hint take the bottom lines; output fills the rest */
	tail = st > CS_RUNNING ? 1 + (c->reason ? 2 : 0) + (c->hint ? 2 : 0) : 0;
	nout = bottom - y + 1 - tail;
	if (nout < 1)
		nout = 1;
	if (c->out.n) {
		size_t from = c->out.n > (size_t)nout ? c->out.n - (size_t)nout : 0;

		for (size_t i = from; i < c->out.n && y <= bottom; i++)
			put(y++, 1, COLS - 2, c->out.v[i], A_NORMAL);
	} else if (st == CS_RUNNING || st == CS_PENDING) {
		put(y++, 1, COLS - 2, st == CS_RUNNING ? "(running, no output yet)" :
		    "(pending)", A_DIM);
	}
	if (st > CS_RUNNING && y <= bottom) {
		if (c->nchanges)
			putf(y++, 1, COLS - 2, state_attr(t, st), "result: %s in %.2fs, %zu change%s",
			     cstate_name(st), c->dur, c->nchanges, c->nchanges == 1 ? "" : "s");
		else
			putf(y++, 1, COLS - 2, state_attr(t, st), "result: %s in %.2fs",
			     cstate_name(st), c->dur);
		if (c->reason && y <= bottom)
			y += wrapped(y, 1, COLS - 2, bottom - y + 1 < 2 ? bottom - y + 1 : 2,
				     "reason: ", c->reason, A_NORMAL);
		if (c->hint && y <= bottom)
			wrapped(y, 1, COLS - 2, bottom - y + 1 < 2 ? bottom - y + 1 : 2, "hint: ",
				c->hint, A_NORMAL);
	}
}

static void draw_status(struct tui *t)
{
	int y = LINES - 1;

	if (t->asking_quit) {
		putf(y, 0, COLS, A_BOLD | A_REVERSE, "Stop the run? %s [y/N]",
		     t->ctl.stop_what ? t->ctl.stop_what : "");
	} else if (t->editing_filter) {
		putf(y, 0, COLS, A_BOLD, "/%s", t->filter.buf ? t->filter.buf : "");
		curs_set(1);
		return;
	} else if (t->msg[0] && t->now < t->msg_until) {
		put(y, 0, COLS, t->msg, A_BOLD);
	} else {
		put(y, 0, COLS, t->m.done ? "arrows move  Enter details  / filter  f failures  "
		    "r retry  l log  ? help  q quit" :
		    "arrows move  Enter details  / filter  f failures  p pause  r retry  l log  "
		    "? help  q quit", A_DIM);
	}
	curs_set(0);
}

static void draw_help(struct tui *t)
{
	static const char *const lines[] = {
		"Keys",
		"  Up/Down PgUp/PgDn Home/End  choose a host (or a folded group)",
		"  Left/Right                  choose a stage",
		"  Enter                       open a folded group, or the details",
		"  /                           filter: a node set (dgx[01-04]) or text",
		"  f                           failures only",
		"  p                           pause: no new work starts",
		"  r                           retry the failed hosts of the stage",
		"  l                           the host's log, in a pager",
		"  q                           quit (asks while work is running)",
		"",
		"States",
		NULL,
	};
	int h = 16, w = 76, y0, x0, y;

	if (w > COLS)
		w = COLS;
	if (h > LINES)
		h = LINES;
	y0 = (LINES - h) / 2;
	x0 = (COLS - w) / 2;
	for (int i = 0; i < h; i++)
		mvhline(y0 + i, x0, ' ', w);
	y = y0;
	put(y++, x0 + 1, w - 2, "bringup tui: help (any key closes)", A_BOLD | A_REVERSE);
	for (size_t i = 0; lines[i] && y < y0 + h; i++)
		put(y++, x0 + 1, w - 2, lines[i], i == 0 || !strcmp(lines[i], "States") ?
		    A_BOLD : A_NORMAL);
	if (y < y0 + h) {
		int x = x0 + 3;

		for (int s = CS_PENDING; s < CS__COUNT && x < x0 + w - 12; s++) {
			put_glyph(t, y, x, (enum cstate)s, false);
			x += 2;
			x += put(y, x, 14, cstate_name((enum cstate)s), A_NORMAL) + 2;
		}
	}
}

static void draw_pager(struct tui *t)
{
	int h = LINES - 2;

	putf(0, 0, COLS, A_BOLD | A_REVERSE, "%s  (%zu lines; arrows/PgUp/PgDn/Home/End, "
	     "q closes)", t->pager_title ? t->pager_title : "log", t->pager.n);
	for (int i = 0; i < h && t->pager_top + (size_t)i < t->pager.n; i++)
		put(1 + i, 0, COLS, t->pager.v[t->pager_top + (size_t)i], A_NORMAL);
	if (!t->pager.n)
		put(1, 0, COLS, "(empty)", A_DIM);
}

/* Keeps the selection on the same host as rows come and go. */
static void follow_selection(struct tui *t, const struct mrow *rows, const struct layout *l)
{
	bool found = false;

	for (size_t i = 0; i < t->nrows && !found; i++)
		if (rows[i].host == t->sel_host && (rows[i].n > 1) == t->sel_is_group &&
		    (!t->sel_is_group || !t->sel_sig || !strcmp(rows[i].sig, t->sel_sig)))
			t->sel_row = i, found = true;
	for (size_t i = 0; i < t->nrows && !found; i++)
		if (rows[i].host == t->sel_host)
			t->sel_row = i, found = true;
	if (t->sel_row >= t->nrows)
		t->sel_row = t->nrows ? t->nrows - 1 : 0;
	if (t->nrows) {
		t->rows = (struct mrow *)rows;
		view_select_row(t, t->sel_row);
	}
	if (t->sel_row < t->top)
		t->top = t->sel_row;
	if (t->sel_row >= t->top + (size_t)l->rows_h)
		t->top = t->sel_row - (size_t)l->rows_h + 1;
	if (t->sel_stage >= t->m.nst)
		t->sel_stage = t->m.nst ? t->m.nst - 1 : 0;
	if (t->sel_stage < t->stage_off)
		t->stage_off = t->sel_stage;
	if (t->sel_stage >= t->stage_off + l->nvis)
		t->stage_off = t->sel_stage - l->nvis + 1;
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
		return;
	}
	/* fold when the hosts do not fit the rows (a first layout tells how many fit) */
	plan_layout(t, &l, NULL, 0);
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
	plan_layout(t, &l, rows, t->nrows);
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

/*
 * The TUI's thread: terminal set-up and restore, keys, the frame clock,
 * and the hand-over of events from the run (see tui.h for the rules).
 */
#include "tui-int.h"
#include "../engine/base/xalloc.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* At most this often a frame; events in between only change the model. */
#define FRAME_MS 40
/* The pager reads at most the last this many bytes of a log. */
#define PAGER_MAX_BYTES (4u << 20)

double tui_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- giving the terminal back, from anywhere ---- */

/* What a signal handler needs to restore the terminal without ncurses. */
static struct termios saved_tio;
static char restore_seq[256];
static size_t restore_len;
static volatile sig_atomic_t curses_on;
static int wake_fd = -1;
static volatile sig_atomic_t resized, suspend_asked, continued;

static void restore_raw(void)
{
	ssize_t n;

	if (!curses_on)
		return;
	curses_on = 0;
	n = write(STDOUT_FILENO, restore_seq, restore_len);
	(void)n;
	tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
}

void tui_restore_terminal(void)
{
	restore_raw();
}

static void on_crash(int sig)
{
	restore_raw();
	signal(sig, SIG_DFL);
	raise(sig);
}


/* From a signal handler: a byte on the pipe wakes the TUI thread. */
static void wake_thread(char c)
{
	ssize_t n;

	if (wake_fd >= 0) {
		n = write(wake_fd, &c, 1);
		(void)n;
	}
}

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
	wake_thread('w');
}

/* ^Z: the TUI thread gives the terminal back, then stops the process (tui_main). */
static void on_tstp(int sig)
{
	(void)sig;
	suspend_asked = 1;
	wake_thread('z');
}

/* fg (or any SIGCONT): the screen is someone else's now; draw it all again. */
static void on_cont(int sig)
{
	(void)sig;
	continued = 1;
	wake_thread('c');
}

/*
 * Leaves curses as endwin does, stops the whole process as the shell's ^Z
 * would, and takes the terminal again once continued (fg).
 */
static void suspend_self(void)
{
	struct sigaction sa = { 0 }, old;

	endwin();
	curses_on = 0;
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTSTP, &sa, &old);
	kill(getpid(), SIGTSTP);
	/* here again after fg */
	sigaction(SIGTSTP, &old, NULL);
	curses_on = 1;
	reset_prog_mode();
	clearok(curscr, TRUE);
	refresh();
}

bool tui_term_ok(void)
{
	const char *term = getenv("TERM");
	int e = 0;
	char *cup;
	TERMINAL *save = cur_term, *mine;

	if (!term || !*term || !strcmp(term, "dumb"))
		return false;
	if (setupterm(NULL, STDOUT_FILENO, &e) != OK)
		return false;
	mine = cur_term;
	cup = tigetstr("cup");
	del_curterm(mine);
	set_curterm(save);
	return cup && cup != (char *)-1;
}

static void add_seq(const char *cap)
{
	char *s = tigetstr((char *)cap);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (restore_len + n < sizeof(restore_seq)) {
		memcpy(restore_seq + restore_len, s, n);
		restore_len += n;
	}
}

static void crash_handlers(void (*fn)(int))
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], fn);
}

/* ---- the pager ---- */

static size_t pager_height(void)
{
	return LINES > 3 ? (size_t)LINES - 2 : 1;
}

/* The top line that shows the end of the text (lines wrap at the screen's width). */
static size_t pager_max_top(const struct tui *t)
{
	size_t h = pager_height(), used = 0, i = t->pager.n;

	while (i > 0) {
		size_t r = (size_t)view_line_rows(t->pager.v[i - 1], COLS);

		if (used + r > h)
			break;
		used += r;
		i--;
	}
	return i < t->pager.n ? i : (t->pager.n ? t->pager.n - 1 : 0);
}

/*
 * In a replay, a log record ("=== STAMP STAGE HOST") of a stage that had
 * not started on the host at the replay's moment ends what the pager shows:
 * the log as it was then.
 */
static bool record_in_future(const struct tui *t, size_t host, const char *line)
{
	char stage[128];
	int i;

	if (!t->ctl.replay || strncmp(line, "=== ", 4) ||
	    sscanf(line, "=== %*s %127s", stage) != 1)
		return false;
	i = strlist_index(&t->m.stages, stage);
	if (i < 0)
		return false;
	return model_cell(&t->m, host, (size_t)i)->st <= CS_PENDING;
}

/* Reads what the log gained since the last read; returns true when lines came. */
static bool pager_read(struct tui *t)
{
	FILE *f;
	char chunk[65536];
	size_t got, before = t->pager.n;
	long h = model_host(&t->m, t->pager_host), base;
	bool stop = false;

	/* a replay stopped at a record of the future tries again as it moves on */
	t->pager_done = false;
	if (!t->pager_path || !(f = fopen(t->pager_path, "r")))
		return false;
	if (!t->pager_off && fseek(f, 0, SEEK_END) == 0 && ftell(f) > (long)PAGER_MAX_BYTES)
		t->pager_off = ftell(f) - (long)PAGER_MAX_BYTES;
	if (fseek(f, t->pager_off, SEEK_SET) == 0) {
		while (!stop && (got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
			base = t->pager_off;
			t->pager_off += (long)got;
			for (size_t i = 0; i < got && !stop; i++) {
				if (chunk[i] != '\n') {
					strbuf_add(&t->pager_part, &chunk[i], 1);
					continue;
				}
				if (h >= 0 && record_in_future(t, (size_t)h, t->pager_part.buf)) {
					/* read it again from its first byte next time */
					t->pager_off = base + (long)i - (long)t->pager_part.len;
					strbuf_reset(&t->pager_part);
					t->pager_done = true;
					stop = true;
					break;
				}
				strlist_push(&t->pager, t->pager_part.buf);
				strbuf_reset(&t->pager_part);
			}
		}
	}
	fclose(f);
	return t->pager.n != before;
}

static void pager_close(struct tui *t)
{
	t->paging = false;
	t->pager_searching = false;
	strlist_clear(&t->pager);
	free(t->pager_path);
	t->pager_path = NULL;
	strbuf_reset(&t->pager_part);
}

static void pager_show(struct tui *t, char *title)
{
	free(t->pager_title);
	t->pager_title = title;
	t->paging = true;
	t->pager_follow = true;
	t->pager_top = pager_max_top(t);
}

/* l: the chosen host's log, from the end; it follows the file while at the end. */
static void pager_open(struct tui *t)
{
	const struct model *m = &t->m;
	const char *host = t->sel_host < m->nh ? m->hosts.v[t->sel_host] : "?";
	char *path = m->run_dir ? xasprintf("%s/hosts/%s.log", m->run_dir, host) : NULL;

	pager_close(t);
	free(t->pager_host);
	t->pager_host = xstrdup(host);
	t->pager_off = 0;
	t->pager_done = false;
	if (path && access(path, R_OK) == 0) {
		t->pager_path = path;
		pager_read(t);
		path = NULL;
	} else {
		strlist_push_owned(&t->pager, xasprintf("no log for %s: %s", host,
							path ? strerror(errno) : "replay without a run directory"));
	}
	pager_show(t, xasprintf("%s log: %s%s", host, t->pager_path ? t->pager_path :
				"(no run directory)", t->ctl.replay ? " (as it was then)" : ""));
	free(path);
}

/* F: every failed or unreachable cell, the reason with its line breaks, and the hint. */
static void failures_open(struct tui *t)
{
	const struct model *m = &t->m;
	size_t n = 0;

	pager_close(t);
	for (size_t s = 0; s < m->nst; s++)
		for (size_t h = 0; h < m->nh; h++) {
			const struct mcell *c = model_cell(m, h, s);
			const char *r, *nl;

			if (c->st != CS_FAILED && c->st != CS_UNREACHABLE)
				continue;
			n++;
			strlist_push_owned(&t->pager, xasprintf("%s %s: %s", m->stages.v[s],
								 m->hosts.v[h], cstate_name(c->st)));
			for (r = c->reason; r && *r; r = nl ? nl + 1 : r + strlen(r)) {
				nl = strchr(r, '\n');
				strlist_push_owned(&t->pager, xasprintf("  %s%.*s",
									r == c->reason ? "reason: " : "        ",
									(int)(nl ? nl - r : (long)strlen(r)), r));
			}
			if (c->hint)
				strlist_push_owned(&t->pager, xasprintf("  hint: %s", c->hint));
			strlist_push(&t->pager, "");
		}
	if (!n)
		strlist_push(&t->pager, "(no host has failed)");
	pager_show(t, xasprintf("failures: %zu", n));
	t->pager_top = 0;
}

/* c: what changed (a dry run: what would change), by stage and host. */
static void changes_open(struct tui *t)
{
	const struct model *m = &t->m;
	size_t n = 0;

	pager_close(t);
	for (size_t s = 0; s < m->nst; s++) {
		size_t hosts = 0;

		for (size_t h = 0; h < m->nh; h++)
			hosts += model_cell(m, h, s)->st == CS_CHANGED;
		if (!hosts)
			continue;
		strlist_push_owned(&t->pager, xasprintf("%s: %zu host%s %s", m->stages.v[s], hosts,
							 hosts == 1 ? "" : "s",
							 m->dry_run ? "would change" : "changed"));
		for (size_t h = 0; h < m->nh; h++) {
			const struct mcell *c = model_cell(m, h, s);

			if (c->st != CS_CHANGED)
				continue;
			n++;
			if (!c->changes.n)
				strlist_push_owned(&t->pager, xasprintf("  %s", m->hosts.v[h]));
			for (size_t i = 0; i < c->changes.n; i++)
				strlist_push_owned(&t->pager, xasprintf("  %s: %s", m->hosts.v[h],
									 c->changes.v[i]));
		}
	}
	if (!n)
		strlist_push(&t->pager, m->dry_run ? "(nothing would change)" : "(nothing changed)");
	pager_show(t, xasprintf("%s", m->dry_run ? "DRY RUN: what would change (nothing was changed)" :
				"what changed"));
	t->pager_top = 0;
}

/* n / N: the next (previous) line holding the search text. */
static void pager_find(struct tui *t, bool back)
{
	size_t n = t->pager.n;

	if (!t->pager_search.len || !n)
		return;
	for (size_t k = 1; k <= n; k++) {
		size_t i = back ? (t->pager_top + n - k) % n : (t->pager_top + k) % n;

		if (strstr(t->pager.v[i], t->pager_search.buf)) {
			t->pager_top = i;
			t->pager_follow = false;
			return;
		}
	}
	snprintf(t->msg, sizeof(t->msg), "not found: %s", t->pager_search.buf);
	t->msg_until = tui_now() + 3;
}

static void pager_key(struct tui *t, int key, bool is_char)
{
	size_t h = pager_height(), max = pager_max_top(t);

	if (t->pager_searching) {
		if (key == 27) {
			t->pager_searching = false;
			strbuf_reset(&t->pager_search);
		} else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
			t->pager_searching = false;
			t->pager_top = t->pager_top ? t->pager_top - 1 : t->pager.n ? t->pager.n - 1 : 0;
			pager_find(t, false);
		} else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
			if (t->pager_search.len)
				strbuf_setlen(&t->pager_search, t->pager_search.len - 1);
		} else if (is_char && key >= 32 && key != 127) {
			char c[8];
			int n = wctomb(c, (wchar_t)key);

			if (n > 0)
				strbuf_add(&t->pager_search, c, (size_t)n);
		}
		return;
	}
	switch (key) {
	case KEY_UP: case 'k': if (t->pager_top) t->pager_top--; break;
	case KEY_DOWN: case 'j': if (t->pager_top < max) t->pager_top++; break;
	case KEY_PPAGE: case 'b': t->pager_top = t->pager_top > h ? t->pager_top - h : 0; break;
	case KEY_NPAGE: case ' ': t->pager_top = t->pager_top + h < max ? t->pager_top + h : max; break;
	case KEY_HOME: case 'g': t->pager_top = 0; break;
	case KEY_END: case 'G': t->pager_top = max; break;
	case '/': t->pager_searching = true; strbuf_reset(&t->pager_search); break;
	/* a match stays at the top, even in the last screenful: following
	 * would snap it back to the end at the next frame */
	case 'n': pager_find(t, false); return;
	case 'N': pager_find(t, true); return;
	case '?': t->help = true; break;
	case 'q': case 27: case 'l': case 'F': case 'c': pager_close(t); break;
	}
	t->pager_follow = t->pager_top >= max;
}

/* Each frame while a log is open: what it gained, and the end kept in sight. */
static void pager_tick(struct tui *t)
{
	if (!t->paging || !t->pager_path)
		return;
	if (pager_read(t) && t->pager_follow)
		t->pager_top = pager_max_top(t);
}

/* ---- keys ---- */

static void say(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct tui *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
	t->msg_until = tui_now() + 4;
}

static bool work_running(const struct tui *t)
{
	return !t->m.done;
}

/* q: asks when work is running, then stops it as SIGINT does. Returns true to leave now. */
static bool quit_key(struct tui *t)
{
	if (!work_running(t) || !t->ctl.stop)
		return true;
	t->asking_quit = true;
	return false;
}

/* ---- one host: R retry now, S skip, x stop ---- */

/* The chosen host for a control key, or -1 after saying why there is none. */
static long control_host(struct tui *t, const char *what, bool can)
{
	const struct model *m = &t->m;

	if (!can) {
		say(t, "%s: not in this view (a replay, --attach, precheck or validate)", what);
		return -1;
	}
	if (t->sel_is_group || t->sel_host >= m->nh) {
		say(t, "%s: choose one host (Enter opens a folded group)", what);
		return -1;
	}
	/* the admin host's row: a local stage is the stage's to retry (r) */
	if (t->sel_host + 1 == m->nh && !strcmp(m->hosts.v[t->sel_host], "localhost")) {
		say(t, "%s: not for the admin host's row (r retries a stage)", what);
		return -1;
	}
	return (long)t->sel_host;
}

static bool host_has(const struct model *m, size_t h, enum cstate st)
{
	for (size_t s = 0; s < m->nst; s++)
		if (model_cell(m, h, s)->st == st)
			return true;
	return false;
}

static void retry_host_key(struct tui *t)
{
	long h = control_host(t, "retry", t->ctl.retry_host != NULL);
	const char *name;

	if (h < 0)
		return;
	name = t->m.hosts.v[h];
	if (!model_host_failed(&t->m, (size_t)h)) {
		say(t, "retry: %s has not failed", name);
		return;
	}
	if (t->stop_asked) {
		say(t, "retry: the run is stopping");
		return;
	}
	t->ctl.retry_host(t->ctl.arg, (size_t)h, t->ctl.who);
	/* after the pass, the run goes on for it (tui_wait); during it, the
	 * run takes it when the stage under way ends */
	t->run_again = true;
	pthread_cond_broadcast(&t->cond);
	say(t, "retry: %s runs again from its failed stage, and the cluster-wide stages it "
	    "missed%s", name, t->m.done ? "" : ", when the stage under way ends");
}

/* S and x ask first; y does it (ask_answer). */
static void ask_key(struct tui *t, int what)
{
	bool stop = what == ASK_STOP;
	long h = control_host(t, stop ? "stop" : "skip",
			      (stop ? t->ctl.stop_host : t->ctl.skip_host) != NULL);
	const char *name;

	if (h < 0)
		return;
	name = t->m.hosts.v[h];
	if (t->m.done) {
		say(t, "%s: the run has ended; nothing of %s is left to %s", stop ? "stop" : "skip",
		    name, stop ? "stop" : "skip");
	} else if (stop && !host_has(&t->m, (size_t)h, CS_RUNNING)) {
		say(t, "stop: %s runs nothing now", name);
	} else {
		t->asking = what;
		t->ask_host = (size_t)h;
	}
}

static void ask_answer(struct tui *t, int k, bool is_char)
{
	const char *name = t->m.hosts.v[t->ask_host];
	int what = t->asking;

	t->asking = ASK_NONE;
	if (!is_char || (k != 'y' && k != 'Y')) {
		say(t, "%s not %s", name, what == ASK_STOP ? "stopped" : "skipped");
		return;
	}
	if (what == ASK_STOP) {
		t->ctl.stop_host(t->ctl.arg, t->ask_host, t->ctl.who);
		say(t, "stop: %s's running command is being stopped (process group killed); "
		    "the host fails (R retries it)", name);
	} else {
		t->ctl.skip_host(t->ctl.arg, t->ask_host, t->ctl.who);
		say(t, "skip: %s's stages not begun are skipped", name);
	}
}

static void select_move(struct tui *t, long delta)
{
	long r = (long)t->sel_row + delta;

	if (r < 0)
		r = 0;
	if (t->nrows && r >= (long)t->nrows)
		r = (long)t->nrows - 1;
	view_select_row(t, (size_t)r);
}

/* Returns true when the TUI should leave. Called with t->lock held. */
static bool key(struct tui *t, int k, bool is_char)
{
	if (t->help) {
		t->help = false;
		return false;
	}
	if (is_char && k == 12) { /* ^L */
		clearok(curscr, TRUE);
		return false;
	}
	if (t->paging) {
		pager_key(t, k, is_char);
		return false;
	}
	if (t->asking) {
		ask_answer(t, k, is_char);
		return false;
	}
	if (t->asking_quit) {
		t->asking_quit = false;
		if (is_char && (k == 'y' || k == 'Y')) {
			t->stop_asked = true;
			t->leave_when_done = true;
			t->paused = false;
			if (t->ctl.pause)
				t->ctl.pause(t->ctl.arg, false);
			t->ctl.stop(t->ctl.arg);
			say(t, "stopping: %s", t->ctl.stop_what ? t->ctl.stop_what : "");
			return t->m.done;
		}
		say(t, "not stopped");
		return false;
	}
	if (t->editing_filter) {
		if (k == 27) {
			strbuf_reset(&t->filter);
			t->editing_filter = false;
		} else if (k == '\n' || k == '\r' || k == KEY_ENTER) {
			t->editing_filter = false;
		} else if (k == KEY_BACKSPACE || k == 127 || k == 8) {
			if (t->filter.len)
				strbuf_setlen(&t->filter, t->filter.len - 1);
		} else if (is_char && k >= 32 && k < 127) {
			char c = (char)k;

			strbuf_add(&t->filter, &c, 1);
		}
		t->sel_row = 0;
		t->sel_host = (size_t)-1;
		t->rows_stale = true;
		return false;
	}
	switch (k) {
	case KEY_UP: case 'k': select_move(t, -1); break;
	case KEY_DOWN: case 'j': select_move(t, 1); break;
	case KEY_PPAGE: select_move(t, -(long)(t->page ? t->page : 1)); break;
	case KEY_NPAGE: select_move(t, (long)(t->page ? t->page : 1)); break;
	case KEY_HOME: case 'g': select_move(t, -(long)t->nrows); break;
	case KEY_END: case 'G': select_move(t, (long)t->nrows); break;
	case KEY_LEFT: case 'h': if (t->sel_stage) t->sel_stage--; break;
	case KEY_RIGHT: if (t->sel_stage + 1 < t->m.nst) t->sel_stage++; break;
	case '\n': case '\r': case KEY_ENTER:
		if (t->sel_is_group && t->sel_sig) {
			int i = strlist_index(&t->expanded, t->sel_sig);

			if (i >= 0) {
				free(t->expanded.v[i]);
				t->expanded.v[i] = t->expanded.v[--t->expanded.n];
				t->expanded.v[t->expanded.n] = NULL;
			} else {
				strlist_push(&t->expanded, t->sel_sig);
			}
			t->rows_stale = true;
		} else {
			t->zoom = !t->zoom;
		}
		break;
	case 27:
		if (t->zoom)
			t->zoom = false;
		else if (t->failures_only || t->filter.len)
			t->failures_only = false, strbuf_reset(&t->filter), t->rows_stale = true;
		break;
	case '/':
		t->editing_filter = true;
		strbuf_reset(&t->filter);
		t->rows_stale = true;
		break;
	case 'f':
		t->failures_only = !t->failures_only;
		t->rows_stale = true;
		say(t, t->failures_only ? "failures only" : "all hosts");
		break;
	case 'p':
		if (!t->ctl.pause) {
			say(t, "nothing to pause");
		} else if (t->m.done && !t->ctl.replay) {
			say(t, "the run has ended: nothing to pause");
		} else {
			t->paused = !t->paused;
			t->ctl.pause(t->ctl.arg, t->paused);
			say(t, t->paused ? "paused: no new work starts; running commands finish "
			    "(p resumes)" : "resumed");
		}
		break;
	case 'r':
		if (!t->ctl.retry || t->sel_stage >= t->m.nst) {
			say(t, "retry: not in this view (a replay, or precheck)");
		} else if (!t->m.stage_count[t->sel_stage * CS__COUNT + CS_FAILED]) {
			say(t, "retry: no host failed stage %s", t->m.stages.v[t->sel_stage]);
		} else {
			t->ctl.retry(t->ctl.arg, t->sel_stage);
			t->run_again = true;
			pthread_cond_broadcast(&t->cond);
			say(t, "retry: the %zu failed host(s) of %s run it again%s",
			    t->m.stage_count[t->sel_stage * CS__COUNT + CS_FAILED],
			    t->m.stages.v[t->sel_stage],
			    t->m.done ? "" : " when this pass ends");
		}
		break;
	case 'R': retry_host_key(t); break;
	case 'S': ask_key(t, ASK_SKIP); break;
	/* htop's F9 and k9s's ^K kill; k is a move here */
	case 'x': case KEY_F(9): case 11: ask_key(t, ASK_STOP); break;
	case 'l': pager_open(t); break;
	case 'F': failures_open(t); break;
	case 'c': changes_open(t); break;
	case '?': t->help = true; break;
	case 'q': return quit_key(t);
	}
	return false;
}

/* ---- the thread ---- */

static void *tui_main(void *arg)
{
	struct tui *t = arg;
	struct pollfd pfd[2] = { { STDIN_FILENO, POLLIN, 0 }, { t->wake[0], POLLIN, 0 } };
	double last_frame = 0;
	bool leave = false, need = true;

	while (!leave) {
		double now = tui_now(), due;
		int timeout, k;
		wint_t wc;
		char drain[256];

		pthread_mutex_lock(&t->lock);
		/* running cells spin, the clock ticks */
		if (!t->m.done && now - last_frame >= 0.1)
			need = true;
		need |= t->dirty;
		due = last_frame + FRAME_MS / 1000.0;
		/* the frame clock spares the terminal from events; a key is drawn at once */
		if (need && (now >= due || t->urgent)) {
			double start = tui_now(), built;

			t->dirty = false;
			t->urgent = false;
			t->now = now;
			pager_tick(t);
			view_draw(t, now);
			built = tui_now();
			wnoutrefresh(stdscr);
			need = false;
			last_frame = now;
			pthread_mutex_unlock(&t->lock);
			/* the write to the terminal, outside the lock: a slow one holds only us */
			doupdate();
			if (t->stats) {
				double end = tui_now();

				fprintf(t->stats, "frame build_ms %.3f write_ms %.3f rows %zu key_to_frame_ms %.3f\n",
					(built - start) * 1e3, (end - built) * 1e3, t->nrows,
					t->key_at ? (end - t->key_at) * 1e3 : -1.0);
				t->key_at = 0;
			}
			pthread_mutex_lock(&t->lock);
		}
		if (t->leave_when_done && t->m.done)
			leave = true;
		pthread_mutex_unlock(&t->lock);
		if (leave)
			break;
		timeout = need ? (int)((due - now) * 1000) + 1 : (t->m.done ? 1000 : 100);
		if (timeout < 1)
			timeout = 1;
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents & POLLIN)
			while (read(t->wake[0], drain, sizeof(drain)) > 0)
				;
		if (suspend_asked) {
			suspend_asked = 0;
			suspend_self();
			resized = 1; /* the window may have changed while stopped */
		}
		if (continued) {
			continued = 0;
			clearok(curscr, TRUE);
			need = true;
		}
		if (resized) {
			struct winsize ws;

			resized = 0;
			if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
				resizeterm(ws.ws_row, ws.ws_col);
				clearok(curscr, TRUE);
			}
			need = true;
		}
		if (t->interrupted && !t->leave_when_done) {
			pthread_mutex_lock(&t->lock);
			t->leave_when_done = true;
			t->stop_asked = true;
			say(t, "interrupted: %s", t->ctl.stop_what ? t->ctl.stop_what : "stopping");
			clearok(curscr, TRUE); /* the handler wrote to stderr */
			pthread_mutex_unlock(&t->lock);
			need = true;
		}
		while ((k = get_wch(&wc)) != ERR) {
			pthread_mutex_lock(&t->lock);
			leave = key(t, (int)wc, k == OK);
			t->dirty = true;
			t->urgent = true;
			if (t->stats && !t->key_at)
				t->key_at = tui_now();
			pthread_mutex_unlock(&t->lock);
			need = true;
			if (leave)
				break;
		}
	}
	pthread_mutex_lock(&t->lock);
	t->quit = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

static void at_exit_restore(void)
{
	restore_raw();
}

int tui_new(const struct run_info *ri, const struct tui_ctl *ctl, struct tui **ret,
	    struct err *err)
{
	static bool atexit_done;
	struct tui *t;
	const char *cs;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return err_set(err, ERR_USAGE, "the TUI needs a terminal on stdin and stdout");
	if (curses_on)
		return err_set(err, ERR_STATE, "the TUI is open already");
	t = xcalloc(1, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	model_init(&t->m, ri);
	t->ctl = *ctl;
	t->t_open = tui_now();
	t->rows_stale = true;
	strbuf_init(&t->filter, 0);
	strbuf_init(&t->pager_part, 0);
	strbuf_init(&t->pager_search, 0);
	if (pipe2(t->wake, O_CLOEXEC | O_NONBLOCK)) {
		err_set(err, ERR_IO, "pipe: %s", strerror(errno));
		model_release(&t->m);
		free(t);
		return ERR_IO;
	}
	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	t->utf8 = cs && !strcmp(cs, "UTF-8");
	tcgetattr(STDIN_FILENO, &saved_tio);
	wake_fd = t->wake[1];
	/* ours before initscr, so that ncurses leaves SIGWINCH and SIGTSTP to us
	 * (its own ^Z handler would run on whichever thread the signal hits) */
	signal(SIGWINCH, on_winch);
	signal(SIGTSTP, on_tstp);
	signal(SIGCONT, on_cont);
	if (!newterm(NULL, stdout, stdin)) {
		close(t->wake[0]);
		close(t->wake[1]);
		wake_fd = -1;
		model_release(&t->m);
		free(t);
		return err_set(err, ERR_USAGE, "cannot use the terminal (TERM=%s)",
			       getenv("TERM") ? getenv("TERM") : "");
	}
	restore_len = 0;
	add_seq("sgr0");
	add_seq("cnorm");
	add_seq("rmcup");
	curses_on = 1;
	crash_handlers(on_crash);
	if (!atexit_done) {
		atexit(at_exit_restore);
		atexit_done = true;
	}
	t->colour = has_colors() && !getenv("NO_COLOR");
	view_colours(t);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (getenv("BRINGUP_TUI_STATS") && *getenv("BRINGUP_TUI_STATS"))
		t->stats = fopen(getenv("BRINGUP_TUI_STATS"), "ae");
	if (t->stats)
		setvbuf(t->stats, NULL, _IOLBF, 0);
	if (pthread_create(&t->thread, NULL, tui_main, t)) {
		endwin();
		curses_on = 0;
		tui_free(t);
		return err_set(err, ERR_INTERNAL, "cannot start the TUI thread");
	}
	*ret = t;
	return 0;
}

void tui_event(const struct dep_event *ev, void *arg)
{
	struct tui *t = arg;
	bool wake;
	char c = 'e';

	pthread_mutex_lock(&t->lock);
	model_apply(&t->m, ev);
	/* what an admin did (here, or in the run another terminal steers) */
	if (ev->kind == DEV_CONTROL && ev->host && ev->msg) {
		snprintf(t->msg, sizeof(t->msg), "%s: %s", ev->host, ev->msg);
		t->msg_until = tui_now() + 6;
	}
	wake = !t->dirty || ev->kind == DEV_RUN_DONE;
	t->dirty = true;
	pthread_mutex_unlock(&t->lock);
	/* one byte per frame is enough; a full pipe means the thread is waking anyway */
	if (wake && write(t->wake[1], &c, 1) < 0 && errno != EAGAIN)
		return;
}

enum tui_wait tui_wait(struct tui *t)
{
	enum tui_wait w;

	pthread_mutex_lock(&t->lock);
	while (!t->quit && !t->run_again)
		pthread_cond_wait(&t->cond, &t->lock);
	w = t->run_again && !t->quit && !t->stop_asked ? TUI_RUN_AGAIN : TUI_QUIT;
	t->run_again = false;
	pthread_mutex_unlock(&t->lock);
	return w;
}

void tui_interrupted(struct tui *t)
{
	char c = 'i';
	ssize_t n;

	t->interrupted = 1;
	n = write(t->wake[1], &c, 1);
	(void)n;
}

bool tui_stop_asked(struct tui *t)
{
	bool v;

	pthread_mutex_lock(&t->lock);
	v = t->stop_asked || t->quit;
	pthread_mutex_unlock(&t->lock);
	return v;
}

bool tui_paused(struct tui *t)
{
	bool v;

	pthread_mutex_lock(&t->lock);
	v = t->paused;
	pthread_mutex_unlock(&t->lock);
	return v;
}

void tui_free(struct tui *t)
{
	char c = 'q';
	ssize_t n;

	if (!t)
		return;
	if (t->thread) {
		pthread_mutex_lock(&t->lock);
		t->leave_when_done = true;
		t->m.done = true;
		pthread_mutex_unlock(&t->lock);
		n = write(t->wake[1], &c, 1);
		(void)n;
		pthread_join(t->thread, NULL);
	}
	if (curses_on) {
		curses_on = 0;
		endwin();
		crash_handlers(SIG_DFL);
		signal(SIGWINCH, SIG_DFL);
		signal(SIGTSTP, SIG_DFL);
		signal(SIGCONT, SIG_DFL);
	}
	wake_fd = -1;
	close(t->wake[0]);
	close(t->wake[1]);
	model_release(&t->m);
	strbuf_release(&t->filter);
	strlist_clear(&t->expanded);
	strlist_clear(&t->pager);
	free(t->pager_title);
	free(t->pager_path);
	free(t->pager_host);
	strbuf_release(&t->pager_part);
	strbuf_release(&t->pager_search);
	strlist_clear(&t->abbrev);
	free(t->sel_sig);
	model_rows_free(t->rows, t->nrows);
	if (t->stats)
		fclose(t->stats);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

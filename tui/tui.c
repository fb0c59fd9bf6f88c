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
static volatile sig_atomic_t resized;

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

static void on_winch(int sig)
{
	char c = 'w';
	ssize_t n;

	(void)sig;
	resized = 1;
	if (wake_fd >= 0) {
		n = write(wake_fd, &c, 1);
		(void)n;
	}
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

static void pager_open(struct tui *t)
{
	const struct model *m = &t->m;
	const char *host = t->sel_host < m->nh ? m->hosts.v[t->sel_host] : "?";
	char *path = m->run_dir ? xasprintf("%s/hosts/%s.log", m->run_dir, host) : NULL;
	FILE *f = path ? fopen(path, "r") : NULL;
	struct strbuf sb = STRBUF_INIT;
	char chunk[65536];
	size_t got;

	strlist_clear(&t->pager);
	free(t->pager_title);
	t->pager_title = xasprintf("%s log: %s", host, path ? path : "(no run directory)");
	if (f) {
		if (fseek(f, 0, SEEK_END) == 0 && ftell(f) > (long)PAGER_MAX_BYTES)
			fseek(f, -(long)PAGER_MAX_BYTES, SEEK_END);
		else
			fseek(f, 0, SEEK_SET);
		while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
			strbuf_add(&sb, chunk, got);
		fclose(f);
		for (char *p = sb.buf, *nl; p && *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl) {
				strlist_push(&t->pager, p);
				break;
			}
			*nl = '\0';
			strlist_push(&t->pager, p);
		}
	} else {
		strlist_push_owned(&t->pager, xasprintf("no log for %s: %s", host,
							path ? strerror(errno) : "replay without a run directory"));
	}
	/* the end of a log is where a failure is */
	t->pager_top = t->pager.n > (size_t)LINES - 2 ? t->pager.n - (size_t)(LINES - 2) : 0;
	t->paging = true;
	strbuf_release(&sb);
	free(path);
}

static void pager_key(struct tui *t, int key)
{
	size_t h = LINES > 3 ? (size_t)LINES - 2 : 1, max = t->pager.n > h ? t->pager.n - h : 0;

	switch (key) {
	case KEY_UP: case 'k': if (t->pager_top) t->pager_top--; break;
	case KEY_DOWN: case 'j': if (t->pager_top < max) t->pager_top++; break;
	case KEY_PPAGE: t->pager_top = t->pager_top > h ? t->pager_top - h : 0; break;
	case KEY_NPAGE: case ' ': t->pager_top = t->pager_top + h < max ? t->pager_top + h : max; break;
	case KEY_HOME: case 'g': t->pager_top = 0; break;
	case KEY_END: case 'G': t->pager_top = max; break;
	case 'q': case 27: case 'l': t->paging = false; break;
	}
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
	if (t->paging) {
		pager_key(t, k);
		return false;
	}
	if (t->help) {
		t->help = false;
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
	case KEY_HOME: select_move(t, -(long)t->nrows); break;
	case KEY_END: select_move(t, (long)t->nrows); break;
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
	case 27: t->zoom = false; break;
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
	case 'l': pager_open(t); break;
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
			view_draw(t, start);
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
	/* ours before initscr, so that ncurses leaves SIGWINCH to us */
	signal(SIGWINCH, on_winch);
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
	}
	wake_fd = -1;
	close(t->wake[0]);
	close(t->wake[1]);
	model_release(&t->m);
	strbuf_release(&t->filter);
	strlist_clear(&t->expanded);
	strlist_clear(&t->pager);
	free(t->pager_title);
	free(t->sel_sig);
	model_rows_free(t->rows, t->nrows);
	if (t->stats)
		fclose(t->stats);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

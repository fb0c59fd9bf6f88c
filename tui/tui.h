/*
 * The full-screen view of a run (ncursesw): a header with counts, a matrix
 * of hosts by stages, a detail pane for the selection, and the few keys
 * that steer a run (pause, retry, stop).
 *
 * Threads: the TUI has its own thread, the only one that touches ncurses.
 * tui_event() (any thread; deploy calls it from its own) only updates the
 * model under a lock and wakes the TUI thread, which redraws at most every
 * FRAME_MS: a slow terminal makes it drop intermediate frames, never
 * events, and the run never waits on the terminal (only on the short lock
 * around the model, never held across a write to the terminal).
 *
 * The terminal is restored on every path: tui_free() (normal end and
 * errors), the second SIGINT/SIGTERM (cmd_interrupt_on_exit), a crash
 * signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) and exit().
 */
#ifndef BRINGUP_TUI_H
#define BRINGUP_TUI_H

#include <stdbool.h>

#include "../engine/base/err.h"
#include "../engine/base/event.h"

/* What the keys do to the run; any may be NULL (a replay cannot retry). */
struct tui_ctl {
	void (*pause)(void *arg, bool paused);   /* p */
	void (*retry)(void *arg, size_t stage);  /* r: the failed hosts of a stage */
	void (*stop)(void *arg);                 /* q, confirmed: as SIGINT does */
	void *arg;
	const char *stop_what;  /* what stopping means, for the question */
	bool replay;            /* a recorded run: the clock is the events' */
	bool attached;          /* a run another process makes (tui --attach): read-only,
				 * the clock is the events' */
	/* One host (the model's index, the inventory's order); `who` below. */
	void (*retry_host)(void *arg, size_t host, const char *who); /* R: now */
	void (*skip_host)(void *arg, size_t host, const char *who);  /* S, confirmed */
	void (*stop_host)(void *arg, size_t host, const char *who);  /* x F9 ^K, confirmed */
	const char *who;        /* who steers ("alice (tui)"), for the run's record */
};

struct tui;

/*
 * Takes the terminal (stdin and stdout must be one) and starts the TUI
 * thread. ri and ctl are copied. Caller frees *ret with tui_free.
 */
int tui_new(const struct run_info *ri, const struct tui_ctl *ctl, struct tui **ret,
	    struct err *err);
/*
 * Whether the terminal can draw the TUI: TERM set, not "dumb", and its
 * terminfo entry can move the cursor. Callers print plain lines instead.
 */
bool tui_term_ok(void);
/* Any thread. Matches dep_event_fn. */
void tui_event(const struct dep_event *ev, void *tui);

enum tui_wait {
	TUI_QUIT,        /* the user is done (or an interrupt ended the run) */
	TUI_RUN_AGAIN,   /* a retry was asked after the run ended: run again */
};
/* Blocks until the user quits or asks for more work; call once the run returned. */
enum tui_wait tui_wait(struct tui *t);
/* Async-signal-safe: SIGINT stopped the run; the TUI leaves once it ends. */
void tui_interrupted(struct tui *t);
/* True when the user asked to stop (q, then y). */
bool tui_stop_asked(struct tui *t);
/* True while paused (p); a replay waits while this holds. */
bool tui_paused(struct tui *t);
/* Async-signal-safe: puts the terminal back as it was (a dying process). */
void tui_restore_terminal(void);
/* Ends the thread and gives the terminal back. NULL is fine. */
void tui_free(struct tui *t);

#endif

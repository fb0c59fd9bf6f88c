/*
 * Inside the TUI: the state its thread keeps and what the views draw.
 * Only tui.c and view-*.c include this.
 */
#ifndef BRINGUP_TUI_INT_H
#define BRINGUP_TUI_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "model.h"
#include "tui.h"
#include "../engine/base/strbuf.h"

struct tui {
	/* Shared with the run's thread: under lock. */
	pthread_mutex_t lock;
	pthread_cond_t cond;      /* tui_wait */
	struct model m;
	bool dirty;
	bool quit;                /* the TUI thread has left */
	bool run_again;           /* r after the run ended */
	bool stop_asked;
	bool paused;
	volatile sig_atomic_t interrupted;
	int wake[2];              /* a byte wakes the TUI thread */
	pthread_t thread;
	struct tui_ctl ctl;
	double t_open;            /* monotonic seconds at tui_new */

	/* The TUI thread's own. */
	bool colour, utf8;
	double now;               /* the frame's time (tui.c sets it; views never ask the clock) */
	struct strlist abbrev;    /* the stages' names as the matrix head shows them */
	size_t abbrev_w;          /* ...for this column width */
	size_t sel_host, sel_row, sel_stage, top, stage_off;
	struct strbuf filter;
	bool editing_filter, failures_only, zoom, help, asking_quit, leave_when_done;
	enum { ASK_NONE, ASK_SKIP, ASK_STOP } asking; /* a question about one host */
	size_t ask_host;          /* ...which host */
	struct strlist expanded;
	char msg[256];
	double msg_until;
	/* the pager: a host's log ('l'), every failure ('F'), what changed ('c') */
	bool paging;
	struct strlist pager;
	char *pager_title;
	size_t pager_top;
	char *pager_path;         /* a log: the file it follows; NULL for the lists */
	char *pager_host;         /* ...whose log it is */
	bool pager_done;          /* ...a replay's log reached the replay's moment */
	long pager_off;           /* ...read up to here */
	struct strbuf pager_part; /* ...a last line not ended yet */
	bool pager_follow;        /* at the end: new lines keep it there */
	struct strbuf pager_search;
	bool pager_searching;     /* typing the search */
	/* the rows of the last frame, for the keys */
	struct mrow *rows;
	size_t nrows, page;
	bool sel_is_group;
	char *sel_sig;
	/* rows are rebuilt only when an event, the filter, "failures only", an
	 * opened group or the screen's height changed: a key that only moves
	 * must not pay for folding 1,000 hosts */
	bool rows_stale;
	unsigned long rows_gen;
	size_t rows_fold;
	/* a key wants its frame now, not at the next tick */
	bool urgent;
	/* BRINGUP_TUI_STATS=FILE: frame build times and key-to-frame latency */
	FILE *stats;
	double key_at;
};

/* tui.c's monotonic clock, in seconds. */
double tui_now(void);
/* Draws a frame for time `now` into curses' buffers (the caller holds
 * t->lock). The view takes the time as an argument, never asking tui.c. */
void view_draw(struct tui *t, double now);
void view_colours(struct tui *t);
/* Screen lines a logical line takes, wrapped at cols columns (the pager's). */
int view_line_rows(const char *s, int cols);
/* Selects row r of the last frame (its host, group and signature). */
void view_select_row(struct tui *t, size_t r);

#endif

/*
 * The TUI's model: what the screen shows, built only from the event stream
 * (engine/base/event.h), with no ncurses in it so that it can be tested alone.
 * One cell per host and stage (state, live output, result, reason, hint),
 * counts per state and per stage, and the rows the matrix shows once the
 * filter, "failures only" and node-set folding are applied.
 *
 * Not thread-safe: tui.c holds its lock around every call.
 */
#ifndef BRINGUP_TUI_MODEL_H
#define BRINGUP_TUI_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "../engine/base/event.h"
#include "../engine/base/strlist.h"

enum cstate {
	CS_NONE,          /* not one of the stage's hosts (yet) */
	CS_PENDING,
	CS_RUNNING,
	CS_OK,
	CS_CHANGED,
	CS_FAILED,
	CS_SKIPPED,
	CS_UNREACHABLE,
	CS_NOTHERE,       /* the stage ended without it: a run-once stage ran on another host */
	CS__COUNT
};

const char *cstate_name(enum cstate s);

/* Lines of live output kept per cell (the log file has them all). */
#define MODEL_OUTPUT_LINES 200

struct mcell {
	unsigned char st;       /* enum cstate */
	char *reason, *hint;
	struct strlist out;     /* the last MODEL_OUTPUT_LINES lines */
	size_t out_dropped;     /* lines before those */
	size_t nchanges;
	struct strlist changes; /* what changed (a dry run: what would change), one line each */
	double t_start, dur;
	unsigned limit_s;       /* running: each command's time limit there (0: none known) */
};

struct model {
	char *cluster, *playbook, *run_dir;
	struct strlist stages, hosts;
	size_t nst, nh;
	struct mcell *cells;    /* nh * nst, row-major by host */
	size_t *stage_count;    /* nst * CS__COUNT */
	size_t count[CS__COUNT];
	size_t *hidx;           /* open-addressing table: host name -> index + 1 */
	size_t hcap;
	double *stage_t0;       /* per stage: when it (last) started; < 0 before */
	double t;               /* the latest event's time */
	bool done, interrupted;
	bool dry_run;           /* --check: nothing is changed */
	char **control;         /* per host: the last thing an admin did to it (DEV_CONTROL), or NULL */
	char *last_control;     /* "HOST: ..." of the latest DEV_CONTROL, or NULL */
	unsigned long generation; /* changes with every applied event */
};

void model_init(struct model *m, const struct run_info *ri);
void model_release(struct model *m);
/* Applies one event; events naming unknown hosts or stages are ignored. */
void model_apply(struct model *m, const struct dep_event *ev);
struct mcell *model_cell(const struct model *m, size_t host, size_t stage);
/* The host's index, or -1. */
long model_host(const struct model *m, const char *name);

/* What the matrix shows. */
struct view_opts {
	const char *filter;     /* a node set ("dgx[01-04]") or text in names and reasons; NULL: all */
	bool failures_only;     /* hosts with a failed or unreachable cell */
	size_t fold_over;       /* fold when more hosts than this pass (0: never) */
	const struct strlist *expanded; /* signatures of folded groups opened */
};

struct mrow {
	size_t host;            /* the (first) host */
	size_t n;               /* hosts in the row: 1, or a folded group's size */
	char *label;            /* a host name or a folded node set; owned */
	char *sig;              /* folded rows: the state signature (for expanding); owned */
	bool expanded;          /* a folded group's header, opened (its hosts follow) */
	bool member;            /* a host row under an opened group */
};

/* Builds the rows; *ret is owned by the caller (model_rows_free). */
size_t model_rows(const struct model *m, const struct view_opts *vo, struct mrow **ret);
void model_rows_free(struct mrow *rows, size_t n);
/*
 * A host's state over all stages, the worst first: unreachable, failed,
 * running, pending, changed, ok, skipped; CS_NONE when no stage has it.
 */
enum cstate model_host_state(const struct model *m, size_t host);
/* Hosts per state (model_host_state), ret[CS__COUNT]. */
void model_host_counts(const struct model *m, size_t *ret);
/* A stage's hosts (those it runs on) and how many of them have finished. */
void model_stage_progress(const struct model *m, size_t stage, size_t *ret_done,
			  size_t *ret_total);
/*
 * Seconds until the stage ends, from the pace of its hosts done so far
 * (done / time since it started) at time `now`; -1 when it cannot tell
 * (nothing done yet, or done).
 */
double model_stage_eta(const struct model *m, size_t stage, double now);
/*
 * Abbreviations of names (stage names) in at most `width` columns each,
 * distinct from one another: a name that fits stays whole; a_b_c becomes
 * its first words' initials and as much of the last word as fits ("s.cluster",
 * "sclus"); names still alike get a number ("sca1", "sca2"). ret is filled
 * (cleared first), one per name.
 */
void model_abbrev(char *const *names, size_t n, size_t width, struct strlist *ret);
/* True when any host has a failed or unreachable cell. */
bool model_host_failed(const struct model *m, size_t host);
/* The host's states as a string, one char per stage (folding's key). */
char *model_signature(const struct model *m, size_t host);

#endif

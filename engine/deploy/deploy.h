/*
 * The stage runner: a playbook's stages in order over the runner's worker
 * pool (one connection per host, reused by every stage), each host of a
 * stage in parallel. A host that fails stops its own later stages, not the
 * others'. `serial` cuts a stage into batches; `max_fail_percent` stops the
 * run when too many hosts of a stage failed. Every result goes to the
 * journal (when there is one) and out as a dep_event (engine/base/event.h) on
 * the caller's thread.
 */
#ifndef BRINGUP_DEPLOY_H
#define BRINGUP_DEPLOY_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/err.h"
#include "../base/event.h"
#include "../inventory/inventory.h"
#include "../rundir/journal.h"
#include "playbook.h"
#include "../rundir/runlog.h"
#include "../base/strlist.h"

struct deploy_opts {
	bool check;                 /* plan only: check, never apply */
	const char *limit;          /* --limit; NULL: all */
	const struct strlist *tags;      /* run only stages with one of these tags (or names) */
	const struct strlist *skip_tags; /* never stages with one of these */
	const char *start_at;       /* skip stages before this one */
	unsigned forks;
	unsigned command_timeout_s; /* 0: the inventory's */
	bool accept_new_host_keys;
	/* What earlier runs recorded ({KEY: VALUE}; borrowed, may be NULL):
	 * where a --check run, which has no journal, starts from. */
	const json_t *records;
};

/* The outcome for one stage on one host. */
struct deploy_cell {
	enum host_result result;
	char *reason;               /* why failed / skipped; NULL for ok/changed */
	struct strlist changes, diffs;
	double duration_s;
	int err_code;               /* the error when failed (ERR_CONNECT: unreachable) */
	bool interrupted;           /* stopped by deploy_cancel() */
	/* interrupted after its apply changed the host (a command of it ran):
	 * skipped, and not done for --resume, but a change the summary counts */
	bool changed_before_stop;
};

/* What the summary counts a cell as: changed_before_stop counts as changed. */
enum host_result deploy_cell_counted(const struct deploy_cell *c);

struct deploy;

/*
 * pb must have been resolved against inv (playbook_resolve). `journal` may
 * be NULL (--check); when given, and it holds completed entries (--resume),
 * those are skipped. `log` may be NULL. Nothing is owned; all must outlive
 * the deploy. Caller frees *ret with deploy_free.
 */
int deploy_new(const struct inventory *inv, const struct playbook *pb,
	       const struct deploy_opts *o, struct journal *journal,
	       struct runlog *log, struct deploy **ret, struct err *err);
void deploy_free(struct deploy *d);

/* Runs every stage; events reach `cb` on this thread. Returns 0 or a
 * journal write error (the run itself reports through the cells). */
int deploy_run(struct deploy *d, dep_event_fn cb, void *arg, struct err *err);

/* Async-signal-safe: nothing new starts, running commands finish, the
 * hosts that were working stop at their next command. */
void deploy_cancel(struct deploy *d);
bool deploy_interrupted(const struct deploy *d);

/* Thread-safe (the TUI's keys): while paused no host starts new work;
 * running commands finish. */
void deploy_pause(struct deploy *d, bool paused);
/*
 * Thread-safe: asks that the hosts that failed `stage` run it again (and
 * the later stages their failure skipped), once the pass under way ends.
 * A deploy_run() after the first runs only the retries asked for since.
 */
void deploy_retry(struct deploy *d, size_t stage);

/*
 * One host's control, from the TUI; thread-safe. `who` says who asked
 * ("alice (tui)"); each becomes a DEV_CONTROL event when the run acts.
 *
 * deploy_retry_host: a host that failed (or was stopped) runs again from
 * its first stage that did not succeed, and through the cluster-wide
 * stages it missed (run_once and local: the GPFS join on the manager), as
 * --resume would, touching no other host. It starts when the stage under
 * way ends (stages run one at a time), or at the next deploy_run() once
 * the pass is over; the pass then takes it on.
 * deploy_skip_host: the stages it has not begun are skipped ("skipped by
 * WHO"); one under way finishes. Cluster-wide stages leave it out.
 * deploy_stop_host: the command running there now is stopped as a timeout
 * stops it (its remote process group killed: runner_stop_host), and so is
 * every later one; the host fails ("stopped by WHO") and its later stages
 * are skipped, until a retry.
 */
void deploy_retry_host(struct deploy *d, size_t host, const char *who);
void deploy_skip_host(struct deploy *d, size_t host, const char *who);
void deploy_stop_host(struct deploy *d, size_t host, const char *who);

/* host: index into inv->hosts, or inv->nhosts for a local stage's row. */
const struct deploy_cell *deploy_cell(const struct deploy *d, size_t stage, size_t host);

#endif

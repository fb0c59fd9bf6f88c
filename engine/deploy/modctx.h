/*
 * The engine's side of struct mod_ctx (engine/deploy/module.h): deploy.c makes
 * one per host and stage, on the worker that runs it. A mod_ctx reaches the
 * host through the runner's task (or runs locally for local stages), logs
 * every command to the run log and records changes, notes and skips.
 */
#ifndef BRINGUP_MODCTX_H
#define BRINGUP_MODCTX_H

#include <jansson.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "../ssh/prefetch.h"
#include "../rundir/runlog.h"
#include "../ssh/runner.h"
#include "../base/strlist.h"

struct inventory;

enum mod_phase { PHASE_CHECK, PHASE_APPLY, PHASE_VERIFY };

struct mod_ctx {
	struct task_ctx *task;      /* the runner's task (notes, and commands unless local) */
	bool local;                 /* commands run on the admin host */
	const char *host;           /* inventory name, or "localhost" */
	const char *stage;
	bool checking;              /* --check */
	enum mod_phase phase;
	json_t *params;             /* typed, merged; borrowed */
	json_t *set;                /* mod_set values; owned */
	json_t *files;              /* mod_probe's cache: path -> {mode, content} | null */
	json_t *run_hosts;          /* run_once stages: mod_run_hosts(); owned, else NULL */
	const struct inventory *inv; /* local stages: mod_inventory(); borrowed, else NULL */
	json_t *records;            /* local stages: mod_records(); owned, else NULL */
	const struct inventory *src_inv; /* every stage: mod_var_where(); borrowed, may be NULL */
	json_t *record;             /* mod_record values for the run's state; owned */
	json_t *host_failures;      /* mod_fail_host: host -> message; owned */
	const char *script;         /* template the next command reads on stdin (for the log) */
	struct runlog *log;         /* may be NULL */
	const volatile sig_atomic_t *cancelled;
	/* this host alone was stopped (deploy_stop_host); may be NULL. The
	 * command running then is stopped by the runner (runner_stop_host). */
	const volatile sig_atomic_t *host_stop;
	unsigned timeout_s;         /* per command; 0: the runner's */
	/*
	 * Deploy's prefetch (prefetch.h). capture: the first command is
	 * recorded into probe and not sent (ERR_DEFERRED). Otherwise, while
	 * *applied is false, a command equal to probe's is answered from it.
	 */
	bool capture;
	struct probe_slot *probe;   /* may be NULL; owned by deploy */
	const atomic_bool *applied; /* anything applied anywhere in the run */
	struct err *err;            /* the task's error */
	/* Results. */
	struct strlist changes, diffs;    /* from check (diffs: "" when none) */
	struct strlist verify_changes;    /* from a verify that re-checks */
	/* apply commands that exited 0: an apply cut after one has changed
	 * the host (the summary counts it), though the stage is not done */
	unsigned apply_steps;
	bool skipped;
	char *skip_reason;
};

void mod_ctx_init(struct mod_ctx *mc);
void mod_ctx_release(struct mod_ctx *mc);

#endif

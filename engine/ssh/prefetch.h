/*
 * Deploy's prefetch: the first command of every stage's check on a host
 * (its state probe), all sent in one round trip when the host starts its
 * first stage, so that a converged re-deploy costs one round trip per host
 * rather than one per stage.
 *
 * deploy.c learns each probe by running the check with the mod_ctx in
 * capture mode: the first command stops the check (ERR_DEFERRED) and is
 * recorded here instead of sent. When the stage's real check later sends
 * the very same command (same line, same stdin) and nothing has been
 * applied anywhere in the run since, modctx.c answers it from the slot; any
 * other command, or any apply, and the check asks the host as usual. So the
 * prefetch can only save round trips, never change what a check sees.
 *
 * This file only builds the combined script and splits its output: it does
 * no I/O, so the unit tests run it through a real /bin/sh.
 */
#ifndef BRINGUP_PREFETCH_H
#define BRINGUP_PREFETCH_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"
#include "ssh.h"
#include "../base/strbuf.h"

struct probe_slot {
	char *line;             /* the command line the check would send; owned */
	char *input;            /* its stdin ("" for none); owned */
	char *script;           /* the template it reads, for the log; owned, may be NULL */
	bool have;              /* res holds the host's answer */
	bool used;              /* a check took the answer (it is good once) */
	struct cmd_result res;  /* valid when have */
};

#define PROBE_SLOT_INIT { NULL, NULL, NULL, false, false, { 0 } }

/* Records the command a capture-mode check stopped at (copies everything). */
void probe_slot_capture(struct probe_slot *s, const char *line, const char *input,
			const char *script);
void probe_slot_release(struct probe_slot *s);

/*
 * Appends to `out` one POSIX sh script that runs slots[0..n) in order, each
 * with its own stdin, and prints every probe's stdout, stderr and exit
 * status between marker lines carrying `token` (random per run, so that no
 * probe's output can pass for a marker). Returns 0, or ERR_STATE when a
 * slot's stdin cannot travel inside the script (it does not end in a
 * newline); the caller then lets those probes go on their own.
 */
int prefetch_script(struct probe_slot *const *slots, size_t n, const char *token,
		    struct strbuf *out);

/*
 * Fills each slot's res (have = true) from the combined command's result.
 * Returns 0, or ERR_PARSE / ERR_REMOTE with err set when the output is cut,
 * framed wrongly or the script failed (no slot is filled then).
 */
int prefetch_parse(struct probe_slot *const *slots, size_t n, const char *token,
		   const struct cmd_result *res, struct err *err);

#endif

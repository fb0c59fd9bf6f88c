/*
 * The journal: what a deploy run did, stage by stage and host by host,
 * kept in RUN_DIR/journal.json so that `deploy --resume` can skip what is
 * done and a person can read what happened.
 *
 *   { "version": 1, "run_id": "...", "cluster": "...", "playbook": "...",
 *     "bringup_version": "...", "state": "running|completed|failed|interrupted",
 *     "started": "...", "updated": "...", "attempts": [ {"started": "..."} ],
 *     "stages": [ { "name": "memlock", "module": "memlock", "module_version": 1,
 *                   "hosts": { "dgx01": { "status": "changed", "changes": [...],
 *                              "started": "...", "finished": "...",
 *                              "duration_s": 0.4, "reason": "..." } } } ],
 *     "records": { "scale.cluster_id": "...", ... } }
 *
 * Host status: running (started, no result yet: the run was cut), ok,
 * changed, failed, skipped, interrupted. ok and changed mean completed.
 *
 * Every save writes a temporary file beside it, fsyncs it, renames it over
 * journal.json and fsyncs the directory: whatever kills us (SIGKILL, a
 * crash, a full disk), journal.json is the old or the new one, whole.
 * Only the caller's (main) thread touches a journal, but for
 * journal_save_interrupted, which a signal handler may call on any thread.
 */
#ifndef BRINGUP_JOURNAL_H
#define BRINGUP_JOURNAL_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/err.h"
#include "../base/strlist.h"

struct journal;

struct journal_meta {
	const char *run_id, *cluster, *playbook, *bringup_version, *inventory;
};

/* A new journal at PATH (not written until journal_save). Caller frees. */
struct journal *journal_new(const char *path, const struct journal_meta *m);
/* Loads PATH; ERR_NOTFOUND when absent, ERR_PARSE when unreadable. Caller frees. */
int journal_load(const char *path, struct journal **ret, struct err *err);
/* The same from LEN bytes at BUF, as if read from PATH (saved there). */
int journal_load_buf(const char *path, const char *buf, size_t len, struct journal **ret,
		     struct err *err);
void journal_free(struct journal *j);

/*
 * Declares the stages in order. An existing stage keeps its entries, unless
 * its module's version changed: what an older module did is not "done".
 */
void journal_stage(struct journal *j, const char *stage, const char *module,
		   unsigned module_version);
/* Records that a new attempt (first run or a --resume) starts now. */
void journal_attempt(struct journal *j);

/* Host entries. */
void journal_host_start(struct journal *j, const char *stage, const char *host);
void journal_host_done(struct journal *j, const char *stage, const char *host,
		       const char *status, const struct strlist *changes,
		       const char *reason, double duration_s);
/* "ok", "changed", ...; NULL when the journal has no entry. */
const char *journal_host_status(const struct journal *j, const char *stage,
				const char *host);
/* Why a host ended a stage as it did; NULL when the entry has no reason. */
const char *journal_host_reason(const struct journal *j, const char *stage, const char *host);
/* The module version a stage ran with; -1 when the journal has no such stage. */
int journal_stage_version(const struct journal *j, const char *stage);
/* True when the entry is ok or changed. */
bool journal_host_completed(const struct journal *j, const char *stage, const char *host);

void journal_set_state(struct journal *j, const char *state);
/*
 * What a stage found for later ones (mod_record): "records": {KEY: VALUE},
 * e.g. the GPFS cluster ID and mount path the OpenShift stage reads.
 */
void journal_record(struct journal *j, const char *key, const char *value);
const char *journal_state(const struct journal *j);
const char *journal_get(const struct journal *j, const char *key); /* top-level string */
/* Stage names in the journal's order (caller clears the list). */
void journal_stages(const struct journal *j, struct strlist *out);

/* Atomic save (see above). */
int journal_save(struct journal *j, struct err *err);
/*
 * For a signal handler, on any thread (a second ^C, which ends the process
 * at once): the last save's document with the state "interrupted", written
 * the same atomic way with async-signal-safe calls only (open, write, fsync,
 * close, rename). Nothing (-1) when the last save's state was not
 * "running": a finished run keeps its own state.
 */
int journal_save_interrupted(const struct journal *j);

/* The whole document (borrowed), e.g. for `-o json`. */
const json_t *journal_json(const struct journal *j);

#endif

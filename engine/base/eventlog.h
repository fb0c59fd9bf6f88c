/*
 * The run's event stream on disk: RUN_DIR/events.jsonl, one JSON object a
 * line, so that `bringup tui --replay RUN_DIR` can play a run again (for
 * post-mortems and tests). The first line describes the run (struct
 * run_info); every later line is one dep_event:
 *
 *   {"bringup_events": 1, "cluster": "c", "playbook": "deploy",
 *    "stages": ["memlock", ...], "hosts": ["dgx01", ...], "dry_run": false}
 *   {"t": 0.41, "ev": "host_done", "stage": 1, "host": "dgx03",
 *    "result": "failed", "reason": "...", "duration_s": 0.4}
 *   {"t": 9.2, "ev": "control", "stage": 1, "host": "dgx03",
 *    "msg": "retry by alice (tui): ..."}
 *
 * host_start carries "limit_s" (each command's limit there) when there is one.
 * A --resume appends a new description line and its events. What reaches
 * the file was redacted before (deploy redacts reasons and output).
 */
#ifndef BRINGUP_EVENTLOG_H
#define BRINGUP_EVENTLOG_H

#include <stddef.h>

#include "err.h"
#include "event.h"
#include "strlist.h"

struct eventlog;

/* Opens RUN_DIR/events.jsonl for appending (mode 0600) and writes the
 * description line. Caller frees *ret with eventlog_free. */
int eventlog_open(const char *run_dir, const struct run_info *ri,
		  struct eventlog **ret, struct err *err);
/* Appends one event; a full disk loses lines, never the run. */
void eventlog_write(struct eventlog *el, const struct dep_event *ev);
void eventlog_free(struct eventlog *el);

/* A recorded run, read back. Owns everything it points to. */
struct replay {
	struct run_info info;
	struct strlist stages, hosts;   /* info's arrays */
	char *cluster, *playbook, *run_dir;
	int dry_run;                    /* the description's "dry_run" (deploy --check) */
	struct dep_event *ev;           /* in order; t grows across attempts */
	struct strlist *changes;        /* parallel to ev */
	struct strlist strings;         /* the events' strings */
	size_t n, alloc;
};

/*
 * Parses a recorded stream (`name` is used in messages: "FILE:LINE: ...").
 * A truncated last line (the run was killed while writing) is ignored.
 * Returns 0 with *ret owned by the caller (replay_free), or ERR_PARSE.
 */
int replay_load_buf(const char *name, const char *buf, size_t len,
		    struct replay **ret, struct err *err);
/* replay_load_buf on RUN_DIR/events.jsonl; ERR_NOTFOUND when absent. */
int replay_load(const char *run_dir, struct replay **ret, struct err *err);
void replay_free(struct replay *r);

#endif

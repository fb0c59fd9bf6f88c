/*
 * The run directory: one per `bringup deploy`, under the cluster's state
 * directory, holding the journal and a log of every remote command
 * (hosts/NAME.log: command, exit status, duration, stdout, stderr), with
 * secrets redacted before anything reaches the disk.
 *
 *   STATE/                       ~/.local/state/bringup/CLUSTER or --state-dir
 *     runs/RUN_ID/journal.json   see journal.h
 *     runs/RUN_ID/hosts/H.log
 *     last -> runs/RUN_ID        the latest real (not --check) run
 *
 * Threading: secrets are added before the run starts and only read after;
 * each host's log is written by the one worker that holds that host.
 */
#ifndef BRINGUP_RUNLOG_H
#define BRINGUP_RUNLOG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"
#include "../inventory/redact.h"
#include "../ssh/ssh.h"
#include "../base/strbuf.h"

/* $XDG_STATE_HOME/bringup/CLUSTER, else ~/.local/state/bringup/CLUSTER; caller frees. */
char *state_dir_default(const char *cluster);

/* A new, unique run id (UTC time and pid), e.g. 20261121T114501Z-4242; caller frees. */
char *run_id_new(void);

/* mkdir -p with mode 0700 for the parts it creates. */
int mkdir_p(const char *path, struct err *err);

/* Points STATE/last at runs/RUN_ID (atomically: a new link renamed over). */
int run_mark_last(const char *state_dir, const char *run_id, struct err *err);
/* The run id STATE/last points at (caller frees), or ERR_NOTFOUND. */
int run_last(const char *state_dir, char **ret_id, struct err *err);
/*
 * A run id given from outside (deploy --run-id, the upgrade's record): a
 * name under STATE/runs, so letters, digits, '.', '_', '-', not starting
 * with '.', at most 64 characters.
 */
bool run_id_valid(const char *id);
/*
 * Undoes a run recorded before it could begin (its cluster lock was
 * refused): removes STATE/runs/RUN_ID's journal and directory and points
 * STATE/last back at PRIOR_ID (removes it where PRIOR_ID is NULL). Only
 * under run_lock: nothing else moves STATE/last meanwhile.
 */
void run_discard(const char *state_dir, const char *run_id, const char *prior_id);
/*
 * Takes STATE_DIR/lock (flock, with our pid in it) so that two deploys on
 * one cluster never interleave their changes or their journals; held until
 * *ret_fd is closed (or the process ends, however it ends). A lock held by
 * another process: ERR_STATE naming its pid.
 */
int run_lock(const char *state_dir, int *ret_fd, struct err *err);

struct runlog;

/* Opens (creating) RUN_DIR and RUN_DIR/hosts; *ret owned by caller (runlog_free). */
int runlog_open(const char *run_dir, struct runlog **ret, struct err *err);
void runlog_free(struct runlog *rl);
const char *runlog_dir(const struct runlog *rl);

/* Every later log line has `secret` replaced with REDACTED (ignored if shorter than 4). */
void runlog_add_secret(struct runlog *rl, const char *secret);
/*
 * Adds the string values of `vars` (recursively) whose key names a secret
 * (password, passwd, secret, token, credential, api_key, private_key).
 */
void runlog_add_secrets_from(struct runlog *rl, const json_t *vars);
/* The log's secrets, for other writers of the same run (NULL rl: none). */
const struct redactor *runlog_redactor(const struct runlog *rl);
/* Appends s with every secret redacted. */
void runlog_redact(const struct runlog *rl, const char *s, size_t len, struct strbuf *out);

/*
 * Appends one command's record to hosts/HOST.log. `res` may be NULL when the
 * command never ran (then errmsg says why).
 */
void runlog_command(struct runlog *rl, const char *host, const char *stage,
		    const char *command, const struct cmd_result *res,
		    const char *errmsg);

/* Appends a record of something that is not a command (an upload) and its result. */
void runlog_action(struct runlog *rl, const char *host, const char *stage,
		   const char *what, const char *result);

#endif

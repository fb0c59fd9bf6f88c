/*
 * The runner: a bounded pool of worker threads that carries tasks out on
 * hosts over SSH, and hands their events to the caller's thread.
 *
 * Concurrency rule (write it here first, everything else follows from it):
 * - Every host has one lazily opened connection, reused by every task of the
 *   run, and one lock. A task names the hosts it touches; the worker takes
 *   their locks in inventory order before the task starts, so a libssh
 *   session is never used by two threads at once and tasks cannot deadlock.
 * - Shapes: one task per host (a stage on a group); one task on one chosen
 *   host (run_once: GPFS administration on a manager); one task on several
 *   hosts (coordinated: an RDMA server on one, its client on another;
 *   task_exec_start keeps a command in flight on each while the task's one
 *   thread waits for them in turn); a task on no host (local work on the
 *   admin host, e.g. Kubernetes API calls).
 * - Workers never print. They queue events; runner_run() delivers them on
 *   the calling thread, which alone may touch the terminal (or ncurses).
 * - A host that failed to connect is remembered: later tasks on it fail at
 *   once with the same error instead of waiting for another timeout.
 */
#ifndef BRINGUP_RUNNER_H
#define BRINGUP_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"
#include "../inventory/inventory.h"
#include "ssh.h"

#define RUNNER_DEFAULT_FORKS 256

struct runner_opts {
	unsigned forks;            /* workers at most; 0: RUNNER_DEFAULT_FORKS */
	unsigned run_timeout_s;    /* whole-run deadline; 0: none */
	unsigned command_timeout_s;/* per command unless it says; 0: inventory's */
	bool accept_new_host_keys;
	/* runner_cancel() also stops the commands running then (their remote
	 * process groups are killed): for read-only work (exec, precheck).
	 * Deploy leaves it off, so that a change under way is not cut in half. */
	bool cancel_stops_commands;
};

enum event_kind {
	EV_TASK_START,
	EV_TASK_NOTE,      /* a line of progress from the task (msg) */
	EV_TASK_DONE,      /* rc and err of the task are final */
};

struct event {
	enum event_kind kind;
	size_t task;       /* index into the caller's task array */
	const char *msg;   /* EV_TASK_NOTE only; valid during the callback */
	double t;          /* seconds since runner_run started */
};

typedef void (*event_fn)(const struct event *ev, void *arg);

struct task_ctx;
typedef int (*task_fn)(struct task_ctx *t, void *arg);

struct task {
	/* in */
	const size_t *hosts;   /* indexes into inv->hosts; may be NULL if nhosts is 0 */
	size_t nhosts;
	task_fn fn;
	void *arg;
	/* out */
	int rc;                /* 0 or an err code */
	struct err err;        /* filled when rc != 0; owned, task_release() */
	double duration_s;
};

void task_release(struct task *t);

struct runner;

/* The runner keeps a pointer to inv; inv must outlive it. Caller frees
 * the result with runner_free(). */
int runner_new(const struct inventory *inv, const struct runner_opts *o,
	       struct runner **ret, struct err *err);
/* Closes every connection. */
void runner_free(struct runner *r);

/*
 * Runs all tasks, at most opts.forks at once, and returns when every one has
 * finished (or was cancelled). Events reach `cb` on this thread. Returns 0;
 * per-task results are in tasks[i].rc / .err.
 */
int runner_run(struct runner *r, struct task *tasks, size_t ntasks,
	       event_fn cb, void *cb_arg);

/*
 * fn(arg) runs on runner_run's thread each time the events queued so far
 * have all been delivered, before it waits for more, and once at the end:
 * where a caller writes down what a burst of events changed once (deploy's
 * journal) without leaving the last of them unwritten while it waits.
 * NULL turns it off.
 */
void runner_on_idle(struct runner *r, void (*fn)(void *arg), void *arg);

/* Async-signal-safe: no task starts after this; running ones finish, or
 * with opts.cancel_stops_commands their commands stop (CMD_CANCELLED). */
void runner_cancel(struct runner *r);

/*
 * Thread-safe (not from a signal handler): while paused, no task starts;
 * running ones go on. A cancel ends the pause for the tasks left (they
 * end as cancelled).
 */
void runner_pause(struct runner *r, bool paused);
/*
 * Thread-safe: while `stop` holds, every command on the host ends at once
 * as CMD_CANCELLED, and one running there now ends at its next look (within
 * 200 ms): its remote process group is killed as on a timeout (conn_exec's
 * one path: SIGTERM, then SIGKILL) and its channel closed, the connection
 * stays. Uploads to it stop too. false lets commands run there again. For
 * stopping one host of a run (the TUI's stop); tasks still start.
 */
void runner_stop_host(struct runner *r, size_t host, bool stop);
/* True once runner_cancel() was called. */
bool runner_cancelled(const struct runner *r);

/* For tasks. i indexes the task's own host list. */
const struct host *task_host(struct task_ctx *t, size_t i);
int task_exec(struct task_ctx *t, size_t i, const struct remote_cmd *cmd,
	      struct cmd_result *res, struct err *err);
/*
 * task_exec's first half (ssh.h's conn_exec_start): the command runs on host
 * i while the task starts others; conn_exec_wait() collects it (and kills
 * its process group when it overruns its timeout). *ret owned by the caller
 * until then.
 */
int task_exec_start(struct task_ctx *t, size_t i, const struct remote_cmd *cmd,
		    struct remote_proc **ret, struct err *err);
/* conn_upload on host i, each step bounded by the per-command timeout;
 * ur may be NULL, else the caller frees ur->path. */
int task_upload(struct task_ctx *t, size_t i, const char *local, const char *remote,
		unsigned mode, struct upload_result *ur, struct err *err);
/*
 * An interactive session (a pty and the login shell) on the task's host i,
 * for hosts that speak a CLI instead of a POSIX shell (a managed switch).
 * It rides the host's one connection, so the task holds the host's lock
 * while it is open: close it (conn_shell_close) before the task returns.
 */
int task_shell(struct task_ctx *t, size_t i, unsigned cols, unsigned rows,
	       struct conn_shell **ret, struct err *err);
/*
 * When a step that starts now must end, as a now_ms() time: after
 * timeout_ms (0: the run's per-command timeout, as task_exec uses), and
 * never after the run's deadline. 0: no limit at all.
 */
long long task_step_deadline(struct task_ctx *t, unsigned timeout_ms);
/*
 * Closes the connection to the task's host i now: for one-shot work (a
 * precheck's single round trip) on hundreds of hosts, so that finished
 * sessions do not hold their buffers until the run ends. A later task on
 * the host connects again.
 */
void task_disconnect(struct task_ctx *t, size_t i);
/*
 * For waiting on a host that reboots: closes the connection to the task's
 * host i and connects afresh, within connect_timeout_ms (0: the
 * inventory's), forgetting an earlier failure to connect. A failure here is
 * not remembered either, so the caller may try again.
 */
int task_reconnect(struct task_ctx *t, size_t i, unsigned connect_timeout_ms,
		   struct err *err);
/* What a command without a timeout of its own gets (seconds). */
unsigned task_command_timeout(const struct task_ctx *t);
/* The run's deadline as a now_ms() time; 0 when the run has none. */
long long task_deadline_ms(const struct task_ctx *t);
/* The task's own error object: fill it and return its code to fail. */
struct err *task_err(struct task_ctx *t);
void task_note(struct task_ctx *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif

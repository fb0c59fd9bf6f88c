/*
 * The SSH transport: one libssh session per host, many commands on it.
 *
 * A `struct conn` is one authenticated, host-key-verified session. Commands
 * run on channels of that session, one after the other, each with its own
 * deadline, bounded output capture and an explicit environment. Files go up
 * over SFTP with a checksum check.
 *
 * Threading rule (libssh's own): a conn, and the jump conn under it, is used
 * by one thread at a time. The runner (runner.h) guarantees it by locking a
 * host before a task touches it; nothing here locks.
 */
#ifndef BRINGUP_SSH_H
#define BRINGUP_SSH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"
#include "inventory.h"
#include "strbuf.h"

struct conn_opts {
	const char *known_hosts;      /* file to verify against; NULL: ~/.ssh/known_hosts */
	bool accept_new_host_keys;    /* record unknown keys (never changed ones) */
	unsigned connect_timeout_ms;  /* TCP connect + handshake + auth */
};

struct conn;

/*
 * Connects to `t`, through `jump` when not NULL (ProxyJump: a direct-tcpip
 * channel on a session to the jump host, pumped by a thread we own, so no
 * ssh process is forked). Verifies the host key against o->known_hosts and
 * authenticates with t->key_file, else ssh-agent, else the default keys.
 * `name` is the inventory name used in messages. Returns 0 with *ret owned
 * by the caller (conn_close), or ERR_CONNECT / ERR_HOSTKEY / ERR_AUTH /
 * ERR_TIMEOUT with a message that names the host and says what to do.
 */
int conn_open(const char *name, const struct ssh_target *t,
	      const struct ssh_target *jump, const struct conn_opts *o,
	      struct conn **ret, struct err *err);
void conn_close(struct conn *c);

/* One remote command. */
struct remote_cmd {
	const char *command;      /* a POSIX shell command line */
	char *const *env;         /* "NAME=value" strings, NULL-terminated; may be NULL */
	const void *input;        /* written to stdin, which is then closed; may be NULL */
	size_t input_len;
	unsigned timeout_ms;      /* 0: no limit of its own (the run's deadline still holds) */
	size_t max_output;        /* cap per stream; 0: CMD_OUTPUT_DEFAULT_MAX */
};

#define CMD_OUTPUT_DEFAULT_MAX (4u << 20)

enum cmd_outcome {
	CMD_EXITED = 0,   /* ran to completion; see exit_status */
	CMD_TIMED_OUT,    /* deadline passed; output is what arrived before */
	CMD_KILLED,       /* the remote process died of a signal */
	CMD_LOST,         /* the connection broke mid-command */
};

struct cmd_result {
	enum cmd_outcome outcome;
	int exit_status;          /* valid for CMD_EXITED; -1 otherwise */
	struct strbuf out, err;   /* captured, capped at max_output each */
	bool out_truncated, err_truncated;
	double duration_s;
	double first_output_s;    /* when the first stdout byte came; -1 if none */
	double start_wall_s;      /* wall-clock (Unix) time the command was sent */
};

void cmd_result_init(struct cmd_result *r);
void cmd_result_release(struct cmd_result *r);

/*
 * Runs `cmd` on a new channel and waits for it, at most until the earlier of
 * cmd->timeout_ms and `deadline_ms` (a monotonic time from now_ms(); 0 for
 * none). Returns 0 when the command ran (whatever its exit status: see
 * res->outcome) or an error when no channel could be opened. A timed-out
 * command's channel is closed; the conn stays usable.
 */
int conn_exec(struct conn *c, const struct remote_cmd *cmd, long long deadline_ms,
	      struct cmd_result *res, struct err *err);

/*
 * The same in two halves, so that one thread can keep commands running on
 * several hosts at once (an RDMA server here, its client there).
 * conn_exec_start() returns 0 with *ret owned by the caller until
 * conn_exec_wait() (which frees it) or remote_proc_free() (which abandons it).
 */
struct remote_proc;
int conn_exec_start(struct conn *c, const struct remote_cmd *cmd, long long deadline_ms,
		    struct remote_proc **ret, struct err *err);
void conn_exec_wait(struct remote_proc *p, struct cmd_result *res);
void remote_proc_free(struct remote_proc *p);

/* What an upload did, for the run log. */
struct upload_result {
	long long size;        /* bytes of the file */
	long long resumed_at;  /* bytes already there from a cut transfer (0: none) */
	bool restarted;        /* those bytes were not a prefix of the file: sent again whole */
};

/*
 * Uploads a local file to `remote_path` over SFTP (via REMOTE.bringup-part
 * and a rename, so a cut never leaves a half file under the real name),
 * then checks the remote sha256sum against the local one. A part file left
 * by a cut transfer is continued from its end rather than sent again; when
 * the whole then fails the checksum (the part was another file's), the
 * upload starts over once. `ur` may be NULL. Returns 0 or an error naming
 * the host and path.
 */
int conn_upload(struct conn *c, const char *local_path, const char *remote_path,
		mode_t mode, long long deadline_ms, struct upload_result *ur, struct err *err);

/*
 * An interactive session: a channel with a pseudo-terminal of cols x rows
 * and the login shell on it (a switch's CLI, not a POSIX shell). Nothing
 * here waits without a bound: reads take a timeout, writes go out at once.
 * The shell belongs to the conn's thread like everything else on it, and
 * must be closed before the conn.
 */
struct conn_shell;
/* *ret owned by the caller (conn_shell_close). */
int conn_shell_open(struct conn *c, unsigned cols, unsigned rows,
		    struct conn_shell **ret, struct err *err);
int conn_shell_write(struct conn_shell *sh, const char *buf, size_t len, struct err *err);
/*
 * Appends what arrives within timeout_ms (at most `max` bytes) to out and
 * returns how many bytes came (0: nothing in time), or an error when the
 * connection broke. *ret_eof becomes true once the far end closed.
 */
int conn_shell_read(struct conn_shell *sh, struct strbuf *out, size_t max, int timeout_ms,
		    bool *ret_eof, struct err *err);
void conn_shell_close(struct conn_shell *sh);

/* Builds the shell line conn_exec sends (exposed for tests). Caller owns sb. */
void remote_cmd_line(const struct remote_cmd *cmd, struct strbuf *sb);

/* Monotonic milliseconds. */
long long now_ms(void);

#endif

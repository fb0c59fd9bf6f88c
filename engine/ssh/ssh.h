/*
 * The SSH transport: one libssh session per host, many commands on it.
 *
 * A `struct conn` is one authenticated, host-key-verified session. Commands
 * run on channels of that session, one after the other, each with its own
 * deadline, bounded output capture and an explicit environment. Files go up
 * over SFTP with a checksum check (ssh-upload.c).
 *
 * Threading rule (libssh's own): a conn is used by one thread at a time.
 * The runner (runner.h) guarantees it by locking a host before a task
 * touches it; nothing here locks. Jump hosts are the exception, shared by
 * every host behind them: see struct jump below for their rule.
 */
#ifndef BRINGUP_SSH_H
#define BRINGUP_SSH_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "../base/err.h"
#include "../inventory/inventory.h"
#include "../base/strbuf.h"

struct conn_opts {
	const char *known_hosts;      /* file to verify against; NULL: ~/.ssh/known_hosts */
	bool accept_new_host_keys;    /* record unknown keys (never changed ones) */
	unsigned connect_timeout_ms;  /* TCP connect + handshake + auth */
};

struct conn;

/*
 * How a connection reaches its host when not directly: `open` gives a
 * socket whose far end is a byte stream to address:port, by deadline_ms,
 * owned by the caller; errors name host `name`. It is called again for each
 * retried login. ssh-jump.h's jump_via() is the one there is (ProxyJump);
 * this layer knows nothing of jump hosts.
 */
struct conn_via {
	int (*open)(void *arg, const char *name, const char *address, unsigned port,
		    long long deadline_ms, int *ret_fd, struct err *err);
	void *arg;
};

/*
 * Connects to `t`, through `via` when not NULL (ProxyJump: a channel from
 * a jump host, so no ssh process is forked). Verifies the host key against o->known_hosts and
 * authenticates with t->key_file, else ssh-agent, else the default keys.
 * `name` is the inventory name used in messages. Returns 0 with *ret owned
 * by the caller (conn_close), or ERR_CONNECT (refused, or no answer within
 * the connect timeout: both are an unreachable host) / ERR_HOSTKEY /
 * ERR_AUTH (refused, or "authentication stalled" when the server never
 * answered) with a message that names the host and says what to do.
 */
int conn_open(const char *name, const struct ssh_target *t,
	      const struct conn_via *via, const struct conn_opts *o,
	      struct conn **ret, struct err *err);
void conn_close(struct conn *c);
/* Descriptors an open conn holds in this process, for the runner's budget:
 * its socket; through a jump host, both ends of its socketpair (the jump
 * sessions themselves are counted once per jump host: JUMP_FDS_PER_SESSION). */
#define CONN_FDS_DIRECT 1
#define CONN_FDS_JUMPED 2
#define JUMP_FDS_PER_SESSION 3  /* its socket and its pump's wake pipe */
/* For ssh-jump.c (the layer above): the libssh session under a conn. */
struct ssh_session_struct *conn_ssh_session(struct conn *c);

/* One remote command. */
struct remote_cmd {
	const char *command;      /* a POSIX shell command line */
	char *const *env;         /* "NAME=value" strings, NULL-terminated; may be NULL */
	const void *input;        /* written to stdin, which is then closed; may be NULL */
	size_t input_len;
	unsigned timeout_ms;      /* 0: no limit of its own (the run's deadline still holds) */
	size_t max_output;        /* cap per stream; 0: CMD_OUTPUT_DEFAULT_MAX */
	/* When *cancel becomes non-zero (a signal handler may set it), the
	 * command stops as CMD_CANCELLED. May be NULL. */
	const volatile sig_atomic_t *cancel;
	/* When set, output is handed here as it arrives (stream 0 stdout, 1
	 * stderr; max_output still caps each) instead of being kept in the
	 * result, so that a caller folding many hosts' output need not hold
	 * it all. Called on the thread that waits for the command. */
	void (*sink)(void *arg, int stream, const char *buf, size_t len);
	void *sink_arg;
};

#define CMD_OUTPUT_DEFAULT_MAX (4u << 20)

enum cmd_outcome {
	CMD_EXITED = 0,   /* ran to completion; see exit_status */
	CMD_TIMED_OUT,    /* deadline passed; output is what arrived before */
	CMD_KILLED,       /* the remote process died of a signal */
	CMD_LOST,         /* the connection broke mid-command */
	CMD_CANCELLED,    /* *cancel was set; output is what arrived before */
};

/*
 * What became of the remote process group of a command that was stopped
 * (timed out or cancelled). Every command runs in its own process group on
 * the host (sshd makes each session one; the command line reports its id
 * first thing on stderr, which conn_exec strips), and a stopped command's
 * group is sent SIGTERM, then SIGKILL after REAP_GRACE_MS, over a new
 * channel: closing the channel alone leaves the command running.
 */
enum cmd_reap {
	REAP_NONE = 0,    /* the command was not stopped */
	REAP_TERM,        /* the group ended after SIGTERM */
	REAP_KILL,        /* it outlived the grace period and got SIGKILL */
	REAP_GONE,        /* it had ended already */
	REAP_UNKNOWN,     /* the command never reported its group: nothing sent */
	REAP_FAILED,      /* the kill could not be sent or did not answer */
};

#define REAP_GRACE_MS 3000

/* One line for logs: "remote process group 1234 ended after SIGTERM". */
const char *cmd_reap_text(enum cmd_reap r);

struct cmd_result {
	enum cmd_outcome outcome;
	int exit_status;          /* valid for CMD_EXITED; -1 otherwise */
	struct strbuf out, err;   /* captured, capped at max_output each */
	bool out_truncated, err_truncated;
	double duration_s;
	double first_output_s;    /* when the first stdout byte came; -1 if none */
	double start_wall_s;      /* wall-clock (Unix) time the command was sent */
	long remote_pgid;         /* the command's process group on the host; 0: unknown */
	enum cmd_reap reap;       /* for CMD_TIMED_OUT and CMD_CANCELLED */
};

void cmd_result_init(struct cmd_result *r);
void cmd_result_release(struct cmd_result *r);

/*
 * Runs `cmd` on a new channel and waits for it, at most until the earlier of
 * cmd->timeout_ms and `deadline_ms` (a monotonic time from now_ms(); 0 for
 * none). Returns 0 when the command ran (whatever its exit status: see
 * res->outcome) or an error when no channel could be opened: ERR_TIMEOUT
 * when the channel open or the exec request stalled past that limit (the
 * message names the phase), ERR_SSH otherwise. A timed-out or cancelled
 * command's process group is killed on the host (see enum cmd_reap) and its
 * channel closed; the conn stays usable.
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
/*
 * Reads the command's output into res (as conn_exec_wait does, which must
 * still finish it with the same res) until its stdout holds `needle`, or
 * with needle NULL until the command ends: true then; false when limit_ms
 * passed first (or, with a needle, the command ended without it). Not for
 * a command with a sink. For a server that must be listening before its
 * client starts, and that gets a while to report once its client is done.
 */
bool conn_exec_wait_output(struct remote_proc *p, struct cmd_result *res, const char *needle,
			   long long limit_ms);
/* The next wait ends the command as CMD_CANCELLED: its group is killed. */
void conn_exec_stop(struct remote_proc *p);
void remote_proc_free(struct remote_proc *p);

/* What an upload did, for the run log. */
struct upload_result {
	long long size;        /* bytes of the file */
	long long resumed_at;  /* bytes already there from a cut transfer (0: none) */
	bool restarted;        /* those bytes were not a prefix of the file: sent again whole */
	char *path;            /* where the file landed (success only); caller frees */
};

/*
 * Uploads a local file over SFTP (ssh-upload.c) to `remote_path`, or into
 * it with the local base name when it ends in '/' or is a directory (as
 * scp does), via TARGET.bringup-part and a rename, so that a cut never
 * leaves a half file under the real name; the part file's SHA-256 is
 * checked on the host against the local one before the rename, and the
 * file gets exactly `mode`.
 *
 * Safe in directories others can write to: a part file is created with
 * O_EXCL and continued only when it is a regular file of the login user's;
 * symlinks are neither written through nor followed by the rename. A part
 * file a cut transfer left is continued from its end; when the whole then
 * fails the checksum (the part was another file's), it is sent again once.
 *
 * Every step (channel, init, stat, open, each write, close, checksum,
 * rename) waits at most step_timeout_ms for the host (0: 10 minutes) and
 * never past deadline_ms (a now_ms() time; 0: none): a stall fails with
 * ERR_TIMEOUT, "sftp stalled after N bytes (STEP: ...)". Once *cancel (may
 * be NULL) becomes non-zero the upload stops with ERR_CANCELLED, leaving
 * its part file for the next upload to continue. `ur` may be NULL.
 * Returns 0 or an error naming the host and path.
 */
int conn_upload(struct conn *c, const char *local_path, const char *remote_path,
		mode_t mode, unsigned step_timeout_ms, long long deadline_ms,
		const volatile sig_atomic_t *cancel, struct upload_result *ur, struct err *err);

/*
 * The SHA-256 (64 hex digits) of a local file that uploads compare with:
 * read once per process for a given file, size and mtime, however many
 * hosts it goes to.
 */
int upload_local_sha256(const char *path, char hex[65], struct err *err);

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

/*
 * Helpers shared by the simulator's files and nothing else: files and
 * directories (sim/sim-fs.c), child processes and the /proc scans that find
 * what a cluster started (sim/sim-proc.c).
 */
#ifndef BRINGUP_SIM_INT_H
#define BRINGUP_SIM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../engine/base/err.h"
#include "../engine/base/strbuf.h"

#define SIM_TOKEN_VAR "BRINGUP_SIM_TOKEN"
/* In a node's fstab, where sim-shell puts its login's own id (overlay workdirs). */
#define SIM_LOGIN_MARK "@LOGIN@"

struct sim;

/* D/token, or NULL when there is none; caller frees. (sim-ctl.c) */
char *sim_read_token(const char *dir);

/*
 * Starts the sshd of nodes idx[0..n) and waits until each accepts
 * connections. *ret_bind_failed tells a lost race for the port (another
 * cluster bound it first) from other failures. (sim-ctl.c)
 */
int sim_start_sshds(const struct sim *s, const unsigned *idx, unsigned n, char *const *envp,
		    bool *ret_bind_failed, struct err *err);

void sim_sleep_ms(unsigned ms);

/* OpenSSH's sshd and sftp-server on this machine; NULL when missing. (sim-fs.c) */
const char *sim_sshd_binary(void);
const char *sim_sftp_server(void);

/* Writes (replaces) path with data and the given mode. */
int simfs_write(const char *path, const void *data, size_t len, unsigned mode, struct err *err);
/* Appends the whole file to out. */
int simfs_read(const char *path, struct strbuf *out, struct err *err);
/* mkdir -p with mode for the directories it creates. */
int simfs_mkdirs(const char *path, unsigned mode, struct err *err);
/* rm -rf, also through directories left without permissions (overlay work dirs). */
int simfs_remove_tree(const char *path, struct err *err);
bool simfs_exists(const char *path);

/* One child process: argv[0] absolute; stdout and stderr captured (bounded). */
struct sim_job {
	char **argv;          /* not owned */
	int status;           /* exit status, 128 + signal, or -1 when not run */
	struct strbuf out;    /* stdout */
	struct strbuf errout; /* stderr */
};

void sim_job_init(struct sim_job *j, char **argv);
void sim_job_release(struct sim_job *j);
/* Last non-empty line of the job's stderr (or stdout), for messages; points into j. */
const char *sim_job_last_line(struct sim_job *j);

/*
 * Runs the jobs, at most `parallel` at a time, each with environment envp and
 * stdin from /dev/null. It reaps with waitpid(-1): call it only where the
 * process has no other children (cmd/cmd-sim.c). Fails only when a process cannot be started; look at
 * each job's status for how it went.
 */
int sim_jobs_run(struct sim_job *jobs, size_t n, unsigned parallel, char *const *envp,
		 struct err *err);

/* The environment with TOKEN_VAR=token set; free with sim_env_free(). */
char **sim_env_with_token(const char *token);
void sim_env_free(char **envp);

/* Pids (not ours) whose environment holds every "NAME=value" of the
 * NULL-terminated entries. Caller frees *ret. */
size_t sim_env_pids(const char *const *entries, pid_t **ret);
/* Pids (not ours) whose environment holds BRINGUP_SIM_TOKEN=token. Caller frees *ret. */
size_t sim_token_pids(const char *token, pid_t **ret);
/* Whether pid is alive (not a zombie) and its command line contains needle. */
bool sim_pid_matches(pid_t pid, const char *needle);
/* The pid in a pid file if that process is alive and its command line holds needle; else 0. */
pid_t sim_pidfile_live(const char *pidfile, const char *needle);

#endif

/*
 * Child processes for the simulator (bounded parallel runs with captured
 * output) and the /proc scans that find what a cluster started.
 */
#include "sim-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../engine/base/xalloc.h"

extern char **environ;

/* Enough for any message a helper script prints; the rest is dropped. */
#define JOB_OUTPUT_MAX (64 * 1024)

void sim_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

void sim_job_init(struct sim_job *j, char **argv)
{
	j->argv = argv;
	j->status = -1;
	strbuf_init(&j->out, 0);
	strbuf_init(&j->errout, 0);
}

void sim_job_release(struct sim_job *j)
{
	strbuf_release(&j->out);
	strbuf_release(&j->errout);
}

static const char *last_line(struct strbuf *sb)
{
	strbuf_rtrim(sb);
	char *nl = strrchr(sb->buf, '\n');

	return nl ? nl + 1 : sb->buf;
}

const char *sim_job_last_line(struct sim_job *j)
{
	const char *s = last_line(&j->errout);

	return *s ? s : last_line(&j->out);
}

/* Output goes to memfds rather than pipes: a child that leaves a daemon
 * holding the descriptor cannot make us wait, and nothing can deadlock. */
static void read_capture(int fd, struct strbuf *out)
{
	char buf[4096];
	ssize_t r;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return;
	while ((r = read(fd, buf, sizeof(buf))) > 0 && out->len < JOB_OUTPUT_MAX)
		strbuf_add(out, buf, (size_t)r);
}

struct running {
	pid_t pid;
	int outfd, errfd;
	struct sim_job *job;
};

static void child_exec(struct sim_job *j, int outfd, int errfd, char *const *envp)
{
	int null = open("/dev/null", O_RDONLY);
	sigset_t none;

	if (null < 0 || dup2(null, 0) < 0 || dup2(outfd, 1) < 0 || dup2(errfd, 2) < 0)
		_exit(127);
	/* bringup ignores SIGPIPE; the daemons and shells we start must not. */
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(j->argv[0], j->argv, envp);
	dprintf(2, "cannot run %s: %s\n", j->argv[0], strerror(errno));
	_exit(127);
}

static int start_job(struct running *r, struct sim_job *j, char *const *envp, struct err *err)
{
	r->job = j;
	r->outfd = memfd_create("sim-out", MFD_CLOEXEC);
	r->errfd = memfd_create("sim-err", MFD_CLOEXEC);
	if (r->outfd < 0 || r->errfd < 0)
		goto fail;
	r->pid = fork();
	if (r->pid < 0)
		goto fail;
	if (!r->pid)
		child_exec(j, r->outfd, r->errfd, envp);
	return 0;
fail:
	err_set(err, ERR_IO, "cannot start %s: %s", j->argv[0], strerror(errno));
	if (r->outfd >= 0)
		close(r->outfd);
	if (r->errfd >= 0)
		close(r->errfd);
	return ERR_IO;
}

static void finish_job(struct running *r, int wstatus)
{
	struct sim_job *j = r->job;

	if (WIFEXITED(wstatus))
		j->status = WEXITSTATUS(wstatus);
	else
		j->status = 128 + WTERMSIG(wstatus);
	read_capture(r->outfd, &j->out);
	read_capture(r->errfd, &j->errout);
	close(r->outfd);
	close(r->errfd);
}

/* Waits for one of the running children and retires it; returns the slot freed. */
static size_t reap_one(struct running *run, size_t nrun)
{
	for (;;) {
		int wstatus;
		pid_t pid = waitpid(-1, &wstatus, 0);

		if (pid < 0 && errno == EINTR)
			continue;
		for (size_t k = 0; k < nrun; k++) {
			if (run[k].pid == pid) {
				finish_job(&run[k], wstatus);
				return k;
			}
		}
		/* Someone else reaped ours: give up on slot 0 rather than spin. */
		if (pid < 0) {
			finish_job(&run[0], W_EXITCODE(127, 0));
			return 0;
		}
	}
}

int sim_jobs_run(struct sim_job *jobs, size_t n, unsigned parallel, char *const *envp,
		 struct err *err)
{
	struct running *run;
	size_t nrun = 0, next = 0;
	int ret = 0;

	if (!parallel)
		parallel = 1;
	run = xcalloc(parallel, sizeof(*run));
	while (next < n || nrun) {
		if (!ret && next < n && nrun < parallel) {
			ret = start_job(&run[nrun], &jobs[next], envp, err);
			if (!ret) {
				nrun++;
				next++;
			}
			continue;
		}
		if (!nrun)
			break;
		size_t k = reap_one(run, nrun);

		run[k] = run[--nrun];
	}
	free(run);
	return ret;
}

char **sim_env_with_token(const char *token)
{
	size_t n = 0, k = 0, len = strlen(SIM_TOKEN_VAR);
	char **envp;

	while (environ[n])
		n++;
	envp = xcalloc(n + 2, sizeof(*envp));
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(environ[i], SIM_TOKEN_VAR, len) && environ[i][len] == '=')
			continue;
		envp[k++] = xstrdup(environ[i]);
	}
	envp[k] = xasprintf("%s=%s", SIM_TOKEN_VAR, token);
	return envp;
}

void sim_env_free(char **envp)
{
	if (!envp)
		return;
	for (char **p = envp; *p; p++)
		free(*p);
	free(envp);
}

static bool read_proc(pid_t pid, const char *what, struct strbuf *out)
{
	char *path = xasprintf("/proc/%d/%s", (int)pid, what);
	struct err e = ERR_INIT;
	int ret = simfs_read(path, out, &e);

	free(path);
	err_clear(&e);
	return !ret;
}

/* Whether the NUL-framed environment block holds entry as a whole entry. */
static bool env_has(const struct strbuf *env, const char *entry)
{
	size_t len = strlen(entry);

	for (const char *p = env->buf; (p = memmem(p, env->len - (size_t)(p - env->buf), entry, len));
	     p++)
		if (p[-1] == '\0' && p[len] == '\0')
			return true;
	return false;
}

size_t sim_env_pids(const char *const *entries, pid_t **ret)
{
	struct strbuf env = STRBUF_INIT;
	pid_t *pids = NULL;
	size_t n = 0, alloc = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		bool all = true;

		if (*end || pid <= 0 || pid == getpid())
			continue;
		/* Framed by NULs on both sides so that every entry, the first
		 * and the last included, matches only as a whole. */
		strbuf_reset(&env);
		strbuf_addch(&env, '\0');
		if (!read_proc((pid_t)pid, "environ", &env))
			continue;
		strbuf_addch(&env, '\0');
		for (const char *const *e = entries; all && *e; e++)
			all = env_has(&env, *e);
		if (!all)
			continue;
		ALLOC_GROW(pids, n + 1, alloc);
		pids[n++] = (pid_t)pid;
	}
	if (d)
		closedir(d);
	strbuf_release(&env);
	*ret = pids;
	return n;
}

size_t sim_token_pids(const char *token, pid_t **ret)
{
	char *entry = xasprintf("%s=%s", SIM_TOKEN_VAR, token);
	const char *entries[] = { entry, NULL };
	size_t n = sim_env_pids(entries, ret);

	free(entry);
	return n;
}

bool sim_pid_matches(pid_t pid, const char *needle)
{
	struct strbuf cmd = STRBUF_INIT;
	bool ok;

	/* A zombie has an empty command line: it counts as gone. */
	ok = read_proc(pid, "cmdline", &cmd) && cmd.len;
	for (size_t i = 0; ok && i < cmd.len; i++)
		if (!cmd.buf[i])
			cmd.buf[i] = ' ';
	ok = ok && strstr(cmd.buf, needle);
	strbuf_release(&cmd);
	return ok;
}

pid_t sim_pidfile_live(const char *pidfile, const char *needle)
{
	struct strbuf sb = STRBUF_INIT;
	struct err e = ERR_INIT;
	long pid = 0;

	if (!simfs_read(pidfile, &sb, &e))
		pid = strtol(sb.buf, NULL, 10);
	strbuf_release(&sb);
	err_clear(&e);
	if (pid <= 0 || !sim_pid_matches((pid_t)pid, needle))
		return 0;
	return (pid_t)pid;
}

/*
 * What runs of a simulated cluster: finding its processes (sshd pid files and
 * the dir's token in /proc/PID/environ), stopping them (sim down), per-node
 * status and faults, and starting the nodes' sshd (sim up and a node's
 * restart both use it). Creating a cluster is sim/sim.c.
 */
#include "sim.h"
#include "sim-int.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../engine/base/xalloc.h"

extern char **environ;

#define STOP_GRACE_MS 2000
#define SSHD_PARALLEL 32
#define START_WAIT_MS 5000

/* ---- finding and stopping what a cluster started ---- */

struct pidset {
	pid_t *v;
	size_t n, alloc;
};

static void pidset_add(struct pidset *ps, pid_t pid)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i] == pid)
			return;
	ALLOC_GROW(ps->v, ps->n + 1, ps->alloc);
	ps->v[ps->n++] = pid;
}

static pid_t node_sshd_pid(const char *node_dir)
{
	char *pidfile = xasprintf("%s/sshd.pid", node_dir);
	char *cfg = xasprintf("%s/sshd_config", node_dir);
	pid_t pid = sim_pidfile_live(pidfile, cfg);

	free(pidfile);
	free(cfg);
	return pid;
}

/* Every live process of the cluster in dir: the nodes' sshds (found through
 * their pid files, checked against their command lines so that a recycled
 * pid is never hit) and whatever carries the dir's token. */
static void collect_pids(const char *dir, const char *token, struct pidset *ps)
{
	char *nodes = xasprintf("%s/nodes", dir);
	DIR *d = opendir(nodes);
	struct dirent *de;

	ps->n = 0;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *nd = xasprintf("%s/%s", nodes, de->d_name);
		pid_t pid = node_sshd_pid(nd);

		if (pid)
			pidset_add(ps, pid);
		free(nd);
	}
	if (d)
		closedir(d);
	free(nodes);
	if (token) {
		pid_t *v;
		size_t n = sim_token_pids(token, &v);

		for (size_t i = 0; i < n; i++)
			pidset_add(ps, v[i]);
		free(v);
	}
}

bool sim_running(const char *dir)
{
	char *token = sim_read_token(dir);
	struct pidset ps = { 0 };

	collect_pids(dir, token, &ps);
	free(token);
	free(ps.v);
	return ps.n > 0;
}

static unsigned signal_all(const struct pidset *ps, int sig)
{
	unsigned n = 0;

	for (size_t i = 0; i < ps->n; i++)
		if (!kill(ps->v[i], sig)) {
			n++;
			/* A rebooting node's sshd is stopped (sim-boot): let TERM reach it. */
			if (sig == SIGTERM)
				kill(ps->v[i], SIGCONT);
		}
	return n;
}

/* Polls until nothing of the cluster is left or ms have passed. */
static bool wait_gone(const char *dir, const char *token, struct pidset *ps, unsigned ms)
{
	for (unsigned waited = 0;; waited += 20) {
		collect_pids(dir, token, ps);
		if (!ps->n)
			return true;
		if (waited >= ms)
			return false;
		sim_sleep_ms(20);
	}
}

int sim_down(const char *dir, unsigned *ret_stopped, struct err *err)
{
	char *token = sim_read_token(dir);
	struct pidset ps = { 0 };
	unsigned stopped = 0;
	int ret = 0;

	/* Rounds, because a dying session can still hand a new connection to
	 * a child; each round starts politely and ends with KILL. */
	for (int round = 0; round < 3; round++) {
		collect_pids(dir, token, &ps);
		if (!ps.n)
			break;
		stopped += signal_all(&ps, SIGTERM);
		if (wait_gone(dir, token, &ps, STOP_GRACE_MS))
			break;
		signal_all(&ps, SIGKILL);
		if (wait_gone(dir, token, &ps, STOP_GRACE_MS))
			break;
	}
	if (ps.n)
		ret = err_set(err, ERR_STATE, "%zu process(es) of the cluster in %s survived KILL "
			      "(first: pid %d)", ps.n, dir, (int)ps.v[0]);
	if (ret_stopped)
		*ret_stopped = stopped;
	free(ps.v);
	free(token);
	return ret;
}

pid_t sim_node_sshd_pid(const struct sim *s, unsigned i)
{
	return node_sshd_pid(s->nodes[i].dir);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void sim_node_faults(const struct sim *s, unsigned i, struct strlist *out)
{
	char *fdir = xasprintf("%s/faults", s->nodes[i].dir);
	DIR *d = opendir(fdir);
	struct dirent *de;
	size_t first = out->n;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *path = xasprintf("%s/%s", fdir, de->d_name);
		struct strbuf arg = STRBUF_INIT;
		struct err e = ERR_INIT;

		simfs_read(path, &arg, &e);
		strbuf_rtrim(&arg);
		if (arg.len && !strchr(arg.buf, '\n'))
			strlist_push_owned(out, xasprintf("%s=%s", de->d_name, arg.buf));
		else
			strlist_push(out, de->d_name);
		strbuf_release(&arg);
		err_clear(&e);
		free(path);
	}
	if (d)
		closedir(d);
	free(fdir);
	if (out->n > first)
		qsort(out->v + first, out->n - first, sizeof(*out->v), cmp_str);
}

/* ---- faults ---- */

static int list_fault_kinds(const struct sim *s, struct strlist *out, struct err *err)
{
	char *tool = xasprintf("%s/bin/sim-fault", s->dir);
	char *argv[] = { tool, "--list", NULL };
	struct sim_job j;
	int ret;

	sim_job_init(&j, argv);
	ret = sim_jobs_run(&j, 1, 1, environ, err);
	if (!ret && j.status)
		ret = err_set(err, ERR_STATE, "%s --list failed (exit %d): %s", tool, j.status,
			      sim_job_last_line(&j));
	for (char *line = j.out.buf; !ret && *line;) {
		size_t len = strcspn(line, "\n");

		if (len) {
			char *kind = xstrndup(line, len);

			if (strlist_index(out, kind) < 0)
				strlist_push_owned(out, kind);
			else
				free(kind);
		}
		line += len + (line[len] == '\n');
	}
	sim_job_release(&j);
	free(tool);
	return ret;
}

int sim_fault_kinds(const struct sim *s, struct strlist *out, struct err *err)
{
	strlist_push(out, "unreachable");
	strlist_push(out, "clear");
	return list_fault_kinds(s, out, err);
}

static void join_list(struct strbuf *sb, const struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		strbuf_addf(sb, "%s%s", i ? " " : "", l->v[i]);
}

static int run_sim_fault(const struct sim *s, unsigned i, const char *kind, const char *arg,
			 struct err *err)
{
	char *tool = xasprintf("%s/bin/sim-fault", s->dir);
	char *cluster = xasprintf("%s/cluster", s->dir);
	char *argv[] = { tool, s->nodes[i].dir, cluster, (char *)kind, (char *)arg, NULL };
	char **envp = sim_env_with_token(s->token ? s->token : "none");
	struct sim_job j;
	int ret;

	sim_job_init(&j, argv);
	ret = sim_jobs_run(&j, 1, 1, envp, err);
	if (!ret && j.status)
		ret = err_set(err, j.status == 2 ? ERR_USAGE : ERR_STATE,
			      "sim-fault %s on %s failed (exit %d): %s", kind, s->nodes[i].name,
			      j.status, sim_job_last_line(&j));
	sim_job_release(&j);
	sim_env_free(envp);
	free(tool);
	free(cluster);
	return ret;
}

static int stop_node_sshd(const struct sim *s, unsigned i, struct err *err)
{
	pid_t pid = sim_node_sshd_pid(s, i);

	for (unsigned waited = 0; pid; waited += 20) {
		if (waited == 0) {
			kill(pid, SIGTERM);
			kill(pid, SIGCONT);
		}
		else if (waited == STOP_GRACE_MS)
			kill(pid, SIGKILL);
		else if (waited > 2 * STOP_GRACE_MS)
			return err_set(err, ERR_STATE, "sshd of %s (pid %d) does not stop",
				       s->nodes[i].name, (int)pid);
		sim_sleep_ms(20);
		pid = sim_node_sshd_pid(s, i);
	}
	return 0;
}

static int start_node_sshd(const struct sim *s, unsigned i, struct err *err)
{
	char **envp = sim_env_with_token(s->token ? s->token : "none");
	bool bind_failed;
	pid_t pid = sim_node_sshd_pid(s, i);
	int ret = 0;

	/* Stopped by sim-boot for a reboot that hangs (boot-hang): it goes on. */
	if (pid)
		kill(pid, SIGCONT);
	else
		ret = sim_start_sshds(s, &i, 1, envp, &bind_failed, err);
	sim_env_free(envp);
	return ret;
}

static int record_fault(const struct sim *s, unsigned i, const char *kind, const char *arg,
			struct err *err)
{
	char *path = xasprintf("%s/faults/%s", s->nodes[i].dir, kind);
	char *text = arg ? xasprintf("%s\n", arg) : xstrdup("");
	int ret = simfs_write(path, text, strlen(text), 0644, err);

	free(path);
	free(text);
	return ret;
}

/* `clear` alone clears everything; `clear KIND` just that one. */
/*
 * Ends the sleeps sim-shell runs for hang and slow. They run before the
 * namespace, so they still carry the node's host-side BRINGUP_SIM_NODE
 * (inside, the variable points at /run/bringup-sim/node): commands already
 * inside the node are never hit. A slow command then goes on at once.
 */
static void wake_sleepers(const struct sim *s, unsigned i)
{
	char *tok = xasprintf("%s=%s", SIM_TOKEN_VAR, s->token ? s->token : "");
	char *node = xasprintf("BRINGUP_SIM_NODE=%s", s->nodes[i].dir);
	const char *entries[] = { tok, node, NULL };
	pid_t *pids;
	size_t n = sim_env_pids(entries, &pids);

	for (size_t k = 0; k < n; k++)
		if (sim_pid_matches(pids[k], "sleep "))
			kill(pids[k], SIGTERM);
	free(pids);
	free(tok);
	free(node);
}

/*
 * D/cluster/unreachable/NAME: the node seen as unreachable from the other
 * nodes, whose namespaces do not show its faults/ (mmaddnode on another node
 * then lists it as not added). sim-fault writes it for peer-ssh-denied too.
 */
static char *unreachable_mark(const struct sim *s, unsigned i)
{
	return xasprintf("%s/cluster/unreachable/%s", s->dir, s->nodes[i].name);
}

static int clear_faults(const struct sim *s, unsigned i, const char *arg, struct err *err)
{
	char *path = xasprintf("%s/faults/unreachable", s->nodes[i].dir);
	char *mark = unreachable_mark(s, i);
	int ret = run_sim_fault(s, i, "clear", arg, err);

	if (!ret && (!arg || !strcmp(arg, "hang") || !strcmp(arg, "slow")))
		wake_sleepers(s, i);
	/* boot-hang kept a rebooted node's sshd down: clearing it finishes the boot. */
	if (arg && strcmp(arg, "unreachable") && strcmp(arg, "boot-hang"))
		goto out;
	if (!ret && (!arg || !strcmp(arg, "unreachable")) && unlink(path) && errno != ENOENT)
		ret = err_set(err, ERR_IO, "cannot remove %s: %s", path, strerror(errno));
	/* the mark is the unreachable fault's (or peer-ssh-denied's, which
	 * sim-fault cleared above together with its own) */
	if (!ret && (!arg || !strcmp(arg, "unreachable")) && unlink(mark) && errno != ENOENT)
		ret = err_set(err, ERR_IO, "cannot remove %s: %s", mark, strerror(errno));
	if (!ret)
		ret = start_node_sshd(s, i, err);
out:
	free(path);
	free(mark);
	return ret;
}

int sim_fault(const struct sim *s, const char *name, const char *kind, const char *arg,
	      struct err *err)
{
	struct strlist kinds = STRLIST_INIT;
	struct strbuf sb = STRBUF_INIT;
	int i = sim_node_find(s, name), ret;

	if (i < 0) {
		sim_add_nodeset(&sb, s, 0, s->n - 1);
		if (s->with_switch)
			strbuf_addf(&sb, ",%s", s->nodes[s->n].name);
		ret = err_set(err, ERR_USAGE, "unknown node '%s' (nodes: %s)", name, sb.buf);
		goto out;
	}
	if (!strcmp(kind, "unreachable")) {
		char *dir = xasprintf("%s/cluster/unreachable", s->dir);
		char *mark = unreachable_mark(s, (unsigned)i);

		ret = record_fault(s, (unsigned)i, kind, arg, err);
		if (!ret)
			ret = simfs_mkdirs(dir, 0755, err);
		if (!ret)
			ret = simfs_write(mark, "unreachable\n", 12, 0644, err);
		free(dir);
		free(mark);
		if (!ret)
			ret = stop_node_sshd(s, (unsigned)i, err);
		goto out;
	}
	if (!strcmp(kind, "clear")) {
		ret = clear_faults(s, (unsigned)i, arg, err);
		goto out;
	}
	ret = sim_fault_kinds(s, &kinds, err);
	if (ret)
		goto out;
	if (strlist_index(&kinds, kind) < 0) {
		join_list(&sb, &kinds);
		ret = err_set(err, ERR_USAGE, "unknown fault kind '%s' (kinds: %s)", kind, sb.buf);
		goto out;
	}
	ret = run_sim_fault(s, (unsigned)i, kind, arg, err);
out:
	strlist_clear(&kinds);
	strbuf_release(&sb);
	return ret;
}

/* ---- starting the nodes' sshd ---- */

char *sim_read_token(const char *dir)
{
	char *path = xasprintf("%s/token", dir);
	struct strbuf sb = STRBUF_INIT;
	struct err e = ERR_INIT;

	if (simfs_read(path, &sb, &e))
		strbuf_reset(&sb);
	strbuf_rtrim(&sb);
	free(path);
	err_clear(&e);
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* sshd -E sends even its startup errors to the log: the last line written
 * past offset `from` (it appends) says why a start failed. */
static void log_last_line(const char *log, off_t from, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	struct err e = ERR_INIT;

	if (!simfs_read(log, &sb, &e) && (size_t)from <= sb.len) {
		strbuf_rtrim(&sb);
		const char *start = sb.buf + from, *nl = strrchr(start, '\n');

		strbuf_addstr(out, nl ? nl + 1 : start);
	}
	strbuf_release(&sb);
	err_clear(&e);
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_size;
}

/*
 * Waits until the sshd of node i has written its pid file, which it does once
 * its socket is bound, so the node accepts connections when this returns.
 * A bind failure (another cluster won the port) sets *ret_bind_failed.
 */
static int wait_sshd(const struct sim *s, unsigned i, const char *log, off_t from,
		     bool *ret_bind_failed, struct err *err)
{
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	for (unsigned waited = 0; !sim_node_sshd_pid(s, i); waited += 10) {
		strbuf_reset(&why);
		log_last_line(log, from, &why);
		if (strstr(why.buf, "Cannot bind any address")) {
			*ret_bind_failed = true;
			ret = err_set(err, ERR_STATE, "sshd of %s: %s", s->nodes[i].name, why.buf);
			break;
		}
		if (waited >= START_WAIT_MS) {
			ret = err_set(err, ERR_TIMEOUT, "sshd of %s did not start: %s (see %s)",
				      s->nodes[i].name, why.len ? why.buf : "no pid file", log);
			break;
		}
		sim_sleep_ms(10);
	}
	strbuf_release(&why);
	return ret;
}

int sim_start_sshds(const struct sim *s, const unsigned *idx, unsigned n, char *const *envp,
		       bool *ret_bind_failed, struct err *err)
{
	const char *sshd = sim_sshd_binary();
	char **argvs = xcalloc((size_t)n * 6, sizeof(*argvs));
	char **paths = xcalloc((size_t)n * 2, sizeof(*paths));
	off_t *logpos = xcalloc(n, sizeof(*logpos));
	struct sim_job *jobs = xcalloc(n, sizeof(*jobs));
	int ret = 0;

	*ret_bind_failed = false;
	if (!sshd) {
		ret = err_set(err, ERR_NOTFOUND, "no sshd found (looked in /usr/sbin, "
			      "/usr/local/sbin, /sbin): install openssh-server");
		goto out;
	}
	/* sshd as root insists on its privilege separation directory. */
	if (!geteuid() && mkdir("/run/sshd", 0755) && errno != EEXIST) {
		ret = err_set(err, ERR_IO, "cannot create /run/sshd: %s", strerror(errno));
		goto out;
	}
	for (unsigned k = 0; k < n; k++) {
		char **argv = argvs + (size_t)k * 6;
		const char *nd = s->nodes[idx[k]].dir;

		paths[2 * k] = xasprintf("%s/sshd_config", nd);
		paths[2 * k + 1] = xasprintf("%s/sshd.log", nd);
		logpos[k] = file_size(paths[2 * k + 1]);
		argv[0] = (char *)sshd;
		argv[1] = "-f";
		argv[2] = paths[2 * k];
		argv[3] = "-E";
		argv[4] = paths[2 * k + 1];
		sim_job_init(&jobs[k], argv);
	}
	ret = sim_jobs_run(jobs, n, SSHD_PARALLEL, envp, err);
	for (unsigned k = 0; !ret && k < n; k++) {
		if (!jobs[k].status)
			continue;
		struct strbuf why = STRBUF_INIT;

		log_last_line(paths[2 * k + 1], logpos[k], &why);
		ret = err_set(err, ERR_STATE, "sshd of %s failed to start (exit %d): %s",
			      s->nodes[idx[k]].name, jobs[k].status,
			      why.len ? why.buf : sim_job_last_line(&jobs[k]));
		strbuf_release(&why);
	}
	for (unsigned k = 0; !ret && k < n; k++)
		ret = wait_sshd(s, idx[k], paths[2 * k + 1], logpos[k], ret_bind_failed, err);
out:
	for (unsigned k = 0; k < n; k++) {
		sim_job_release(&jobs[k]);
		free(paths[2 * k]);
		free(paths[2 * k + 1]);
	}
	free(jobs);
	free(paths);
	free(logpos);
	free(argvs);
	return ret;
}

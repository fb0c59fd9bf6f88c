/*
 * Run directories, command logs and redaction; see runlog.h.
 */
#include "runlog.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct runlog {
	char *dir;
	struct redactor *red;
};

char *state_dir_default(const char *cluster)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return xasprintf("%s/bringup/%s", xdg, cluster);
	return xasprintf("%s/.local/state/bringup/%s", home && *home ? home : ".", cluster);
}

char *run_id_new(void)
{
	struct timespec ts;
	struct tm tm;
	char buf[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
	return xasprintf("%s-%ld", buf, (long)getpid());
}

int mkdir_p(const char *path, struct err *err)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; ; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0700) && errno != EEXIST) {
			rc = err_set(err, ERR_IO, "cannot create %s: %s", p, strerror(errno));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}

int run_mark_last(const char *state_dir, const char *run_id, struct err *err)
{
	char *target = xasprintf("runs/%s", run_id);
	char *tmp = xasprintf("%s/.last.%ld", state_dir, (long)getpid());
	char *last = xasprintf("%s/last", state_dir);
	int rc = 0;

	unlink(tmp);
	if (symlink(target, tmp) || rename(tmp, last)) {
		rc = err_set(err, ERR_IO, "cannot update %s: %s", last, strerror(errno));
		unlink(tmp);
	}
	free(target);
	free(tmp);
	free(last);
	return rc;
}

bool run_id_valid(const char *id)
{
	size_t n = strlen(id);

	return n && n <= 64 && id[0] != '.' &&
	       strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

void run_discard(const char *state_dir, const char *run_id, const char *prior_id)
{
	char *dir = xasprintf("%s/runs/%s", state_dir, run_id);
	char *journal = xasprintf("%s/journal.json", dir);
	char *last = xasprintf("%s/last", state_dir);
	struct err err = ERR_INIT;

	if (prior_id)
		run_mark_last(state_dir, prior_id, &err);
	else
		unlink(last);
	unlink(journal);
	rmdir(dir);
	free(dir);
	dir = xasprintf("%s/runs", state_dir);
	rmdir(dir); /* when it was the first */
	err_clear(&err);
	free(last);
	free(journal);
	free(dir);
}

int run_lock(const char *state_dir, int *ret_fd, struct err *err)
{
	char *path = xasprintf("%s/lock", state_dir);
	char pid[32] = "";
	int fd, rc = 0;
	ssize_t n;

	*ret_fd = -1;
	if ((rc = mkdir_p(state_dir, err)))
		goto out;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = err_set(err, ERR_IO, "cannot open %s: %s", path, strerror(errno));
		goto out;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		n = read(fd, pid, sizeof(pid) - 1);
		pid[n > 0 ? strcspn(pid, "\n") : 0] = '\0';
		rc = err_set(err, ERR_STATE, "another bringup deploy is running on this cluster "
			     "(pid %s, lock %s): wait for it, or stop it and use --resume",
			     *pid ? pid : "?", path);
		close(fd);
		goto out;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || write(fd, pid, (size_t)n) != n) {
		/* The pid is only for the message above; the lock is what counts. */
	}
	*ret_fd = fd;
out:
	free(path);
	return rc;
}

int run_last(const char *state_dir, char **ret_id, struct err *err)
{
	char *last = xasprintf("%s/last", state_dir);
	char buf[PATH_MAX];
	ssize_t n = readlink(last, buf, sizeof(buf) - 1);
	const char *id;
	int rc = 0;

	if (n < 0) {
		rc = err_set(err, ERR_NOTFOUND, "no earlier run under %s", state_dir);
	} else {
		buf[n] = '\0';
		id = strrchr(buf, '/');
		*ret_id = xstrdup(id ? id + 1 : buf);
	}
	free(last);
	return rc;
}

int runlog_open(const char *run_dir, struct runlog **ret, struct err *err)
{
	char *hosts = xasprintf("%s/hosts", run_dir);
	int rc = mkdir_p(hosts, err);

	free(hosts);
	if (rc)
		return rc;
	*ret = xcalloc(1, sizeof(**ret));
	(*ret)->dir = xstrdup(run_dir);
	(*ret)->red = redactor_new();
	return 0;
}

void runlog_free(struct runlog *rl)
{
	if (!rl)
		return;
	redactor_free(rl->red);
	free(rl->dir);
	free(rl);
}

const char *runlog_dir(const struct runlog *rl)
{
	return rl->dir;
}

void runlog_add_secret(struct runlog *rl, const char *secret)
{
	redactor_add(rl->red, secret);
}

void runlog_add_secrets_from(struct runlog *rl, const json_t *vars)
{
	redactor_add_vars(rl->red, vars);
}

const struct redactor *runlog_redactor(const struct runlog *rl)
{
	return rl ? rl->red : NULL;
}

void runlog_redact(const struct runlog *rl, const char *s, size_t len, struct strbuf *out)
{
	redact_into(rl->red, s, len, out);
}

static void add_stream(const struct runlog *rl, struct strbuf *sb, const char *name,
		       const struct strbuf *data, bool truncated)
{
	if (!data->len)
		return;
	strbuf_addf(sb, "--- %s%s\n", name, truncated ? " (truncated)" : "");
	runlog_redact(rl, data->buf, data->len, sb);
	if (data->buf[data->len - 1] != '\n')
		strbuf_addch(sb, '\n');
}

static const char *outcome_text(const struct cmd_result *res, char *buf, size_t n)
{
	switch (res->outcome) {
	case CMD_EXITED:
		snprintf(buf, n, "exit %d", res->exit_status);
		return buf;
	case CMD_TIMED_OUT:
		return "timed out";
	case CMD_KILLED:
		return "killed by a signal";
	case CMD_CANCELLED:
		return "cancelled (interrupted)";
	default:
		return "connection lost";
	}
}

static void append(struct runlog *rl, const char *host, const struct strbuf *sb)
{
	char *path = xasprintf("%s/hosts/%s.log", rl->dir, host);
	/* One write per record with O_APPEND: records never interleave. */
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

	if (fd >= 0) {
		if (write(fd, sb->buf, sb->len) < 0) {
			/* A log that cannot be written must not fail the run. */
		}
		close(fd);
	}
	free(path);
}

static void header(const struct runlog *rl, struct strbuf *sb, const char *host,
		   const char *stage, const char *what)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	strbuf_addf(sb, "=== %s %s %s\n$ ", stamp, stage, host);
	runlog_redact(rl, what, strlen(what), sb);
	strbuf_addch(sb, '\n');
}

void runlog_command(struct runlog *rl, const char *host, const char *stage,
		    const char *command, const struct cmd_result *res,
		    const char *errmsg)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[32];

	header(rl, &sb, host, stage, command);
	if (res) {
		strbuf_addf(&sb, "%s in %.3f s\n", outcome_text(res, buf, sizeof(buf)),
			    res->duration_s);
		/* A stopped command is killed on the host: say whether it worked. */
		if (res->reap != REAP_NONE)
			strbuf_addf(&sb, "remote process group %ld: %s\n", res->remote_pgid,
				    cmd_reap_text(res->reap));
		add_stream(rl, &sb, "stdout", &res->out, res->out_truncated);
		add_stream(rl, &sb, "stderr", &res->err, res->err_truncated);
	} else {
		strbuf_addstr(&sb, "not run: ");
		runlog_redact(rl, errmsg ? errmsg : "", errmsg ? strlen(errmsg) : 0, &sb);
		strbuf_addch(&sb, '\n');
	}
	append(rl, host, &sb);
	strbuf_release(&sb);
}

void runlog_action(struct runlog *rl, const char *host, const char *stage,
		   const char *what, const char *result)
{
	struct strbuf sb = STRBUF_INIT;

	header(rl, &sb, host, stage, what);
	runlog_redact(rl, result, strlen(result), &sb);
	strbuf_addch(&sb, '\n');
	append(rl, host, &sb);
	strbuf_release(&sb);
}

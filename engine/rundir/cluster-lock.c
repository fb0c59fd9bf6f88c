/*
 * The cluster lock: leases on the nodes (see cluster-lock.h), taken,
 * refreshed and given back by templates/engine/cluster-lock.sh over a
 * runner of its own, so that the lock never shares a session with the run's
 * own work (a session is one thread's at a time) and its refreshes go on
 * while a stage holds every host.
 */
#include "cluster-lock.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/nodeset.h"
#include "../base/strbuf.h"
#include "../base/template.h"
#include "../base/xalloc.h"

#define LOCK_TEMPLATE "engine/cluster-lock.sh"
#define LOCK_CMD_TIMEOUT_MS 30000

struct cluster_lock {
	const struct inventory *inv;
	struct runner *r;
	char *run_id;
	char client[256];
	char pid[24], pstart[32];
	unsigned timeout_ms; /* per lock command: a hung host costs no more */
	size_t *hosts;       /* the hosts whose lease we hold */
	size_t nhosts;
	pthread_t thread;
	bool thread_started, stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

struct lock_job {
	const struct cluster_lock *cl;
	size_t host;
	const char *op, *over;
	struct strbuf line;  /* the script's answer */
};

/* The start time of a process in clock ticks since boot (field 22 of
 * /proc/PID/stat), which tells a live holder from a recycled pid; "" when
 * the process does not exist. */
static void proc_start(long pid, char *out, size_t size)
{
	char path[64], buf[1024];
	FILE *f;
	size_t n;

	*out = '\0';
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "r")))
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the command name (field 2) may hold spaces: count from its ')' */
	char *p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		snprintf(out, size, "%.*s", (int)strcspn(p + 1, " "), p + 1);
}

static int lock_task(struct task_ctx *t, void *arg)
{
	struct lock_job *j = arg;
	const struct cluster_lock *cl = j->cl;
	const char *script = template_get(LOCK_TEMPLATE, NULL);
	const char *argv[] = { "sh", "-s", "--", j->op, cl->inv->cluster_name, cl->run_id,
			       cl->client, cl->pid, cl->pstart, NULL, j->over ? j->over : "",
			       NULL };
	char ttl[16];
	struct strbuf line = STRBUF_INIT;
	struct cmd_result res;
	int ret;

	snprintf(ttl, sizeof(ttl), "%d", CLUSTER_LOCK_TTL_S);
	argv[9] = ttl;
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strbuf_addch(&line, ' ');
		strbuf_addshquoted(&line, argv[i]);
	}
	struct remote_cmd rc = { .command = line.buf, .input = script,
				 .input_len = strlen(script), .timeout_ms = cl->timeout_ms };

	cmd_result_init(&res);
	ret = task_exec(t, 0, &rc, &res, task_err(t));
	if (!ret && (res.outcome != CMD_EXITED || res.exit_status != 0))
		ret = err_set(task_err(t), ERR_REMOTE, "%s: the cluster lock's %s failed "
			      "(exit %d): %.200s", task_host(t, 0)->name, j->op, res.exit_status,
			      res.err.len ? res.err.buf : res.out.buf);
	if (!ret)
		strbuf_add(&j->line, res.out.buf, strcspn(res.out.buf, "\n"));
	cmd_result_release(&res);
	strbuf_release(&line);
	/* one round trip now and then: no session held between them */
	task_disconnect(t, 0);
	return ret;
}

/* Runs op on every host of `hosts`; jobs[i] and tasks[i] hold the answers. */
static void lock_round(struct cluster_lock *cl, const size_t *hosts, size_t n, const char *op,
		       const char *over, struct lock_job *jobs, struct task *tasks)
{
	for (size_t i = 0; i < n; i++) {
		jobs[i] = (struct lock_job){ cl, hosts[i], op, over, STRBUF_INIT };
		tasks[i] = (struct task){ .hosts = &jobs[i].host, .nhosts = 1, .fn = lock_task,
					  .arg = &jobs[i] };
	}
	runner_run(cl->r, tasks, n, NULL, NULL);
}

static void round_release(struct lock_job *jobs, struct task *tasks, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		strbuf_release(&jobs[i].line);
		task_release(&tasks[i]);
	}
}

/* A value of the lease line ("KEY=VALUE ..."), or "". */
static void lease_get(const char *line, const char *key, char *out, size_t size)
{
	size_t kl = strlen(key);

	*out = '\0';
	for (const char *p = line; (p = strstr(p, key)); p += kl)
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			p += kl + 1;
			snprintf(out, size, "%.*s", (int)strcspn(p, " "), p);
			return;
		}
}

/* True when the holder ran on this client host and its process is gone. */
static bool holder_dead_here(const struct cluster_lock *cl, const char *lease)
{
	char client[256], pid[24], pstart[32], now[32];

	lease_get(lease, "client", client, sizeof(client));
	lease_get(lease, "pid", pid, sizeof(pid));
	lease_get(lease, "pstart", pstart, sizeof(pstart));
	if (strcmp(client, cl->client) || !*pid)
		return false;
	proc_start(strtol(pid, NULL, 10), now, sizeof(now));
	return strcmp(now, pstart) != 0;
}

static void describe_holder(const char *lease, struct strbuf *sb)
{
	char run[128], client[256], pid[24], started[32], expires[32], now[32], when[32] = "?";
	time_t t;
	struct tm tm;

	lease_get(lease, "run", run, sizeof(run));
	lease_get(lease, "client", client, sizeof(client));
	lease_get(lease, "pid", pid, sizeof(pid));
	lease_get(lease, "started", started, sizeof(started));
	lease_get(lease, "expires", expires, sizeof(expires));
	lease_get(lease, "now", now, sizeof(now));
	t = (time_t)strtoll(started, NULL, 10);
	if (*started && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	strbuf_addf(sb, "run %s (client %s, pid %s, started %s; its lease expires in %lld s "
		    "unless it is still running)", *run ? run : "?", *client ? client : "?",
		    *pid ? pid : "?", when, strtoll(expires, NULL, 10) - strtoll(now, NULL, 10));
}

static void *refresher(void *arg)
{
	struct cluster_lock *cl = arg;
	struct timespec ts;

	pthread_mutex_lock(&cl->mu);
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += CLUSTER_LOCK_TTL_S / 3;
		while (!cl->stop && pthread_cond_timedwait(&cl->cv, &cl->mu, &ts) == 0)
			;
		if (cl->stop)
			break;
		pthread_mutex_unlock(&cl->mu);
		struct lock_job *jobs = xcalloc(cl->nhosts, sizeof(*jobs));
		struct task *tasks = xcalloc(cl->nhosts, sizeof(*tasks));

		/* best effort: a host that does not answer now is tried next time */
		lock_round(cl, cl->hosts, cl->nhosts, "refresh", NULL, jobs, tasks);
		round_release(jobs, tasks, cl->nhosts);
		free(jobs);
		free(tasks);
		pthread_mutex_lock(&cl->mu);
	}
	pthread_mutex_unlock(&cl->mu);
	return NULL;
}

static void give_back(struct cluster_lock *cl)
{
	if (!cl->nhosts)
		return;
	struct lock_job *jobs = xcalloc(cl->nhosts, sizeof(*jobs));
	struct task *tasks = xcalloc(cl->nhosts, sizeof(*tasks));

	lock_round(cl, cl->hosts, cl->nhosts, "release", NULL, jobs, tasks);
	round_release(jobs, tasks, cl->nhosts);
	free(jobs);
	free(tasks);
	cl->nhosts = 0;
}

void cluster_lock_release(struct cluster_lock *cl)
{
	if (!cl)
		return;
	if (cl->thread_started) {
		pthread_mutex_lock(&cl->mu);
		cl->stop = true;
		pthread_cond_signal(&cl->cv);
		pthread_mutex_unlock(&cl->mu);
		pthread_join(cl->thread, NULL);
	}
	give_back(cl);
	runner_free(cl->r);
	pthread_mutex_destroy(&cl->mu);
	pthread_cond_destroy(&cl->cv);
	free(cl->hosts);
	free(cl->run_id);
	free(cl);
}

/*
 * Looks at the answers of a take round: hosts taken go to cl->hosts; hosts
 * held by a dead holder of this client go to retry (with that run in
 * *ret_over); a live holder is described in `held` (hosts named).
 */
static void sort_answers(struct cluster_lock *cl, struct lock_job *jobs, struct task *tasks,
			 size_t n, struct strbuf *notes, size_t *retry, size_t *nretry,
			 char *over, size_t over_size, struct strbuf *held)
{
	struct strbuf who = STRBUF_INIT;
	char **taken = xcalloc(n + 1, sizeof(*taken)), over_note[128] = "";
	char **held_on = xcalloc(n + 1, sizeof(*held_on));
	size_t ntaken = 0, nheld = 0;

	for (size_t i = 0; i < n; i++) {
		const char *line = jobs[i].line.buf ? jobs[i].line.buf : "";
		const char *name = cl->inv->hosts[jobs[i].host].name;

		if (tasks[i].rc) /* unreachable or no answer: nothing will run there */
			continue;
		if (!strncmp(line, "TAKEN", 5)) {
			cl->hosts[cl->nhosts++] = jobs[i].host;
			char run[128];

			lease_get(line + 5, "run", run, sizeof(run));
			if (*run && strcmp(run, cl->run_id)) {
				if (!*over_note)
					snprintf(over_note, sizeof(over_note), "%s", run);
				taken[ntaken++] = (char *)name;
			}
		} else if (!strncmp(line, "HELD", 4) && holder_dead_here(cl, line + 4)) {
			/* the second round takes over the first dead run found; one
			 * of another dead run is held again and reported then */
			if (!*over)
				lease_get(line + 4, "run", over, over_size);
			retry[(*nretry)++] = jobs[i].host;
		} else {
			if (!who.len)
				describe_holder(line + 4, &who);
			held_on[nheld++] = (char *)name;
		}
	}
	if (who.len) {
		char *set = nodeset_fold(held_on, nheld);

		strbuf_addf(held, "cluster '%s' is locked by %s on %s", cl->inv->cluster_name,
			    who.buf, set);
		free(set);
	}
	free(held_on);
	/* one line for a thousand hosts: their names folded (dgx[001-999]) */
	if (notes && ntaken) {
		char *set = nodeset_fold(taken, ntaken);

		strbuf_addf(notes, "took over the cluster lock of run %s (expired, or its client "
			    "is gone) on %s\n", over_note, set);
		free(set);
	}
	free(taken);
	strbuf_release(&who);
}

int cluster_lock_take(const struct inventory *inv, const char *run_id,
		      const struct runner_opts *ro, struct strbuf *notes,
		      struct cluster_lock **ret, struct err *err)
{
	struct cluster_lock *cl = xcalloc(1, sizeof(*cl));
	struct runner_opts o = *ro;
	struct strbuf held = STRBUF_INIT;
	size_t *todo = xcalloc(inv->nhosts + 1, sizeof(*todo)), n = 0, nretry = 0;
	size_t *retry = xcalloc(inv->nhosts + 1, sizeof(*retry));
	struct lock_job *jobs = xcalloc(inv->nhosts + 1, sizeof(*jobs));
	struct task *tasks = xcalloc(inv->nhosts + 1, sizeof(*tasks));
	char over[128] = "";
	int rc;

	*ret = NULL;
	cl->inv = inv;
	cl->run_id = xstrdup(run_id);
	pthread_mutex_init(&cl->mu, NULL);
	pthread_cond_init(&cl->cv, NULL);
	if (gethostname(cl->client, sizeof(cl->client) - 1) || !*cl->client)
		snprintf(cl->client, sizeof(cl->client), "unknown");
	/* the lease is parsed by words */
	for (char *p = cl->client; *p; p++)
		if (*p == ' ' || *p == '=' || *p < 0x21)
			*p = '_';
	snprintf(cl->pid, sizeof(cl->pid), "%ld", (long)getpid());
	proc_start(getpid(), cl->pstart, sizeof(cl->pstart));
	cl->hosts = xcalloc(inv->nhosts + 1, sizeof(*cl->hosts));
	/* the run's own --timeout, when shorter, bounds a hung host's take too */
	cl->timeout_ms = LOCK_CMD_TIMEOUT_MS;
	if (ro->command_timeout_s && ro->command_timeout_s * 1000u < cl->timeout_ms)
		cl->timeout_ms = ro->command_timeout_s * 1000u;
	/* a lock is not worth a host's cancel semantics: short commands, own limit */
	o.cancel_stops_commands = true;
	o.run_timeout_s = 0;
	if (!o.forks || o.forks > 64)
		o.forks = 64;
	if ((rc = runner_new(inv, &o, &cl->r, err)))
		goto out;
	for (size_t h = 0; h < inv->nhosts; h++)
		if (!(inv->hosts[h].roles & (1u << ROLE_IB_SWITCH)))
			todo[n++] = h;
	lock_round(cl, todo, n, "take", NULL, jobs, tasks);
	sort_answers(cl, jobs, tasks, n, notes, retry, &nretry, over, sizeof(over), &held);
	round_release(jobs, tasks, n);
	if (!held.len && nretry) {
		/* holders of this client that are gone: take their leases over */
		lock_round(cl, retry, nretry, "take", over, jobs, tasks);
		size_t again = 0;

		sort_answers(cl, jobs, tasks, nretry, notes, retry, &again, over, sizeof(over),
			     &held);
		round_release(jobs, tasks, nretry);
		if (again && !held.len)
			strbuf_addf(&held, "cluster '%s' is locked by more than one dead run on "
				    "this client; run again", inv->cluster_name);
	}
	if (held.len) {
		rc = err_set(err, ERR_STATE, "%s: another deploy, upgrade or validate is running "
			     "on this cluster (from another state directory or client); nothing "
			     "was changed. Wait for it, or resume it from its own state directory",
			     held.buf);
		goto out;
	}
	if (pthread_create(&cl->thread, NULL, refresher, cl) == 0)
		cl->thread_started = true;
	*ret = cl;
	cl = NULL;
out:
	cluster_lock_release(cl);
	strbuf_release(&held);
	free(todo);
	free(retry);
	free(jobs);
	free(tasks);
	return rc;
}

/*
 * The runner: worker threads, per-host connections and locks, the event
 * queue to the caller's thread. The rules are written in runner.h.
 */
#include "runner.h"
#include "fdlimit.h"
#include "ssh-jump.h"
#include "../base/xalloc.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct host_slot {
	pthread_mutex_t lock;
	struct conn *conn;     /* NULL until first used */
	int conn_rc;           /* non-zero once connecting failed */
	struct err conn_err;   /* why, repeated to later tasks */
	struct jump *jump;     /* its proxy_jump, shared (r->jumps owns it); NULL: direct */
	struct conn_via via;   /* jump_via(jump), when jump is set */
	/* Under the runner's conn_lock: */
	unsigned long long last_used; /* LRU clock of the last task on conn */
	unsigned cost;         /* descriptors conn holds, counted in conn_fds */
	/* What the host's commands watch: set by runner_stop_host() (this
	 * host alone) or by a runner_cancel() that stops commands (all). */
	volatile sig_atomic_t stop;
};

struct queued_event {
	enum event_kind kind;
	size_t task;
	char *msg;
	double t;
};

struct runner {
	const struct inventory *inv;
	struct runner_opts opts;
	struct conn_opts copts;
	struct host_slot *slots;
	struct jump **jumps;   /* one per distinct jump host */
	size_t njumps;
	volatile sig_atomic_t cancelled;
	volatile sig_atomic_t stop_commands; /* what running commands watch */
	/* runner_pause(): tasks not yet started wait here (a cancel ends the wait). */
	pthread_mutex_t pause_lock;
	pthread_cond_t pause_cond;
	bool paused;

	/* Descriptors: connections are closed least recently used first when
	 * opening one more would pass conn_budget (see reserve_fds). */
	pthread_mutex_t conn_lock;
	unsigned fd_limit;     /* soft RLIMIT_NOFILE, raised to the hard one */
	size_t conn_budget;    /* descriptors connections may hold; per run */
	size_t conn_fds;       /* descriptors they hold now */
	unsigned long long use_clock;

	/* One run at a time. */
	struct task *tasks;
	size_t ntasks;
	atomic_size_t next;
	long long start_ms, deadline_ms;

	pthread_mutex_t qlock;
	pthread_cond_t qcond;
	struct queued_event *q;
	size_t qlen, qalloc;
	size_t done;
	void (*idle_fn)(void *arg); /* runner_on_idle */
	void *idle_arg;
};

struct task_ctx {
	struct runner *r;
	struct task *task;
	size_t index;
};

void task_release(struct task *t)
{
	err_clear(&t->err);
}

/*
 * "[user@]host[:port]", or the name of an inventory host. Returns 1 when the
 * host is its own jump host (a cluster-wide proxy_jump also covers the
 * bastion itself), which means: connect directly.
 */
static int resolve_jump(const struct inventory *inv, const struct host *h,
			struct ssh_target *ret, struct err *err)
{
	const char *spec = h->ssh.proxy_jump, *at, *colon;
	const struct host *jh = inventory_host(inv, spec);

	if (jh == h)
		return 1;
	if (jh) {
		if (jh->ssh.proxy_jump && inventory_host(inv, jh->ssh.proxy_jump) != jh)
			return err_set(err, ERR_INVENTORY,
				       "host %s: jump host %s must be reachable directly "
				       "(chained jumps are not supported)", h->name, spec);
		ret->address = xstrdup(jh->ssh.address);
		ret->user = xstrdup(jh->ssh.user);
		ret->key_file = jh->ssh.key_file ? xstrdup(jh->ssh.key_file) : NULL;
		ret->port = jh->ssh.port;
		ret->proxy_jump = NULL;
		return 0;
	}
	memset(ret, 0, sizeof(*ret));
	at = strchr(spec, '@');
	ret->user = at ? xstrndup(spec, (size_t)(at - spec)) : xstrdup(h->ssh.user);
	spec = at ? at + 1 : spec;
	colon = strrchr(spec, ':');
	if (colon && !strchr(colon, ']')) {
		ret->address = xstrndup(spec, (size_t)(colon - spec));
		ret->port = (unsigned)atoi(colon + 1);
	} else {
		ret->address = xstrdup(spec);
		ret->port = 22;
	}
	ret->key_file = h->ssh.key_file ? xstrdup(h->ssh.key_file) : NULL;
	if (!ret->port || ret->port > 65535)
		return err_set(err, ERR_INVENTORY, "host %s: bad proxy_jump '%s'",
			       h->name, h->ssh.proxy_jump);
	return 0;
}

static void free_target(struct ssh_target *t)
{
	free(t->address);
	free(t->user);
	free(t->key_file);
}

int runner_new(const struct inventory *inv, const struct runner_opts *o,
	       struct runner **ret, struct err *err)
{
	struct runner *r = xcalloc(1, sizeof(*r));

	r->inv = inv;
	r->opts = *o;
	if (!r->opts.forks)
		r->opts.forks = RUNNER_DEFAULT_FORKS;
	if (!r->opts.command_timeout_s)
		r->opts.command_timeout_s = inv->command_timeout_s;
	r->copts.known_hosts = inv->known_hosts;
	r->copts.accept_new_host_keys = o->accept_new_host_keys;
	r->copts.connect_timeout_ms = inv->connect_timeout_s * 1000;
	r->slots = xcalloc(inv->nhosts ? inv->nhosts : 1, sizeof(*r->slots));
	r->fd_limit = fd_limit_raise();
	pthread_mutex_init(&r->conn_lock, NULL);
	pthread_mutex_init(&r->qlock, NULL);
	pthread_cond_init(&r->qcond, NULL);
	pthread_mutex_init(&r->pause_lock, NULL);
	pthread_cond_init(&r->pause_cond, NULL);
	for (size_t i = 0; i < inv->nhosts; i++)
		pthread_mutex_init(&r->slots[i].lock, NULL);
	for (size_t i = 0; i < inv->nhosts; i++) {
		struct ssh_target jt = { 0 };
		int rc;

		if (!inv->hosts[i].ssh.proxy_jump)
			continue;
		rc = resolve_jump(inv, &inv->hosts[i], &jt, err);
		for (size_t k = 0; !rc && k < r->njumps && !r->slots[i].jump; k++)
			if (jump_same(r->jumps[k], &jt))
				r->slots[i].jump = r->jumps[k];
		if (!rc && !r->slots[i].jump) {
			r->jumps = xrealloc(r->jumps, (r->njumps + 1) * sizeof(*r->jumps));
			r->jumps[r->njumps++] = r->slots[i].jump =
				jump_new(inv->hosts[i].ssh.proxy_jump, &jt, &r->copts,
					 inv->jump_sessions);
		}
		if (r->slots[i].jump)
			r->slots[i].via = jump_via(r->slots[i].jump);
		free_target(&jt);
		if (rc < 0) {
			runner_free(r);
			return rc;
		}
	}
	*ret = r;
	return 0;
}


void runner_free(struct runner *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->inv->nhosts; i++) {
		struct host_slot *s = &r->slots[i];

		conn_close(s->conn);
		err_clear(&s->conn_err);
		pthread_mutex_destroy(&s->lock);
	}
	/* After the connections through them. */
	for (size_t i = 0; i < r->njumps; i++)
		jump_free(r->jumps[i]);
	free(r->jumps);
	free(r->slots);
	pthread_mutex_destroy(&r->conn_lock);
	pthread_mutex_destroy(&r->qlock);
	pthread_cond_destroy(&r->qcond);
	pthread_mutex_destroy(&r->pause_lock);
	pthread_cond_destroy(&r->pause_cond);
	free(r);
}

void runner_cancel(struct runner *r)
{
	r->cancelled = 1;
	if (r->opts.cancel_stops_commands) {
		r->stop_commands = 1;
		for (size_t i = 0; i < r->inv->nhosts; i++)
			r->slots[i].stop = 1;
	}
}

void runner_stop_host(struct runner *r, size_t host, bool stop)
{
	if (host < r->inv->nhosts)
		r->slots[host].stop = stop ? 1 : r->stop_commands;
}

static double since_start(const struct runner *r)
{
	return (double)(now_ms() - r->start_ms) / 1000.0;
}

static void push_event(struct runner *r, enum event_kind kind, size_t task, char *msg)
{
	pthread_mutex_lock(&r->qlock);
	ALLOC_GROW(r->q, r->qlen + 1, r->qalloc);
	r->q[r->qlen++] = (struct queued_event){ kind, task, msg, since_start(r) };
	if (kind == EV_TASK_DONE)
		r->done++;
	pthread_cond_signal(&r->qcond);
	pthread_mutex_unlock(&r->qlock);
}

const struct host *task_host(struct task_ctx *t, size_t i)
{
	return &t->r->inv->hosts[t->task->hosts[i]];
}

/* The caller holds the slot's lock. */
static void slot_close(struct runner *r, struct host_slot *s)
{
	if (!s->conn)
		return;
	pthread_mutex_lock(&r->conn_lock);
	r->conn_fds -= s->cost;
	s->cost = 0;
	pthread_mutex_unlock(&r->conn_lock);
	conn_close(s->conn);
	s->conn = NULL;
}

void task_disconnect(struct task_ctx *t, size_t i)
{
	/* The worker holds the slot's lock for the task: no one else uses it. */
	slot_close(t->r, &t->r->slots[t->task->hosts[i]]);
}

struct err *task_err(struct task_ctx *t)
{
	return &t->task->err;
}

void task_note(struct task_ctx *t, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg)
		push_event(t->r, EV_TASK_NOTE, t->index, msg);
}

static unsigned slot_cost(const struct host_slot *s)
{
	return s->jump ? CONN_FDS_JUMPED : CONN_FDS_DIRECT;
}

static int cmp_lru(const void *a, const void *b)
{
	const struct host_slot *x = *(struct host_slot *const *)a;
	const struct host_slot *y = *(struct host_slot *const *)b;

	return x->last_used < y->last_used ? -1 : x->last_used > y->last_used;
}

/* Under conn_lock: the least recently used idle connection, its slot locked. */
static struct host_slot *lru_idle(struct runner *r, const struct host_slot *self)
{
	struct host_slot **v = xmalloc((r->inv->nhosts ? r->inv->nhosts : 1) * sizeof(*v));
	struct host_slot *res = NULL;
	size_t n = 0;

	for (size_t i = 0; i < r->inv->nhosts; i++)
		if (&r->slots[i] != self && r->slots[i].cost)
			v[n++] = &r->slots[i];
	qsort(v, n, sizeof(*v), cmp_lru);
	for (size_t i = 0; i < n && !res; i++)
		if (!pthread_mutex_trylock(&v[i]->lock))
			res = v[i];
	free(v);
	return res;
}

/*
 * Makes room for `cost` more descriptors under the budget, closing idle
 * connections least recently used first. Idle means its slot's lock is
 * free: trylock, so that we never wait on a host while holding our own
 * (runner.h's deadlock rule). runner_run sizes the pool so that the
 * connections of running tasks alone always fit; the wait below covers
 * only a task that is between two connections of its own. 0, or
 * ERR_IO once the connect timeout has passed with no room.
 */
static int reserve_fds(struct runner *r, struct host_slot *self, unsigned cost,
		       struct err *err)
{
	long long give_up = now_ms() + (r->copts.connect_timeout_ms ?
					r->copts.connect_timeout_ms : 10000);

	for (;;) {
		struct host_slot *victim;
		struct conn *old = NULL;

		pthread_mutex_lock(&r->conn_lock);
		if (!r->conn_budget || r->conn_fds + cost <= r->conn_budget) {
			r->conn_fds += cost;
			self->cost = cost;
			self->last_used = ++r->use_clock;
			pthread_mutex_unlock(&r->conn_lock);
			return 0;
		}
		victim = lru_idle(r, self);
		if (victim) {
			r->conn_fds -= victim->cost;
			victim->cost = 0;
			old = victim->conn;
			victim->conn = NULL;
		}
		pthread_mutex_unlock(&r->conn_lock);
		if (victim) {
			/* Closed outside conn_lock: a jump tunnel's thread takes a moment. */
			conn_close(old);
			pthread_mutex_unlock(&victim->lock);
			continue;
		}
		if (now_ms() >= give_up)
			return err_set(err, ERR_IO,
				       "no descriptor free for one more connection: the %zu "
				       "that the limit of open files (ulimit -n %u) leaves for "
				       "connections are all in use; raise the limit or lower -f",
				       r->conn_budget, r->fd_limit);
		usleep(20000);
	}
}

/* Gives back what reserve_fds counted for a connection that did not open. */
static void unreserve_fds(struct runner *r, struct host_slot *s)
{
	pthread_mutex_lock(&r->conn_lock);
	r->conn_fds -= s->cost;
	s->cost = 0;
	pthread_mutex_unlock(&r->conn_lock);
}

/* A connect that failed for want of descriptors says so, with the limit. */
static void explain_fd_limit(struct runner *r, struct err *e)
{
	if (fd_limit_hit(err_msg(e)))
		err_set(e, e->code, "%s (the limit of open files is %u, ulimit -n: "
			"raise it, or lower -f)", err_msg(e), r->fd_limit);
}

/* The caller holds the slot's lock (the worker took it for the task). */
static int slot_conn(struct runner *r, size_t host, struct conn **ret, struct err *err)
{
	struct host_slot *s = &r->slots[host];
	const struct host *h = &r->inv->hosts[host];

	if (s->conn) {
		pthread_mutex_lock(&r->conn_lock);
		s->last_used = ++r->use_clock;
		pthread_mutex_unlock(&r->conn_lock);
		*ret = s->conn;
		return 0;
	}
	if (s->conn_rc) {
		err_set(err, s->conn_rc, "%s", err_msg(&s->conn_err));
		return s->conn_rc;
	}
	if ((s->conn_rc = reserve_fds(r, s, slot_cost(s), &s->conn_err))) {
		err_prefix(&s->conn_err, "host %s: ", h->name);
		err_set(err, s->conn_rc, "%s", err_msg(&s->conn_err));
		return s->conn_rc;
	}
	s->conn_rc = conn_open(h->name, &h->ssh, s->jump ? &s->via : NULL, &r->copts, &s->conn, &s->conn_err);
	if (s->conn_rc) {
		unreserve_fds(r, s);
		explain_fd_limit(r, &s->conn_err);
		err_set(err, s->conn_rc, "%s", err_msg(&s->conn_err));
		return s->conn_rc;
	}
	*ret = s->conn;
	return 0;
}

int task_reconnect(struct task_ctx *t, size_t i, unsigned connect_timeout_ms,
		   struct err *err)
{
	size_t host = t->task->hosts[i];
	struct host_slot *s = &t->r->slots[host];
	const struct host *h = &t->r->inv->hosts[host];
	struct conn_opts o = t->r->copts;

	int rc;

	if (connect_timeout_ms)
		o.connect_timeout_ms = connect_timeout_ms;
	slot_close(t->r, s);
	s->conn_rc = 0;
	err_clear(&s->conn_err);
	if ((rc = reserve_fds(t->r, s, slot_cost(s), err)))
		return err_prefix(err, "host %s: ", h->name);
	rc = conn_open(h->name, &h->ssh, s->jump ? &s->via : NULL, &o, &s->conn, err);
	if (rc) {
		unreserve_fds(t->r, s);
		explain_fd_limit(t->r, err);
	}
	return rc;
}

unsigned task_command_timeout(const struct task_ctx *t)
{
	return t->r->opts.command_timeout_s;
}

long long task_deadline_ms(const struct task_ctx *t)
{
	return t->r->deadline_ms;
}

/* host: the command's (its slot's stop flag is what it watches); -1: none yet */
static long long command_deadline(struct runner *r, ssize_t host, const struct remote_cmd *cmd,
				  struct remote_cmd *copy)
{
	*copy = *cmd;
	if (!copy->cancel)
		copy->cancel = host >= 0 ? &r->slots[host].stop : &r->stop_commands;
	if (!copy->timeout_ms)
		copy->timeout_ms = r->opts.command_timeout_s * 1000;
	return r->deadline_ms;
}

int task_exec(struct task_ctx *t, size_t i, const struct remote_cmd *cmd,
	      struct cmd_result *res, struct err *err)
{
	struct remote_proc *p;
	int rc = task_exec_start(t, i, cmd, &p, err);

	if (rc)
		return rc;
	conn_exec_wait(p, res);
	return 0;
}

int task_exec_start(struct task_ctx *t, size_t i, const struct remote_cmd *cmd,
		    struct remote_proc **ret, struct err *err)
{
	size_t host = t->task->hosts[i];
	struct remote_cmd c;
	long long deadline = command_deadline(t->r, (ssize_t)host, cmd, &c);
	struct conn *conn;
	int rc = slot_conn(t->r, host, &conn, err);

	*ret = NULL;
	if (rc)
		return rc;
	return conn_exec_start(conn, &c, deadline, ret, err);
}

int task_upload(struct task_ctx *t, size_t i, const char *local, const char *remote,
		unsigned mode, struct upload_result *ur, struct err *err)
{
	struct conn *conn;
	int rc = slot_conn(t->r, t->task->hosts[i], &conn, err);

	if (rc)
		return rc;
	return conn_upload(conn, local, remote, (mode_t)mode, task_command_timeout(t) * 1000,
			   t->r->deadline_ms, &t->r->slots[t->task->hosts[i]].stop, ur, err);
}

int task_shell(struct task_ctx *t, size_t i, unsigned cols, unsigned rows,
	       struct conn_shell **ret, struct err *err)
{
	struct conn *conn;
	int rc = slot_conn(t->r, t->task->hosts[i], &conn, err);

	*ret = NULL;
	return rc ? rc : conn_shell_open(conn, cols, rows, ret, err);
}

long long task_step_deadline(struct task_ctx *t, unsigned timeout_ms)
{
	struct remote_cmd in = { .timeout_ms = timeout_ms }, c;
	long long run = command_deadline(t->r, -1, &in, &c);
	long long step = c.timeout_ms ? now_ms() + c.timeout_ms : 0;

	if (!step)
		return run;
	return run && run < step ? run : step;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* Host locks in inventory order, so that two tasks never wait on each other. */
static size_t *sorted_hosts(const struct task *t)
{
	size_t *v = xmalloc((t->nhosts ? t->nhosts : 1) * sizeof(*v));

	if (t->nhosts)
		memcpy(v, t->hosts, t->nhosts * sizeof(*v));
	qsort(v, t->nhosts, sizeof(*v), cmp_size);
	return v;
}

/* A cancel comes from a signal handler, which cannot signal a condition:
 * the wait wakes up now and then to look. */
static void wait_unpaused(struct runner *r)
{
	pthread_mutex_lock(&r->pause_lock);
	while (r->paused && !r->cancelled) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 200 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&r->pause_cond, &r->pause_lock, &ts);
	}
	pthread_mutex_unlock(&r->pause_lock);
}

bool runner_cancelled(const struct runner *r)
{
	return r->cancelled;
}

void runner_pause(struct runner *r, bool paused)
{
	pthread_mutex_lock(&r->pause_lock);
	r->paused = paused;
	pthread_cond_broadcast(&r->pause_cond);
	pthread_mutex_unlock(&r->pause_lock);
}

static void run_one(struct runner *r, size_t idx)
{
	struct task *task = &r->tasks[idx];
	struct task_ctx ctx = { r, task, idx };
	size_t *order;
	long long t0;

	wait_unpaused(r);
	if (r->cancelled) {
		task->rc = err_set(&task->err, ERR_CANCELLED, "not started: run interrupted");
		push_event(r, EV_TASK_DONE, idx, NULL);
		return;
	}
	if (r->deadline_ms && now_ms() >= r->deadline_ms) {
		task->rc = err_set(&task->err, ERR_TIMEOUT,
				   "not started: the run's time limit (%u s) passed",
				   r->opts.run_timeout_s);
		push_event(r, EV_TASK_DONE, idx, NULL);
		return;
	}
	order = sorted_hosts(task);
	for (size_t i = 0; i < task->nhosts; i++)
		if (i == 0 || order[i] != order[i - 1])
			pthread_mutex_lock(&r->slots[order[i]].lock);
	push_event(r, EV_TASK_START, idx, NULL);
	t0 = now_ms();
	task->rc = task->fn(&ctx, task->arg);
	if (task->rc && !task->err.msg)
		err_set(&task->err, task->rc, "%s", err_str(task->rc));
	task->duration_s = (double)(now_ms() - t0) / 1000.0;
	for (size_t i = task->nhosts; i-- > 0;)
		if (i == 0 || order[i] != order[i - 1])
			pthread_mutex_unlock(&r->slots[order[i]].lock);
	free(order);
	push_event(r, EV_TASK_DONE, idx, NULL);
}

static void *worker_main(void *arg)
{
	struct runner *r = arg;
	size_t idx;

	while ((idx = atomic_fetch_add(&r->next, 1)) < r->ntasks)
		run_one(r, idx);
	return NULL;
}

static void deliver(struct runner *r, event_fn cb, void *cb_arg)
{
	struct queued_event *q;
	size_t n;

	/* Swap the queue out so that workers never wait on our callback. */
	pthread_mutex_lock(&r->qlock);
	q = r->q;
	n = r->qlen;
	r->q = NULL;
	r->qlen = r->qalloc = 0;
	pthread_mutex_unlock(&r->qlock);
	for (size_t i = 0; i < n; i++) {
		struct event ev = { q[i].kind, q[i].task, q[i].msg, q[i].t };
		if (cb)
			cb(&ev, cb_arg);
		free(q[i].msg);
	}
	free(q);
	if (r->idle_fn)
		r->idle_fn(r->idle_arg);
}

void runner_on_idle(struct runner *r, void (*fn)(void *arg), void *arg)
{
	r->idle_fn = fn;
	r->idle_arg = arg;
}

/*
 * How many workers the limit of open files lets run, and what it leaves to
 * the connections: each worker holds its task's connections plus a few
 * descriptors of its own (a file being uploaded, a checksum pipe, the
 * known_hosts file), so the pool is clamped to fit; the connection cache
 * gets the rest, and reserve_fds closes idle ones to stay within it. 0 when
 * not even one worker fits.
 */
#define FDS_PER_WORKER 4
#define FDS_SLACK 8
static size_t size_pool(struct runner *r, const struct task *tasks, size_t ntasks,
			size_t want)
{
	size_t per_task = 1, open_now = fd_count_open(), avail, fit;
	unsigned cost = CONN_FDS_DIRECT;

	for (size_t i = 0; i < ntasks; i++)
		if (tasks[i].nhosts > per_task)
			per_task = tasks[i].nhosts;
	for (size_t i = 0; i < r->inv->nhosts; i++)
		if (r->slots[i].jump)
			cost = CONN_FDS_JUMPED;
	/* Our own connections are among the open descriptors: count them once;
	 * the jump sessions as if all were open. */
	pthread_mutex_lock(&r->conn_lock);
	open_now = open_now > r->conn_fds ? open_now - r->conn_fds : 0;
	open_now += r->njumps * (r->inv->jump_sessions ? r->inv->jump_sessions : 1) *
		    JUMP_FDS_PER_SESSION;
	avail = r->fd_limit > open_now + FDS_SLACK ? r->fd_limit - open_now - FDS_SLACK : 0;
	fit = avail / (FDS_PER_WORKER + per_task * cost);
	if (want > fit)
		want = fit;
	r->conn_budget = avail - want * FDS_PER_WORKER;
	pthread_mutex_unlock(&r->conn_lock);
	return want;
}

int runner_run(struct runner *r, struct task *tasks, size_t ntasks,
	       event_fn cb, void *cb_arg)
{
	size_t nworkers = size_pool(r, tasks, ntasks,
				    ntasks < r->opts.forks ? ntasks : r->opts.forks);
	pthread_t *workers = xcalloc(nworkers ? nworkers : 1, sizeof(*workers));
	pthread_attr_t attr;
	size_t started = 0;

	r->tasks = tasks;
	r->ntasks = ntasks;
	atomic_store(&r->next, 0);
	r->done = 0;
	r->start_ms = now_ms();
	r->deadline_ms = r->opts.run_timeout_s ? r->start_ms + r->opts.run_timeout_s * 1000LL : 0;
	for (size_t i = 0; i < ntasks; i++) {
		tasks[i].rc = 0;
		err_clear(&tasks[i].err);
	}
	if (!nworkers && ntasks) {
		/* Not one connection fits: say so on every task, start none. */
		for (size_t i = 0; i < ntasks; i++) {
			tasks[i].rc = err_set(&tasks[i].err, ERR_IO,
					      "not started: the limit of open files (ulimit -n %u) "
					      "leaves no room for a connection; raise it",
					      r->fd_limit);
			push_event(r, EV_TASK_DONE, i, NULL);
		}
		deliver(r, cb, cb_arg);
		free(workers);
		r->tasks = NULL;
		r->ntasks = 0;
		return 0;
	}

	/* Hundreds of workers: keep their stacks small (libssh needs little). */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 512 * 1024);
	for (; started < nworkers; started++)
		if (pthread_create(&workers[started], &attr, worker_main, r))
			break;
	pthread_attr_destroy(&attr);
	if (!started)
		worker_main(r); /* no thread could start: do it all here */

	for (;;) {
		bool all_done;

		pthread_mutex_lock(&r->qlock);
		while (!r->qlen && r->done < ntasks)
			pthread_cond_wait(&r->qcond, &r->qlock);
		all_done = r->done >= ntasks;
		pthread_mutex_unlock(&r->qlock);
		deliver(r, cb, cb_arg);
		if (all_done)
			break;
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(workers[i], NULL);
	deliver(r, cb, cb_arg);
	free(workers);
	r->tasks = NULL;
	r->ntasks = 0;
	return 0;
}

/*
 * The stage runner over runner.h; see deploy.h. Workers run one host's
 * module (check, then apply and verify) and fill their own host_job; the
 * caller's thread turns runner events into cells, journal entries and
 * dep_events.
 */
#include "deploy.h"
#include "modctx.h"
#include "../base/nodeset.h"
#include "../ssh/prefetch.h"
#include "../ssh/runner.h"
#include "../base/xalloc.h"
#include "module.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* What deploy_*_host() asks for one host. */
enum { CTL_RETRY = 1u << 0, CTL_SKIP = 1u << 1, CTL_STOP = 1u << 2 };

/* Journal writes at most this often while a burst of hosts reports (and at
 * every stage end); what a burst left unwritten is written once the runner
 * has delivered it (save_pending, on_idle), not at the next report, which
 * may be an hour away while the last host installs. */
#define SAVE_INTERVAL_MS 200

struct host_job {
	struct deploy *d;
	size_t stage, host;     /* host: inv->nhosts for a local stage */
	size_t hidx;            /* the task's host list */
	json_t *params;
	struct mod_ctx mc;
	enum host_result result;
	bool started;           /* the runner started it (else cancelled before) */
};

struct deploy {
	const struct inventory *inv;
	const struct playbook *pb;
	struct deploy_opts o;
	struct journal *journal;
	json_t *records;              /* mod_record values so far, with earlier runs'; owned */
	struct runlog *log;
	struct runner *runner;
	volatile sig_atomic_t cancelled;
	size_t ncols;                 /* inv->nhosts + 1 (the local row) */
	struct deploy_cell *cells;    /* nstages * ncols */
	bool *blocked;                /* same shape: skipped because of a failure */
	bool *selected;               /* --limit */
	char **failed;                /* per host: why later stages are skipped */
	char *abort_reason;           /* max_fail_percent exceeded: the run stops */
	struct probe_slot *probes;    /* nstages * ncols: each check's first command */
	bool *prefetch_tried;         /* per host; touched only under the host's lock */
	atomic_bool applied;          /* some host began an apply: probes may be stale */
	char probe_token[33];         /* random: frames the prefetch's output */
	atomic_bool *retry_req;       /* per stage: deploy_retry() asked for it */
	bool *only;                   /* per host, while retrying: the hosts retried */
	bool ran;                     /* the first pass is done: later runs only retry */
	/* One host's control (deploy_retry_host, _skip_host, _stop_host): asked
	 * on any thread under ctl_lock, taken on the run's thread. */
	pthread_mutex_t ctl_lock;
	unsigned *ctl_req;            /* per host: CTL_* asked, not yet taken */
	char **ctl_who;               /* per host: who asked last */
	volatile sig_atomic_t *host_stop; /* per host: stopped (what its module watches) */
	char **stop_why;              /* per host, the run's thread: "stopped by WHO" */
	char **skip_why;              /* per host, the run's thread: why its stages are skipped */
	bool *once_covered;           /* nstages * ncols: a run_once stage acted for the host */
	size_t cur_stage;             /* the stage under way (control events name it) */
	dep_event_fn cb;
	void *cb_arg;
	long long t0, last_save;
	bool save_pending;            /* a save was put off by SAVE_INTERVAL_MS */
	int save_rc;
	struct err save_err;
};

static void take_controls(struct deploy *d);
static void on_idle(void *arg);

static struct deploy_cell *cell(struct deploy *d, size_t stage, size_t host)
{
	return &d->cells[stage * d->ncols + host];
}

enum host_result deploy_cell_counted(const struct deploy_cell *c)
{
	return c->changed_before_stop ? RES_CHANGED : c->result;
}

const struct deploy_cell *deploy_cell(const struct deploy *d, size_t stage, size_t host)
{
	return &d->cells[stage * d->ncols + host];
}

static const char *host_name(const struct deploy *d, size_t host)
{
	return host < d->inv->nhosts ? d->inv->hosts[host].name : "localhost";
}

/* Hex from the kernel's random source; never fails (time and pid at worst). */
static void random_token(char *out, size_t size)
{
	unsigned char raw[16] = { 0 };
	size_t n = (size - 1) / 2 < sizeof(raw) ? (size - 1) / 2 : sizeof(raw);

	if (getrandom(raw, n, 0) != (ssize_t)n) {
		long long t = now_ms() ^ ((long long)getpid() << 20);

		memcpy(raw, &t, sizeof(t) < n ? sizeof(t) : n);
	}
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	out[2 * n] = '\0';
}

int deploy_new(const struct inventory *inv, const struct playbook *pb,
	       const struct deploy_opts *o, struct journal *journal,
	       struct runlog *log, struct deploy **ret, struct err *err)
{
	struct runner_opts ro = { .forks = o->forks, .command_timeout_s = o->command_timeout_s,
				  .accept_new_host_keys = o->accept_new_host_keys };
	struct deploy *d = xcalloc(1, sizeof(*d));
	size_t *idx = NULL, n = 0;

	d->inv = inv;
	d->pb = pb;
	d->o = *o;
	d->journal = journal;
	d->log = log;
	if (journal && json_is_object(json_object_get(journal_json(journal), "records")))
		d->records = json_deep_copy(json_object_get(journal_json(journal), "records"));
	else
		d->records = json_is_object(o->records) ? json_deep_copy(o->records) : json_object();
	d->o.records = NULL;
	d->ncols = inv->nhosts + 1;
	d->cells = xcalloc(pb->nstages * d->ncols, sizeof(*d->cells));
	d->blocked = xcalloc(pb->nstages * d->ncols, sizeof(*d->blocked));
	d->selected = xcalloc(d->ncols, sizeof(*d->selected));
	d->failed = xcalloc(d->ncols, sizeof(*d->failed));
	d->probes = xcalloc(pb->nstages * d->ncols, sizeof(*d->probes));
	d->retry_req = xcalloc(pb->nstages ? pb->nstages : 1, sizeof(*d->retry_req));
	d->prefetch_tried = xcalloc(d->ncols, sizeof(*d->prefetch_tried));
	pthread_mutex_init(&d->ctl_lock, NULL);
	d->ctl_req = xcalloc(d->ncols, sizeof(*d->ctl_req));
	d->ctl_who = xcalloc(d->ncols, sizeof(*d->ctl_who));
	d->host_stop = xcalloc(d->ncols, sizeof(*d->host_stop));
	d->stop_why = xcalloc(d->ncols, sizeof(*d->stop_why));
	d->skip_why = xcalloc(d->ncols, sizeof(*d->skip_why));
	d->once_covered = xcalloc(pb->nstages * d->ncols, sizeof(*d->once_covered));
	atomic_init(&d->applied, false);
	random_token(d->probe_token, sizeof(d->probe_token));
	if (o->start_at && playbook_stage_index(pb, o->start_at) < 0) {
		deploy_free(d);
		return err_set(err, ERR_USAGE, "--start-at %s: no such stage in %s",
			       o->start_at, pb->path);
	}
	if (inventory_select(inv, o->limit, &idx, &n, err) ||
	    runner_new(inv, &ro, &d->runner, err)) {
		free(idx);
		deploy_free(d);
		return err->code;
	}
	runner_on_idle(d->runner, on_idle, d);
	for (size_t i = 0; i < n; i++)
		d->selected[idx[i]] = true;
	d->selected[inv->nhosts] = true;
	free(idx);
	*ret = d;
	return 0;
}

void deploy_free(struct deploy *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->pb->nstages * d->ncols; i++) {
		free(d->cells[i].reason);
		strlist_clear(&d->cells[i].changes);
		strlist_clear(&d->cells[i].diffs);
		probe_slot_release(&d->probes[i]);
	}
	for (size_t i = 0; i < d->ncols; i++) {
		free(d->failed[i]);
		free(d->ctl_who[i]);
		free(d->stop_why[i]);
		free(d->skip_why[i]);
	}
	pthread_mutex_destroy(&d->ctl_lock);
	free(d->ctl_req);
	free(d->ctl_who);
	free((void *)d->host_stop);
	free(d->stop_why);
	free(d->skip_why);
	free(d->once_covered);
	json_decref(d->records);
	free(d->cells);
	free(d->blocked);
	free(d->selected);
	free(d->failed);
	free(d->probes);
	free(d->retry_req);
	free(d->prefetch_tried);
	free(d->abort_reason);
	runner_free(d->runner);
	err_clear(&d->save_err);
	free(d);
}

void deploy_cancel(struct deploy *d)
{
	d->cancelled = 1;
	if (d->runner)
		runner_cancel(d->runner);
}

bool deploy_interrupted(const struct deploy *d)
{
	return d->cancelled;
}

static double elapsed(const struct deploy *d)
{
	return (double)(now_ms() - d->t0) / 1000.0;
}

static void emit(struct deploy *d, struct dep_event *ev)
{
	ev->t = elapsed(d);
	if (ev->stage < d->pb->nstages && !ev->stage_name)
		ev->stage_name = d->pb->stages[ev->stage].name;
	if (d->cb)
		d->cb(ev, d->cb_arg);
}

static void save(struct deploy *d, bool force)
{
	long long now = now_ms();

	if (!d->journal)
		return;
	if (!force && now - d->last_save < SAVE_INTERVAL_MS) {
		d->save_pending = true;
		return;
	}
	d->last_save = now;
	d->save_pending = false;
	if (!journal_save(d->journal, &d->save_err))
		return;
	/* Without a journal, --resume could not be trusted: stop starting work. */
	if (!d->save_rc)
		d->save_rc = d->save_err.code;
	deploy_cancel(d);
}

/* The runner delivered every event it had: nothing it reported stays unwritten. */
static void on_idle(void *arg)
{
	struct deploy *d = arg;

	if (d->save_pending)
		save(d, true);
}

static const char *journal_status(const struct deploy_cell *c)
{
	if (c->interrupted)
		return "interrupted";
	return host_result_name(c->result);
}

/* Records a result and tells everyone: cell, journal, event. */
static void finish(struct deploy *d, size_t stage, size_t host, enum host_result r,
		   char *reason, bool blocked)
{
	struct deploy_cell *c = cell(d, stage, host);
	struct dep_event ev = { .kind = DEV_HOST_DONE, .stage = stage };

	c->result = r;
	free(c->reason);
	/* Redacted here, before the journal, the events and the summaries see it. */
	c->reason = redact_dup(runlog_redactor(d->log), reason);
	free(reason);
	d->blocked[stage * d->ncols + host] = blocked;
	if (d->journal)
		journal_host_done(d->journal, d->pb->stages[stage].name, host_name(d, host),
				  journal_status(c), &c->changes, c->reason, c->duration_s);
	ev.host = host_name(d, host);
	ev.result = r;
	ev.reason = c->reason;
	ev.changes = &c->changes;
	ev.diffs = &c->diffs;
	ev.duration_s = c->duration_s;
	emit(d, &ev);
	save(d, false);
}

/* ---- one host's work, on a worker ---- */

/* "check: ..." says where a module failed; a host that cannot be reached is just that. */
static int phase_fail(struct mod_ctx *mc, int rc, const char *phase)
{
	if (rc != ERR_CONNECT && rc != ERR_HOSTKEY && rc != ERR_AUTH)
		err_prefix(mc->err, "%s: ", phase);
	return rc;
}

static int run_module(struct host_job *job)
{
	const struct stage_module *m = job->d->pb->stages[job->stage].module;
	struct mod_ctx *mc = &job->mc;
	int rc;

	mc->phase = PHASE_CHECK;
	if ((rc = m->check(mc)))
		return phase_fail(mc, rc, "check");
	if (mc->skipped) {
		job->result = RES_SKIPPED;
		return 0;
	}
	job->result = mc->changes.n ? RES_CHANGED : RES_OK;
	if (!mc->changes.n || mc->checking)
		return 0;
	mc->phase = PHASE_APPLY;
	/* Before the first write: no probe answered ahead may be trusted now. */
	atomic_store(&job->d->applied, true);
	if ((rc = m->apply(mc)))
		return phase_fail(mc, rc, "apply");
	mc->phase = PHASE_VERIFY;
	if ((rc = m->verify ? m->verify(mc) : m->check(mc)))
		return phase_fail(mc, rc, "verify");
	if (mc->verify_changes.n)
		return mod_fail(mc, ERR_STATE, "verify: still to do after apply: %s",
				mc->verify_changes.v[0]);
	return 0;
}

/*
 * The probes of this host's stages from here on, in one round trip, when
 * nothing has been applied yet (prefetch.h). A script that fails only costs
 * the round trip: the checks then ask the host themselves. A host that does
 * not answer at all (timeout, connection lost) fails the stage now with
 * that error, rather than making each check wait out the timeout again.
 */
static int prefetch_host(struct host_job *job, struct task_ctx *t)
{
	struct deploy *d = job->d;
	struct probe_slot **slots = xcalloc(d->pb->nstages, sizeof(*slots));
	struct strbuf script = STRBUF_INIT, line = STRBUF_INIT;
	struct cmd_result res;
	struct remote_cmd rc = { .command = "sh -s", .max_output = 8u << 20 };
	struct err err = ERR_INIT;
	size_t n = 0;
	int ret = 0;

	if (d->prefetch_tried[job->host] || atomic_load(&d->applied) || d->cancelled)
		goto out;
	d->prefetch_tried[job->host] = true;
	for (size_t s = job->stage; s < d->pb->nstages; s++) {
		struct probe_slot *p = &d->probes[s * d->ncols + job->host];

		if (p->line && !p->have) {
			slots[n++] = p;
			strbuf_addf(&line, "%s%s", line.len ? ", " : "", d->pb->stages[s].name);
		}
	}
	/* One probe alone gains nothing from travelling with the others. */
	if (n < 2 || prefetch_script(slots, n, d->probe_token, &script))
		goto out;
	rc.input = script.buf;
	rc.input_len = script.len;
	cmd_result_init(&res);
	if ((ret = task_exec(t, 0, &rc, &res, &err)))
		err_set(job->mc.err, ret, "%s", err_msg(&err));
	else if (res.outcome == CMD_TIMED_OUT || res.outcome == CMD_LOST)
		ret = err_set(job->mc.err, res.outcome == CMD_TIMED_OUT ? ERR_TIMEOUT : ERR_SSH,
			      "%s: the probes of stages %s", res.outcome == CMD_TIMED_OUT ?
			      "timed out" : "connection lost", line.buf);
	else
		prefetch_parse(slots, n, d->probe_token, &res, &err);
	if (d->log) {
		char *what = xasprintf("sh -s  # stdin: the check probes of stages %s, in one "
				       "round trip", line.buf);

		runlog_command(d->log, host_name(d, job->host), "prefetch", what,
			       ret ? NULL : &res, ret ? err_msg(job->mc.err) : NULL);
		free(what);
	}
	cmd_result_release(&res);
	err_clear(&err);
out:
	strbuf_release(&script);
	strbuf_release(&line);
	free(slots);
	return ret;
}

static int host_task(struct task_ctx *t, void *arg)
{
	struct host_job *job = arg;
	int rc;

	job->mc.task = t;
	job->mc.err = task_err(t);
	if (!job->mc.local && (rc = prefetch_host(job, t)))
		return phase_fail(&job->mc, rc, "check");
	return run_module(job);
}

/* ---- the caller's thread ---- */

static void job_done(struct deploy *d, struct host_job *job, struct task *task)
{
	struct deploy_cell *c = cell(d, job->stage, job->host);
	const struct stage *s = &d->pb->stages[job->stage];
	enum host_result r = job->result;
	char *reason = NULL;

	c->duration_s = task->duration_s;
	c->err_code = task->rc;
	strlist_clear(&c->changes);
	strlist_clear(&c->diffs);
	c->changed_before_stop = false;
	if (!task->rc) {
		const char *k;
		json_t *v;

		json_object_foreach(job->mc.record, k, v) {
			json_object_set(d->records, k, v);
			if (d->journal)
				journal_record(d->journal, k, json_string_value(v));
		}
	}
	for (size_t i = 0; i < job->mc.changes.n; i++) {
		/* A managed file's diff shows its contents: secrets included. */
		strlist_push_owned(&c->changes, redact_dup(runlog_redactor(d->log),
							   job->mc.changes.v[i]));
		strlist_push_owned(&c->diffs, redact_dup(runlog_redactor(d->log),
							 job->mc.diffs.v[i]));
	}
	if (task->rc == ERR_CANCELLED && job->host < d->inv->nhosts && d->host_stop[job->host]) {
		/* stopped from the TUI: the host failed here, as on a timeout */
		r = RES_FAILED;
		reason = xasprintf("%s: %s", d->stop_why[job->host] ? d->stop_why[job->host] :
				   "stopped", err_msg(&task->err));
		if (!d->failed[job->host])
			d->failed[job->host] = xasprintf("stopped at stage %s", s->name);
	} else if (task->rc == ERR_CANCELLED) {
		c->interrupted = true;
		/* "ofed skipped, changed=0" over an OFED installed on every node
		 * misled: what the cut apply did counts (issue 24) */
		c->changed_before_stop = job->mc.apply_steps && job->mc.changes.n;
		r = RES_SKIPPED;
		reason = c->changed_before_stop ?
			 xasprintf("interrupted after a change, --resume finishes it: %s",
				   err_msg(&task->err)) :
			 job->started ? xasprintf("interrupted: %s", err_msg(&task->err)) :
			 xstrdup("interrupted: not started");
	} else if (task->rc) {
		/* Refused or no answer: the host is not there, no step of it failed. */
		r = task->rc == ERR_CONNECT ? RES_UNREACHABLE : RES_FAILED;
		reason = xstrdup(err_msg(&task->err));
		if (job->host < d->inv->nhosts && !d->failed[job->host])
			d->failed[job->host] = xasprintf("%s at stage %s", r == RES_UNREACHABLE ?
							 "unreachable" : "failed", s->name);
		/* Another release runs: only `bringup upgrade` changes that, so
		 * nothing more starts anywhere (no half-moved cluster). */
		if (task->rc == ERR_RELEASE && !d->abort_reason)
			d->abort_reason = xasprintf("stage %s: %s runs another release than "
						    "the inventory's (see its message): the run "
						    "stops", s->name, host_name(d, job->host));
	} else if (r == RES_SKIPPED) {
		reason = xstrdup(job->mc.skip_reason ? job->mc.skip_reason : "skipped");
	}
	finish(d, job->stage, job->host, r, reason, false);
	/* A module acting for several hosts failed some of them alone. */
	if (task->rc != ERR_CANCELLED) {
		const char *name;
		json_t *msg;

		json_object_foreach(job->mc.host_failures, name, msg) {
			const struct host *h = inventory_host(d->inv, name);
			size_t idx;

			if (!h)
				continue;
			idx = (size_t)(h - d->inv->hosts);
			if (!d->failed[idx])
				d->failed[idx] = xasprintf("failed at stage %s", s->name);
			finish(d, job->stage, idx, RES_FAILED, xstrdup(json_string_value(msg)), false);
		}
	}
}

struct batch {
	struct deploy *d;
	struct host_job *jobs;
	struct task *tasks;
};

static void on_runner_event(const struct event *ev, void *arg)
{
	struct batch *b = arg;
	struct deploy *d = b->d;
	struct host_job *job = &b->jobs[ev->task];
	struct dep_event de = { .stage = job->stage, .host = host_name(d, job->host) };

	take_controls(d);
	switch (ev->kind) {
	case EV_TASK_START:
		job->started = true;
		de.limit_s = d->o.command_timeout_s ? d->o.command_timeout_s :
			     d->inv->command_timeout_s;
		if (d->journal)
			journal_host_start(d->journal, d->pb->stages[job->stage].name, de.host);
		de.kind = DEV_HOST_START;
		emit(d, &de);
		save(d, false);
		break;
	case EV_TASK_NOTE: {
		char *msg = redact_dup(runlog_redactor(d->log), ev->msg);

		de.kind = DEV_OUTPUT;
		de.msg = msg;
		emit(d, &de);
		free(msg);
		break;
	}
	case EV_TASK_DONE:
		job_done(d, job, &b->tasks[ev->task]);
		break;
	}
}

/* mod_run_hosts(): the run's hosts, for a module that acts for a group. */
static json_t *run_hosts(const struct deploy *d)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < d->inv->nhosts; i++) {
		const struct host *h = &d->inv->hosts[i];
		json_t *o, *roles, *hcas;

		if (!d->selected[i])
			continue;
		roles = json_array();
		hcas = json_array();
		for (int r = 0; r < ROLE__COUNT; r++)
			if (h->roles & (1u << r))
				json_array_append_new(roles, json_string(role_name(r)));
		for (size_t k = 0; k < h->nhcas; k++)
			json_array_append_new(hcas, json_pack("{s:s, s:i, s:s}", "name",
				h->hcas[k].name, "port", (int)h->hcas[k].port, "link_layer",
				h->hcas[k].link_layer == LINK_ETH ? "ethernet" : "infiniband"));
		o = json_pack("{s:s, s:o, s:O, s:o}", "name", h->name, "roles", roles,
			      "vars", h->vars, "hcas", hcas);
		if (d->failed[i] || d->skip_why[i])
			json_object_set_new(o, "failed", json_string(d->failed[i] ? d->failed[i] :
								     d->skip_why[i]));
		json_array_append_new(arr, o);
	}
	return arr;
}

static void job_init(struct deploy *d, struct host_job *job, struct task *task,
		     size_t stage, size_t host, json_t *params)
{
	const struct stage *s = &d->pb->stages[stage];

	job->d = d;
	job->stage = stage;
	job->host = host;
	job->hidx = host;
	job->params = params;
	mod_ctx_init(&job->mc);
	job->mc.host = host_name(d, host);
	job->mc.stage = s->name;
	job->mc.checking = d->o.check;
	job->mc.local = s->local;
	job->mc.params = params;
	job->mc.log = d->log;
	job->mc.cancelled = &d->cancelled;
	if (host < d->inv->nhosts)
		job->mc.host_stop = &d->host_stop[host];
	job->mc.applied = &d->applied;
	job->mc.src_inv = d->inv;
	if (!s->local)
		job->mc.probe = &d->probes[stage * d->ncols + host];
	if (s->run_once || s->local)
		job->mc.run_hosts = run_hosts(d);
	if (s->local) {
		job->mc.inv = d->inv;
		job->mc.records = json_deep_copy(d->records);
	}
	/* Never a NULL host list, even empty: runner.c memcpy()s it. */
	*task = (struct task){ .hosts = &job->hidx, .nhosts = s->local ? 0 : 1,
			       .fn = host_task, .arg = job };
}

/* Runs one batch of hosts of a stage; returns how many failed. */
static size_t run_batch(struct deploy *d, size_t stage, const size_t *hosts, size_t n)
{
	const struct stage *s = &d->pb->stages[stage];
	struct batch b = { d, xcalloc(n, sizeof(*b.jobs)), xcalloc(n, sizeof(*b.tasks)) };
	size_t nfailed = 0, nt = 0;

	for (size_t i = 0; i < n; i++) {
		const struct host *h = hosts[i] < d->inv->nhosts ? &d->inv->hosts[hosts[i]] : NULL;
		struct host lh = { .name = "localhost", .vars = d->inv->vars };
		json_t *params = stage_params(d->pb, s, h ? h : &lh, &b.tasks[nt].err);

		if (!params) {
			/* playbook_resolve checked this; an error here is ours. */
			finish(d, stage, hosts[i], RES_FAILED, xstrdup(err_msg(&b.tasks[nt].err)),
			       false);
			err_clear(&b.tasks[nt].err);
			nfailed++;
			continue;
		}
		job_init(d, &b.jobs[nt], &b.tasks[nt], stage, hosts[i], params);
		nt++;
	}
	runner_run(d->runner, b.tasks, nt, on_runner_event, &b);
	for (size_t i = 0; i < nt; i++) {
		nfailed += b.tasks[i].rc && b.tasks[i].rc != ERR_CANCELLED;
		mod_ctx_release(&b.jobs[i].mc);
		json_decref(b.jobs[i].params);
		task_release(&b.tasks[i]);
	}
	free(b.jobs);
	free(b.tasks);
	return nfailed;
}

static bool has_tag(const struct stage *s, const struct strlist *tags)
{
	if (strlist_index(tags, s->name) >= 0)
		return true;
	for (size_t i = 0; i < s->tags.n; i++)
		if (strlist_index(tags, s->tags.v[i]) >= 0)
			return true;
	return false;
}

/* Why the whole stage is left out on this run, or NULL. */
static char *stage_filtered(const struct deploy *d, size_t stage)
{
	const struct stage *s = &d->pb->stages[stage];

	if (d->o.start_at && (int)stage < playbook_stage_index(d->pb, d->o.start_at))
		return xasprintf("before --start-at %s", d->o.start_at);
	if (d->o.tags && d->o.tags->n && !has_tag(s, d->o.tags))
		return xstrdup("not selected by --tags");
	if (d->o.skip_tags && has_tag(s, d->o.skip_tags))
		return xstrdup("excluded by --skip-tags");
	return NULL;
}

/* A result that later stages may not build on. */
static bool not_done(enum host_result r)
{
	return r == RES_FAILED || r == RES_UNREACHABLE;
}

/* Why this host cannot run the stage (an earlier failure), or NULL. */
static char *host_blocked(const struct deploy *d, size_t stage, size_t host)
{
	const struct stage *s = &d->pb->stages[stage];

	if (d->abort_reason)
		return xstrdup(d->abort_reason);
	if (host < d->inv->nhosts && d->skip_why[host])
		return xstrdup(d->skip_why[host]);
	if (d->failed[host])
		return xstrdup(d->failed[host]);
	for (size_t k = 0; k < s->ndepends; k++) {
		size_t dep = s->depends[k];
		const struct stage *ds = &d->pb->stages[dep];
		bool bad = false;

		if (ds->run_once || ds->local) {
			for (size_t h = 0; h < d->ncols && !bad; h++)
				bad = not_done(d->cells[dep * d->ncols + h].result);
		} else {
			bad = not_done(d->cells[dep * d->ncols + host].result) ||
			      d->blocked[dep * d->ncols + host];
		}
		if (bad)
			return xasprintf("depends on stage %s, which did not succeed", ds->name);
	}
	return NULL;
}

static void fold_hosts(const struct deploy *d, const size_t *hosts, size_t n,
		       struct strbuf *out)
{
	struct strlist names = STRLIST_INIT;
	char *set;

	for (size_t i = 0; i < n; i++)
		strlist_push(&names, host_name(d, hosts[i]));
	set = nodeset_fold(names.v, names.n);
	strbuf_addstr(out, set);
	free(set);
	strlist_clear(&names);
}

/* The hosts of a stage on this run (its selection within --limit). */
static size_t stage_hosts(const struct deploy *d, const struct stage *s, size_t *out)
{
	size_t n = 0;

	if (s->local) {
		if (!s->absent)
			out[n++] = d->inv->nhosts;
		return n;
	}
	for (size_t i = 0; i < s->nhosts; i++)
		if (d->selected[s->host_idx[i]])
			out[n++] = s->host_idx[i];
	return n;
}

/* While retrying, only the hosts retried; hosts[0..n) filtered in place. */
static size_t only_hosts(const struct deploy *d, size_t *hosts, size_t n)
{
	size_t kept = 0;

	if (!d->only)
		return n;
	for (size_t i = 0; i < n; i++)
		if (d->only[hosts[i]])
			hosts[kept++] = hosts[i];
	return kept;
}

/* Ansible's reading of serial: a percentage rounds down, but never below one host. */
static size_t batch_size(const struct stage *s, size_t n)
{
	size_t b;

	if (!s->serial)
		return n ? n : 1;
	b = s->serial_percent ? n * s->serial / 100 : s->serial;
	return b ? b : 1;
}

/* A run_once stage that failed stops every host of the stage. */
static void fail_once_stage(struct deploy *d, size_t stage, const size_t *hosts, size_t n,
			    size_t ran)
{
	for (size_t i = 0; i < n; i++)
		if (hosts[i] != ran && !d->failed[hosts[i]])
			d->failed[hosts[i]] = xasprintf("run_once stage %s failed on %s",
							d->pb->stages[stage].name,
							host_name(d, ran));
}

/*
 * After a batch, as Ansible does: more than max_fail_percent of the batch
 * failed, or (with serial and no max_fail_percent) every host of the batch
 * failed, stops the run.
 */
static void check_max_fail(struct deploy *d, size_t stage, size_t nfailed, size_t bn)
{
	const struct stage *s = &d->pb->stages[stage];

	if (d->abort_reason || !bn)
		return;
	if (s->max_fail_percent >= 0 && nfailed * 100 > (size_t)s->max_fail_percent * bn)
		d->abort_reason = xasprintf("stage %s: %zu of %zu hosts of a batch failed, more "
					    "than max_fail_percent %d%%", s->name, nfailed, bn,
					    s->max_fail_percent);
	else if (s->max_fail_percent < 0 && s->serial && nfailed == bn)
		d->abort_reason = xasprintf("stage %s: every host of a serial batch failed",
					    s->name);
}

/* Done by an earlier attempt (--resume): skipped, and the journal keeps what it did. */
static void skip_completed(struct deploy *d, size_t stage, size_t h)
{
	const char *name = host_name(d, h), *stage_name = d->pb->stages[stage].name;
	struct deploy_cell *c = cell(d, stage, h);
	struct dep_event de = { .kind = DEV_HOST_DONE, .stage = stage, .host = name,
				.result = RES_SKIPPED };

	c->result = RES_SKIPPED;
	free(c->reason);
	c->reason = xasprintf("completed in an earlier attempt (%s)",
			      journal_host_status(d->journal, stage_name, name));
	de.reason = c->reason;
	emit(d, &de);
}

/* True when host h is to run the stage; otherwise its skip is recorded. */
static bool admit(struct deploy *d, size_t stage, size_t h, const char *filtered)
{
	const struct stage *s = &d->pb->stages[stage];
	char *why;

	if (d->journal && journal_host_completed(d->journal, s->name, host_name(d, h))) {
		skip_completed(d, stage, h);
	} else if (filtered) {
		finish(d, stage, h, RES_SKIPPED, xstrdup(filtered), false);
	} else if (h < d->inv->nhosts && d->host_stop[h] && !d->failed[h] && !d->skip_why[h]) {
		d->failed[h] = xasprintf("stopped at stage %s", s->name);
		finish(d, stage, h, RES_FAILED, xasprintf("%s before it started",
							  d->stop_why[h] ? d->stop_why[h] :
							  "stopped"), false);
	} else if ((why = host_blocked(d, stage, h))) {
		finish(d, stage, h, RES_SKIPPED, why, true);
	} else if (d->cancelled) {
		cell(d, stage, h)->interrupted = true;
		finish(d, stage, h, RES_SKIPPED, xstrdup("interrupted: not started"), false);
	} else {
		return true;
	}
	return false;
}

/* Hosts todo[0..n) in batches of `serial`, stopping as Ansible would; returns how many failed. */
static size_t run_batches(struct deploy *d, size_t stage, const size_t *todo, size_t n)
{
	size_t bn = batch_size(&d->pb->stages[stage], n), nfailed = 0, f;

	for (size_t i = 0; i < n; i += bn) {
		if (bn > n - i)
			bn = n - i;
		if (d->cancelled || d->abort_reason) {
			for (size_t k = i; k < n; k++) {
				cell(d, stage, todo[k])->interrupted = !!d->cancelled;
				finish(d, stage, todo[k], RES_SKIPPED, xstrdup(d->abort_reason ?
				       d->abort_reason : "interrupted: not started"), !!d->abort_reason);
			}
			return nfailed;
		}
		f = run_batch(d, stage, todo + i, bn);
		nfailed += f;
		check_max_fail(d, stage, f, bn);
	}
	return nfailed;
}

/*
 * A run_once stage acts for every host of the stage that had not failed
 * (mod_run_hosts): the journal records each of them as completed by it, so
 * that --resume runs the stage again exactly when a host of it was left
 * out (failed earlier, unreachable, outside --limit), and then for that
 * host (engine path for per-host retries of cluster-wide stages too).
 */
static void record_once_covered(struct deploy *d, size_t stage, const size_t *hosts, size_t n,
				size_t ran)
{
	const struct deploy_cell *c = cell(d, stage, ran);
	char *why;

	if (!d->journal || not_done(c->result))
		return;
	why = xasprintf("done for it by the run_once run on %s", host_name(d, ran));
	for (size_t i = 0; i < n; i++)
		if (hosts[i] != ran && !d->failed[hosts[i]] &&
		    !journal_host_completed(d->journal, d->pb->stages[stage].name,
					    host_name(d, hosts[i])))
			journal_host_done(d->journal, d->pb->stages[stage].name,
					  host_name(d, hosts[i]), host_result_name(c->result),
					  &c->changes, why, 0);
	free(why);
}

/*
 * A cluster-wide stage (run_once, or local) acts for every host of the run
 * that had not failed (mod_run_hosts): they are covered by it, in memory,
 * whatever the stage's own hosts are (scale_cluster runs on a manager and
 * adds the clients).
 */
static void mark_covered(struct deploy *d, size_t stage)
{
	for (size_t h = 0; h < d->inv->nhosts; h++)
		if (d->selected[h] && !d->failed[h] && !d->skip_why[h])
			d->once_covered[stage * d->ncols + h] = true;
}

/* While retrying: a host retried that this cluster-wide stage has not acted for. */
static bool once_missed(const struct deploy *d, size_t stage)
{
	for (size_t h = 0; h < d->inv->nhosts; h++)
		if (d->only[h] && d->selected[h] && !d->once_covered[stage * d->ncols + h])
			return true;
	return false;
}

/*
 * While retrying, a cluster-wide stage that has not acted for a host
 * retried (it had failed before it) runs again, as --resume would: once,
 * on the stage's first host that may run it (scale_cluster on a manager:
 * mmaddnode for the missing node), and on no other. Its module acts for
 * the hosts still missing; the others' state is already what it checks.
 * A failure fails the hosts retried, not the stage's other hosts.
 */
static void run_once_again(struct deploy *d, size_t stage)
{
	const struct stage *s = &d->pb->stages[stage];
	size_t *hosts = xcalloc(d->ncols, sizeof(*hosts)), n = stage_hosts(d, s, hosts), x = 0;
	char *filtered = stage_filtered(d, stage), *why = NULL;
	struct dep_event ev = { .kind = DEV_STAGE_START, .stage = stage };
	bool found = false;

	for (size_t i = 0; i < n && !found && !filtered && !d->cancelled && !d->abort_reason; i++) {
		if (hosts[i] < d->inv->nhosts && d->host_stop[hosts[i]])
			continue;
		if (!(why = host_blocked(d, stage, hosts[i])))
			x = hosts[i], found = true;
		free(why);
	}
	if (found) {
		ev.hosts = host_name(d, x);
		emit(d, &ev);
		run_batch(d, stage, &x, 1);
		if (not_done(cell(d, stage, x)->result)) {
			for (size_t h = 0; h < d->inv->nhosts; h++)
				if (d->only[h] && !d->failed[h])
					d->failed[h] = xasprintf("run_once stage %s failed on %s",
								 s->name, host_name(d, x));
		} else {
			mark_covered(d, stage);
		}
		ev = (struct dep_event){ .kind = DEV_STAGE_DONE, .stage = stage };
		emit(d, &ev);
		save(d, true);
	}
	free(filtered);
	free(hosts);
}

static void run_stage(struct deploy *d, size_t stage)
{
	const struct stage *s = &d->pb->stages[stage];
	size_t *hosts, *todo, n, ntodo = 0, nblocked = 0, nfailed;
	char *filtered;
	struct dep_event ev = { .kind = DEV_STAGE_START, .stage = stage };
	struct strbuf set = STRBUF_INIT;

	d->cur_stage = stage;
	if (d->only && (s->run_once || s->local) && once_missed(d, stage)) {
		run_once_again(d, stage);
		return;
	}
	hosts = xcalloc(d->ncols, sizeof(*hosts));
	todo = xcalloc(d->ncols, sizeof(*todo));
	n = only_hosts(d, hosts, stage_hosts(d, s, hosts));
	filtered = stage_filtered(d, stage);
	if (!n)
		goto out;
	/* A run_once stage runs again (on the first host it has not covered)
	 * while an earlier attempt left a host of it out: record_once_covered. */
	fold_hosts(d, hosts, n, &set);
	ev.hosts = set.buf;
	emit(d, &ev);
	for (size_t i = 0; i < n; i++) {
		/* As Ansible counts max_fail_percent: a host that failed an earlier stage is a
		 * failed host of this one (a rolling upgrade's last stage stops the run). */
		nblocked += !filtered && d->failed[hosts[i]] && !d->abort_reason &&
			    !(d->journal && journal_host_completed(d->journal, s->name,
								   host_name(d, hosts[i])));
		if (admit(d, stage, hosts[i], filtered) && (!s->run_once || !ntodo))
			todo[ntodo++] = hosts[i];
	}
	nfailed = run_batches(d, stage, todo, ntodo);
	if (nblocked && s->max_fail_percent >= 0)
		check_max_fail(d, stage, nblocked + nfailed, nblocked + ntodo);
	if (s->run_once && ntodo && not_done(cell(d, stage, todo[0])->result))
		fail_once_stage(d, stage, hosts, n, todo[0]);
	else if (s->run_once && ntodo)
		record_once_covered(d, stage, hosts, n, todo[0]);
	if ((s->run_once || s->local) && ntodo && !not_done(cell(d, stage, todo[0])->result))
		mark_covered(d, stage);
	ev = (struct dep_event){ .kind = DEV_STAGE_DONE, .stage = stage };
	emit(d, &ev);
	save(d, true);
out:
	strbuf_release(&set);
	free(filtered);
	free(hosts);
	free(todo);
}

/* Per-host stages whose check may be answered ahead (prefetch.h). */
static bool prefetchable(const struct deploy *d, size_t stage)
{
	const struct stage *s = &d->pb->stages[stage];
	char *filtered;

	if (s->local || s->run_once)
		return false;
	filtered = stage_filtered(d, stage);
	free(filtered);
	return !filtered;
}

/*
 * Learns the first command of every check this run will make, by running
 * each check in capture mode: it stops at that command without sending it.
 * Pure computation on the caller's thread, before any worker starts.
 */
static void plan_prefetch(struct deploy *d)
{
	size_t *hosts = xcalloc(d->ncols, sizeof(*hosts));

	for (size_t st = 0; st < d->pb->nstages; st++) {
		const struct stage *s = &d->pb->stages[st];
		size_t n = prefetchable(d, st) ? stage_hosts(d, s, hosts) : 0;

		for (size_t i = 0; i < n; i++) {
			const struct host *h = &d->inv->hosts[hosts[i]];
			struct probe_slot *slot = &d->probes[st * d->ncols + hosts[i]];
			struct err err = ERR_INIT;
			struct mod_ctx mc;
			json_t *params;

			if (d->journal && journal_host_completed(d->journal, s->name, h->name))
				continue;
			if (!(params = stage_params(d->pb, s, h, &err))) {
				err_clear(&err);
				continue;
			}
			mod_ctx_init(&mc);
			mc.host = h->name;
			mc.stage = s->name;
			mc.checking = d->o.check;
			mc.params = params;
			mc.capture = true;
			mc.probe = slot;
			mc.err = &err;
			if (s->module->check(&mc) != ERR_DEFERRED)
				probe_slot_release(slot);
			mod_ctx_release(&mc);
			json_decref(params);
			err_clear(&err);
		}
	}
	free(hosts);
}

void deploy_pause(struct deploy *d, bool paused)
{
	runner_pause(d->runner, paused);
}

void deploy_retry(struct deploy *d, size_t stage)
{
	if (stage < d->pb->nstages)
		atomic_store(&d->retry_req[stage], true);
}

/* ---- one host's control: asked on any thread, acted on by the run's ---- */

static void ask(struct deploy *d, size_t host, unsigned what, const char *who)
{
	pthread_mutex_lock(&d->ctl_lock);
	d->ctl_req[host] |= what;
	free(d->ctl_who[host]);
	d->ctl_who[host] = xstrdup(who && *who ? who : "someone");
	pthread_mutex_unlock(&d->ctl_lock);
}

void deploy_retry_host(struct deploy *d, size_t host, const char *who)
{
	if (host < d->inv->nhosts)
		ask(d, host, CTL_RETRY, who);
}

void deploy_skip_host(struct deploy *d, size_t host, const char *who)
{
	if (host < d->inv->nhosts)
		ask(d, host, CTL_SKIP, who);
}

void deploy_stop_host(struct deploy *d, size_t host, const char *who)
{
	if (host >= d->inv->nhosts)
		return;
	ask(d, host, CTL_STOP, who);
	/* now, not when the run's thread next looks: the command running
	 * there ends as a timed-out one does (its process group killed) */
	d->host_stop[host] = 1;
	runner_stop_host(d->runner, host, true);
}

static void control_event(struct deploy *d, size_t host, size_t stage, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void control_event(struct deploy *d, size_t host, size_t stage, const char *fmt, ...)
{
	struct dep_event ev = { .kind = DEV_CONTROL, .host = host_name(d, host),
				.stage = stage < d->pb->nstages ? stage : 0 };
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	ev.msg = msg.buf;
	emit(d, &ev);
	strbuf_release(&msg);
}

/*
 * On the run's thread, whenever it looks (each runner event, each stage):
 * a stop or a skip asked is taken and said (event); a retry is said once
 * and left for the next point where a host may start again (retry_hosts).
 */
static void take_controls(struct deploy *d)
{
	for (size_t h = 0; h < d->inv->nhosts; h++) {
		unsigned req;
		char *who = NULL;

		pthread_mutex_lock(&d->ctl_lock);
		req = d->ctl_req[h];
		d->ctl_req[h] &= CTL_RETRY;
		if (req & (CTL_STOP | CTL_SKIP))
			who = xstrdup(d->ctl_who[h]);
		pthread_mutex_unlock(&d->ctl_lock);
		if (req & CTL_STOP) {
			free(d->stop_why[h]);
			d->stop_why[h] = xasprintf("stopped by %s", who);
			control_event(d, h, d->cur_stage, "stop by %s: the command running there is "
				      "stopped (its process group killed, as on a timeout); the host "
				      "fails and its later stages are skipped", who);
		}
		if ((req & CTL_SKIP) && !d->skip_why[h]) {
			d->skip_why[h] = xasprintf("skipped by %s", who);
			control_event(d, h, d->cur_stage, "skip by %s: the stages it has not begun "
				      "are skipped (one under way finishes)", who);
		}
		free(who);
	}
}

/* The host's first stage that did not succeed (failed, unreachable, or skipped for that). */
static size_t first_not_done(struct deploy *d, size_t h)
{
	for (size_t st = 0; st < d->pb->nstages; st++)
		if (not_done(cell(d, st, h)->result) || d->blocked[st * d->ncols + h])
			return st;
	return d->pb->nstages;
}

/*
 * Host h again, from its first stage that did not succeed up to stage
 * `upto` (the pass goes on from there with it): its own stages on it
 * alone, and the cluster-wide stages it missed on their own hosts
 * (run_once_again), as --resume would. No other host runs anything.
 */
static void retry_host(struct deploy *d, size_t h, size_t upto, const char *who)
{
	size_t first = first_not_done(d, h);

	if (first >= upto || d->cancelled || d->abort_reason) {
		control_event(d, h, d->cur_stage, "retry by %s: %s", who, first >= upto ?
			      "nothing to retry (no stage failed)" : "not now: the run stops");
		return;
	}
	control_event(d, h, first, "retry by %s: runs again from stage %s, with the "
		      "cluster-wide stages it missed", who, d->pb->stages[first].name);
	free(d->failed[h]);
	d->failed[h] = NULL;
	free(d->stop_why[h]);
	d->stop_why[h] = NULL;
	free(d->skip_why[h]);
	d->skip_why[h] = NULL;
	d->host_stop[h] = 0;
	runner_stop_host(d->runner, h, false);
	for (size_t st = first; st < d->pb->nstages; st++) {
		struct deploy_cell *c = cell(d, st, h);

		free(c->reason);
		strlist_clear(&c->changes);
		strlist_clear(&c->diffs);
		*c = (struct deploy_cell){ .result = RES_NONE };
		d->blocked[st * d->ncols + h] = false;
	}
	d->only = xcalloc(d->ncols, sizeof(*d->only));
	d->only[h] = true;
	for (size_t st = first; st < upto; st++)
		run_stage(d, st);
	free(d->only);
	d->only = NULL;
}

/* The retries asked for, each host in turn, up to stage `upto`. */
static void retry_hosts(struct deploy *d, size_t upto)
{
	take_controls(d);
	for (size_t h = 0; h < d->inv->nhosts && !d->cancelled; h++) {
		char *who = NULL;

		pthread_mutex_lock(&d->ctl_lock);
		if (d->ctl_req[h] & CTL_RETRY) {
			d->ctl_req[h] &= ~CTL_RETRY;
			who = xstrdup(d->ctl_who[h]);
		}
		pthread_mutex_unlock(&d->ctl_lock);
		if (who)
			retry_host(d, h, upto, who);
		free(who);
	}
}

/* The earliest stage whose retry was asked for (its request taken), or -1. */
static ssize_t take_retry(struct deploy *d)
{
	for (size_t st = 0; st < d->pb->nstages; st++)
		if (atomic_exchange(&d->retry_req[st], false))
			return (ssize_t)st;
	return -1;
}

/*
 * The hosts that failed stage `first` run it again, and the stages after it
 * that their failure made them skip. The journal's entries are overwritten.
 */
static void run_retries(struct deploy *d)
{
	ssize_t first;

	while ((first = take_retry(d)) >= 0 && !d->cancelled && !d->abort_reason) {
		size_t nretry = 0;

		d->only = xcalloc(d->ncols, sizeof(*d->only));
		for (size_t h = 0; h < d->ncols; h++)
			if (cell(d, (size_t)first, h)->result == RES_FAILED)
				d->only[h] = true, nretry++;
		for (size_t h = 0; nretry && h < d->ncols; h++) {
			if (!d->only[h])
				continue;
			free(d->failed[h]);
			d->failed[h] = NULL;
			/* a host stopped from the TUI runs again too */
			if (h < d->inv->nhosts && d->host_stop[h]) {
				d->host_stop[h] = 0;
				runner_stop_host(d->runner, h, false);
				free(d->stop_why[h]);
				d->stop_why[h] = NULL;
			}
			for (size_t st = (size_t)first; st < d->pb->nstages; st++) {
				struct deploy_cell *c = cell(d, st, h);

				free(c->reason);
				strlist_clear(&c->changes);
				strlist_clear(&c->diffs);
				*c = (struct deploy_cell){ .result = RES_NONE };
				d->blocked[st * d->ncols + h] = false;
			}
		}
		for (size_t st = (size_t)first; nretry && st < d->pb->nstages; st++)
			run_stage(d, st);
		free(d->only);
		d->only = NULL;
	}
}

int deploy_run(struct deploy *d, dep_event_fn cb, void *arg, struct err *err)
{
	struct dep_event ev = { .kind = DEV_RUN_DONE, .stage = (size_t)-1 };
	bool failed = false;

	d->cb = cb;
	d->cb_arg = arg;
	if (!d->ran) {
		d->ran = true;
		d->t0 = now_ms();
		if (d->journal) {
			for (size_t i = 0; i < d->pb->nstages; i++)
				journal_stage(d->journal, d->pb->stages[i].name,
					      d->pb->stages[i].module->name,
					      d->pb->stages[i].module->version);
			journal_attempt(d->journal);
			save(d, true);
		}
		plan_prefetch(d);
		for (size_t i = 0; i < d->pb->nstages; i++) {
			/* a host retried now goes through what it missed before
			 * the pass takes it on to this stage */
			retry_hosts(d, i);
			run_stage(d, i);
		}
	}
	run_retries(d);
	retry_hosts(d, d->pb->nstages);
	for (size_t i = 0; i < d->pb->nstages * d->ncols; i++)
		failed |= not_done(d->cells[i].result);
	if (d->journal) {
		journal_set_state(d->journal, d->cancelled && !d->save_rc ? "interrupted" :
				  failed || d->save_rc ? "failed" : "completed");
		save(d, true);
	}
	ev.interrupted = d->cancelled;
	emit(d, &ev);
	if (d->save_rc)
		return err_set(err, d->save_rc, "%s", err_msg(&d->save_err));
	return 0;
}

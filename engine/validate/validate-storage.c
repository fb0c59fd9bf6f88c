/*
 * The storage validation stage: fio on the shared file system, sequential
 * 1 MiB blocks, direct I/O, several jobs, as the storage papers measured.
 *
 * 1. Every node at once writes, then reads: a node far below the fleet's
 *    median (under min_fraction_pct of it) fails, naming the node and the
 *    direction; one merely far by median and MAD warns.
 * 2. Scaling: reads on 1, 2, 4, ... of the nodes that passed, at once; the
 *    aggregate must keep growing with the number of nodes (scaling_pct of
 *    linear from the 1-node figure) until the storage limit the inventory
 *    gives (limit_mbps; without one, it must at least not fall).
 * Every run is kept in the report, tries included.
 */
#include "validate.h"
#include "validate-int.h"
#include "../inventory/inventory.h"
#include "../ssh/runner.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RW_WRITE, RW_READ, RW__N };
static const char *const rw_names[RW__N] = { "write", "read" };

struct fio_job {
	const struct validate_cfg *cfg;
	const struct host *h;
	const char *dir;
	bool write_too;
	double mbps[RW__N];       /* MB/s (10^6 bytes); -1: none */
	char *error;
	json_t *tries;
};

static const char *storage_dir(const struct validate_storage_cfg *c, const struct host *h)
{
	const char *v = json_string_value(json_object_get(h->vars, "gpfs_mount_point"));

	return c->directory ? c->directory : v ? v : NULL;
}

/* One fio run; MB/s or -1 with j->error set. */
static double run_fio(struct task_ctx *t, struct fio_job *j, int rw, unsigned attempt)
{
	const struct validate_storage_cfg *c = &j->cfg->storage;
	struct strbuf line = STRBUF_INIT, sub = STRBUF_INIT;
	struct remote_cmd cmd = { .timeout_ms = (c->runtime_s + c->slack_s) * 1000u,
				  .max_output = 1u << 20 };
	struct cmd_result res;
	struct err e = ERR_INIT;
	json_t *out = NULL, *side;
	json_error_t je;
	double mbps = -1;

	strbuf_addf(&sub, "%s/bringup-validate-%s", j->dir, j->h->name);
	strbuf_addstr(&line, "mkdir -p ");
	strbuf_addshquoted(&line, sub.buf);
	strbuf_addstr(&line, " && ");
	strbuf_addstr(&line, c->command);
	strbuf_addstr(&line, " --name=bringup --directory=");
	strbuf_addshquoted(&line, sub.buf);
	strbuf_addf(&line, " --rw=%s --bs=1M --direct=1 --ioengine=libaio --numjobs=%u --size=",
		    rw_names[rw], c->numjobs);
	strbuf_addshquoted(&line, c->size);
	strbuf_addf(&line, " --runtime=%u --time_based --group_reporting --output-format=json",
		    c->runtime_s);
	if (rw == RW_READ) {
		strbuf_addstr(&line, "; r=$?; rm -rf ");
		strbuf_addshquoted(&line, sub.buf);
		strbuf_addstr(&line, "; exit $r");
	}
	cmd.command = line.buf;
	cmd_result_init(&res);
	free(j->error);
	j->error = NULL;
	if (task_exec(t, 0, &cmd, &res, &e))
		j->error = xstrdup(err_msg(&e));
	else if (res.outcome == CMD_TIMED_OUT)
		j->error = xasprintf("timed out after %u s (killed)", c->runtime_s + c->slack_s);
	else if (res.outcome != CMD_EXITED || res.exit_status)
		j->error = xasprintf("fio failed (exit %d): %.200s", res.exit_status,
				     res.err.len ? res.err.buf : "no message");
	else if (!(out = json_loadb(res.out.buf ? res.out.buf : "", res.out.len, 0, &je)))
		j->error = xasprintf("fio: output is no JSON: %s (line %d)", je.text, je.line);
	else if (!json_is_object(side = json_object_get(json_array_get(json_object_get(out, "jobs"), 0),
							rw_names[rw])) ||
		 !json_is_integer(json_object_get(side, "bw_bytes")))
		j->error = xstrdup("fio: no jobs[0]." "read/write bw_bytes in its JSON");
	else
		mbps = (double)json_integer_value(json_object_get(side, "bw_bytes")) / 1e6;
	json_array_append_new(j->tries, json_pack("{s:s, s:i, s:o, s:o}", "rw", rw_names[rw],
		"try", (json_int_t)attempt, "mbps", mbps < 0 ? json_null() : json_real(mbps),
		"error", j->error ? json_string(j->error) : json_null()));
	json_decref(out);
	err_clear(&e);
	cmd_result_release(&res);
	strbuf_release(&line);
	strbuf_release(&sub);
	return mbps;
}

static int fio_task(struct task_ctx *t, void *arg)
{
	struct fio_job *j = arg;

	for (int rw = j->write_too ? RW_WRITE : RW_READ; rw < RW__N; rw++)
		for (unsigned a = 1; a <= j->cfg->tries; a++)
			if ((j->mbps[rw] = run_fio(t, j, rw, a)) >= 0)
				break;
	return 0;
}

/* Runs fio on hosts[0..n) at once; jobs filled, caller releases them. */
static void run_step(struct runner *r, const struct inventory *inv, const struct validate_opts *o,
		     const size_t *hosts, size_t n, bool write_too, struct fio_job *jobs)
{
	struct task *tasks = xcalloc(n ? n : 1, sizeof(*tasks));

	for (size_t i = 0; i < n; i++) {
		jobs[i] = (struct fio_job){ .cfg = o->cfg, .h = &inv->hosts[hosts[i]],
					    .write_too = write_too, .mbps = { -1, -1 },
					    .tries = json_array() };
		jobs[i].dir = storage_dir(&o->cfg->storage, jobs[i].h);
		tasks[i].hosts = &hosts[i];
		tasks[i].nhosts = 1;
		tasks[i].fn = fio_task;
		tasks[i].arg = &jobs[i];
	}
	runner_run(r, tasks, n, NULL, NULL);
	for (size_t i = 0; i < n; i++) {
		if (tasks[i].rc && !jobs[i].error)
			jobs[i].error = xstrdup(err_msg(&tasks[i].err));
		task_release(&tasks[i]);
	}
	free(tasks);
}

static void release_jobs(struct fio_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].error);
		json_decref(jobs[i].tries);
	}
}

int validate_storage(struct runner *r, const struct inventory *inv,
		     const struct validate_opts *o, json_t *report, struct err *err)
{
	const struct validate_storage_cfg *c = &o->cfg->storage;
	json_t *stage = json_object(), *findings = json_array(), *results = json_array();
	json_t *scaling = json_array();
	size_t *ok = xcalloc(o->nhosts ? o->nhosts : 1, sizeof(*ok)), nok, ngood = 0;
	size_t *good = xcalloc(o->nhosts ? o->nhosts : 1, sizeof(*good));
	struct fio_job *jobs = xcalloc(o->nhosts ? o->nhosts : 1, sizeof(*jobs));
	double agg_all = 0, best = 0, one = -1, med[RW__N] = { 0, 0 };
	long long t0 = now_ms();

	nok = validate_reachable(r, o->hosts, o->nhosts, ok, findings, inv);
	for (size_t i = 0; i < nok; i++)
		if (!storage_dir(c, &inv->hosts[ok[i]])) {
			/* The message names the host: made before ok[] goes. */
			int rc = err_set(err, ERR_USAGE, "validate storage: host %s: no directory "
					 "to test (set validate.storage.directory or the var "
					 "gpfs_mount_point)", inv->hosts[ok[i]].name);

			free(ok);
			free(good);
			free(jobs);
			json_decref(stage);
			json_decref(findings);
			json_decref(results);
			json_decref(scaling);
			return rc;
		}
	run_step(r, inv, o, ok, nok, true, jobs);
	for (int rw = 0; rw < RW__N; rw++) {
		double *v = xcalloc(nok ? nok : 1, sizeof(*v));
		bool *low = xcalloc(nok ? nok : 1, sizeof(*low));
		size_t *who = xcalloc(nok ? nok : 1, sizeof(*who)), n = 0;

		for (size_t i = 0; i < nok; i++)
			if (jobs[i].mbps[rw] >= 0) {
				who[n] = i;
				v[n++] = jobs[i].mbps[rw];
			}
		med[rw] = validate_outliers_low(v, n, 5, low);
		for (size_t i = 0; i < n; i++) {
			if (v[i] * 100 < c->min_fraction_pct * med[rw])
				validate_finding(findings, VS_FAIL, jobs[who[i]].h->name, rw_names[rw],
						 "fio sequential %s %.0f MB/s, under %u%% of the fleet's "
						 "median %.0f MB/s (all %zu nodes at once)", rw_names[rw],
						 v[i], c->min_fraction_pct, med[rw], nok);
			else if (low[i])
				validate_finding(findings, VS_WARN, jobs[who[i]].h->name, rw_names[rw],
						 "fio sequential %s %.0f MB/s, the fleet's median is %.0f "
						 "(outlier by median and MAD)", rw_names[rw], v[i], med[rw]);
		}
		free(v);
		free(low);
		free(who);
	}
	for (size_t i = 0; i < nok; i++) {
		bool bad = false;

		for (int rw = 0; rw < RW__N; rw++) {
			if (jobs[i].mbps[rw] < 0) {
				validate_finding(findings, VS_FAIL, jobs[i].h->name, rw_names[rw], "%s",
						 jobs[i].error ? jobs[i].error : "no figure");
				bad = true;
			} else if (jobs[i].mbps[rw] * 100 < c->min_fraction_pct * med[rw]) {
				bad = true;
			}
		}
		if (jobs[i].mbps[RW_READ] >= 0)
			agg_all += jobs[i].mbps[RW_READ];
		if (!bad)
			good[ngood++] = ok[i];
		json_array_append_new(results, json_pack("{s:s, s:o, s:o, s:O}", "host", jobs[i].h->name,
			"write_mbps", jobs[i].mbps[RW_WRITE] < 0 ? json_null() : json_real(jobs[i].mbps[RW_WRITE]),
			"read_mbps", jobs[i].mbps[RW_READ] < 0 ? json_null() : json_real(jobs[i].mbps[RW_READ]),
			"tries", jobs[i].tries));
	}
	release_jobs(jobs, nok);
	/* Scaling: reads on 1, 2, 4, ... healthy nodes at once. */
	for (size_t k = 1; ngood >= 2 && k <= ngood; k = k * 2 > ngood && k < ngood ? ngood : k * 2) {
		double agg = 0, want;
		bool failed = false;

		run_step(r, inv, o, good, k, false, jobs);
		for (size_t i = 0; i < k; i++) {
			if (jobs[i].mbps[RW_READ] < 0)
				failed = true;
			else
				agg += jobs[i].mbps[RW_READ];
		}
		release_jobs(jobs, k);
		if (k == 1)
			one = agg;
		/* With a limit: linear growth until it. Without: no fall. */
		if (c->limit_mbps)
			want = (one * (double)k < c->limit_mbps ? one * (double)k : c->limit_mbps) *
			       c->scaling_pct / 100;
		else
			want = best * c->scaling_pct / 100;
		json_array_append_new(scaling, json_pack("{s:i, s:f, s:f}", "nodes", (json_int_t)k,
							 "read_mbps", agg, "expected_min_mbps", want));
		if (failed || agg < want)
			validate_finding(findings, VS_FAIL, NULL, "scaling",
					 "aggregate read on %zu nodes %.0f MB/s, expected at least %.0f "
					 "(1 node: %.0f MB/s, storage limit %s)", k, agg, want, one,
					 c->limit_mbps ? "given" : "not given");
		if (agg > best)
			best = agg;
		if (k == ngood)
			break;
	}
	json_object_set_new(stage, "stage", json_string("storage"));
	json_object_set_new(stage, "aggregate_read_mbps", json_real(agg_all));
	json_object_set_new(stage, "results", results);
	json_object_set_new(stage, "scaling", scaling);
	json_object_set_new(stage, "findings", findings);
	json_object_set_new(stage, "status", json_string(vstatus_name(validate_findings_status(findings))));
	json_object_set_new(stage, "wall_s", json_real((double)(now_ms() - t0) / 1000.0));
	json_array_append_new(json_object_get(report, "stages"), stage);
	free(jobs);
	free(good);
	free(ok);
	return 0;
}

/*
 * The resnet validation stage: ResNet-50 training throughput on synthetic
 * data (images/sec) on 1, 2, 4 and 8 GPUs of every node, all nodes at
 * once; scaling efficiency against the 1-GPU figure (the Redpaper: 7,096
 * img/s on 8 V100). A node below min_efficiency fails, naming the GPU whose
 * hardware slowdown is active; the node that drags the cluster (the
 * slowest, when it lies far below the fleet's median) is named too.
 *
 * The command is configurable (`validate.resnet.command`); the default is
 * tf_cnn_benchmarks, whose output the simulated nodes print. Runs across
 * nodes (Horovod/mpirun) are not done here: the cluster figure in the
 * report is the sum of the nodes' figures, an upper bound.
 */
#include "validate.h"
#include "validate-int.h"
#include "inventory.h"
#include "parse.h"
#include "runner.h"
#include "strbuf.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESNET_MAX_STEPS 4   /* 1, 2, 4, 8 GPUs */

struct resnet_job {
	const struct validate_cfg *cfg;
	const struct host *h;
	unsigned gpus[RESNET_MAX_STEPS];
	double ips[RESNET_MAX_STEPS];   /* -1: no figure */
	size_t n;
	json_t *tries;                  /* every try of every step */
	char *error;                    /* the last step's failure; owned */
	char *slow_gpus;
};

double validate_resnet_parse(const char *out, size_t len, const char *errout, char **ret_error)
{
	struct err e = ERR_INIT;
	json_t *p = NULL;
	double ips = -1;

	*ret_error = NULL;
	if (parse_tf_cnn_benchmarks(out ? out : "", out ? len : 0, &p, &e))
		*ret_error = xasprintf("%s%s%s", err_msg(&e), errout ? ": " : "", errout ? errout : "");
	else if (!json_is_number(json_object_get(p, "total_images_per_sec")))
		*ret_error = xstrdup("no 'total images/sec' line");
	else
		ips = json_number_value(json_object_get(p, "total_images_per_sec"));
	json_decref(p);
	err_clear(&e);
	return ips;
}

void validate_resnet_try(json_t *tries, unsigned gpus, unsigned attempt, double ips,
			 const char *error)
{
	json_array_append_new(tries, json_pack("{s:i, s:i, s:o, s:o}", "gpus", (json_int_t)gpus,
					       "try", (json_int_t)attempt, "images_per_sec",
					       ips < 0 ? json_null() : json_real(ips), "error",
					       error ? json_string(error) : json_null()));
}

double validate_resnet_efficiency(const unsigned *gpus, const double *ips, size_t n)
{
	if (n > 1 && ips[0] > 0 && ips[n - 1] >= 0)
		return ips[n - 1] * 100 / (gpus[n - 1] * ips[0]);
	return -1;
}

static double run_step(struct task_ctx *t, struct resnet_job *j, unsigned g, unsigned attempt)
{
	const struct validate_resnet_cfg *c = &j->cfg->resnet;
	struct strbuf line = STRBUF_INIT;
	struct remote_cmd cmd = { .timeout_ms = c->timeout_s * 1000u, .max_output = 4u << 20 };
	struct cmd_result res;
	struct err e = ERR_INIT;
	double ips = -1;

	strbuf_addstr(&line, c->command);
	strbuf_addf(&line, " --model=resnet50 --batch_size=%u --num_gpus=%u --num_batches=%u "
		    "--variable_update=replicated", c->batch_size, g, c->num_batches);
	cmd.command = line.buf;
	cmd_result_init(&res);
	free(j->error);
	j->error = NULL;
	if (task_exec(t, 0, &cmd, &res, &e))
		j->error = xstrdup(err_msg(&e));
	else if (res.outcome == CMD_TIMED_OUT)
		j->error = xasprintf("timed out after %u s (killed)", c->timeout_s);
	else
		ips = validate_resnet_parse(res.out.buf, res.out.len, res.err.len ? res.err.buf : NULL,
					    &j->error);
	validate_resnet_try(j->tries, g, attempt, ips, j->error);
	err_clear(&e);
	cmd_result_release(&res);
	strbuf_release(&line);
	return ips;
}

static int node_task(struct task_ctx *t, void *arg)
{
	struct resnet_job *j = arg;

	for (size_t k = 0; k < j->n; k++) {
		for (unsigned attempt = 1; attempt <= j->cfg->tries; attempt++) {
			j->ips[k] = run_step(t, j, j->gpus[k], attempt);
			if (j->ips[k] >= 0)
				break;
		}
	}
	double eff = validate_resnet_efficiency(j->gpus, j->ips, j->n);

	if (eff >= 0 && eff < j->cfg->resnet.min_efficiency_pct)
		j->slow_gpus = validate_slow_gpus(t, 0);
	return 0;
}

double validate_resnet_judge_node(const struct validate_cfg *cfg, const struct host *h,
				  const unsigned *gpus, const double *ips, size_t n, json_t *tries,
				  const char *error, const char *slow_gpus, json_t *results,
				  json_t *findings)
{
	const struct validate_resnet_cfg *c = &cfg->resnet;
	json_t *steps = json_array();
	double eff = validate_resnet_efficiency(gpus, ips, n), last = n ? ips[n - 1] : -1;

	for (size_t k = 0; k < n; k++)
		json_array_append_new(steps, json_pack("{s:i, s:o, s:o}", "gpus",
			(json_int_t)gpus[k], "images_per_sec",
			ips[k] < 0 ? json_null() : json_real(ips[k]), "ideal",
			ips[0] < 0 ? json_null() : json_real(ips[0] * gpus[k])));
	json_array_append_new(results, json_pack("{s:s, s:o, s:o, s:O}", "host", h->name,
		"steps", steps, "efficiency_pct", eff < 0 ? json_null() : json_real(eff),
		"tries", tries));
	if (last < 0 || (n && ips[0] < 0))
		validate_finding(findings, VS_FAIL, h->name, NULL, "ResNet-50: %s",
				 error ? error : "no figure");
	else if (eff >= 0 && eff < c->min_efficiency_pct)
		validate_finding(findings, VS_FAIL, h->name, slow_gpus,
				 "ResNet-50 on %u GPUs: %.0f images/sec, %.0f%% of %u x the 1-GPU "
				 "%.0f (below %u%%)%s%s", gpus[n - 1], last, eff,
				 gpus[n - 1], ips[0], c->min_efficiency_pct,
				 slow_gpus ? "; hardware slowdown active on " : "",
				 slow_gpus ? slow_gpus : "");
	return last;
}

void validate_resnet_fleet(const struct host *const *hosts, const double *top, size_t nj,
			   json_t *findings)
{
	/* The node that drags: far below the fleet's median, though it passed. */
	double *v = xcalloc(nj ? nj : 1, sizeof(*v)), med;
	bool *low = xcalloc(nj ? nj : 1, sizeof(*low));
	size_t *who = xcalloc(nj ? nj : 1, sizeof(*who)), n = 0;

	for (size_t i = 0; i < nj; i++)
		if (top[i] >= 0) {
			who[n] = i;
			v[n++] = top[i];
		}
	med = validate_outliers_low(v, n, 5, low);
	for (size_t i = 0; i < n; i++)
		if (low[i])
			validate_finding(findings, VS_WARN, hosts[who[i]]->name, NULL,
					 "ResNet-50: %.0f images/sec, the fleet's median is %.0f: "
					 "this node drags a synchronous job (outlier by median "
					 "and MAD)", v[i], med);
	free(v);
	free(low);
	free(who);
}

int validate_resnet(struct runner *r, const struct inventory *inv,
		    const struct validate_opts *o, json_t *report, struct err *err)
{
	json_t *stage = json_object(), *findings = json_array(), *results = json_array();
	size_t *ok = xcalloc(o->nhosts ? o->nhosts : 1, sizeof(*ok)), nok, nj = 0;
	struct resnet_job *jobs;
	struct task *tasks;
	const struct host **hs;
	double *top, cluster = 0;
	long long t0 = now_ms();

	(void)err;
	nok = validate_reachable(r, o->hosts, o->nhosts, ok, findings, inv);
	jobs = xcalloc(nok ? nok : 1, sizeof(*jobs));
	tasks = xcalloc(nok ? nok : 1, sizeof(*tasks));
	top = xcalloc(nok ? nok : 1, sizeof(*top));
	hs = xcalloc(nok ? nok : 1, sizeof(*hs));
	for (size_t i = 0; i < nok; i++) {
		const struct host *h = &inv->hosts[ok[i]];
		struct resnet_job *j = &jobs[nj];

		if (!h->gpus.count)
			continue;
		j->cfg = o->cfg;
		j->h = h;
		j->tries = json_array();
		for (unsigned g = 1; g <= h->gpus.count && j->n < RESNET_MAX_STEPS; g *= 2)
			j->gpus[j->n++] = g;
		tasks[nj].hosts = &ok[i];
		tasks[nj].nhosts = 1;
		tasks[nj].fn = node_task;
		tasks[nj].arg = j;
		nj++;
	}
	runner_run(r, tasks, nj, NULL, NULL);
	for (size_t i = 0; i < nj; i++) {
		struct resnet_job *j = &jobs[i];

		if (tasks[i].rc) {
			validate_finding(findings, tasks[i].rc == ERR_CONNECT ? VS_UNREACHABLE : VS_FAIL,
					 j->h->name, NULL, "%s", err_msg(&tasks[i].err));
			top[i] = -1;
			continue;
		}
		top[i] = validate_resnet_judge_node(o->cfg, j->h, j->gpus, j->ips, j->n, j->tries,
						    j->error, j->slow_gpus, results, findings);
		if (top[i] >= 0)
			cluster += top[i];
	}
	for (size_t i = 0; i < nj; i++)
		hs[i] = jobs[i].h;
	validate_resnet_fleet(hs, top, nj, findings);
	json_object_set_new(stage, "stage", json_string("resnet"));
	json_object_set_new(stage, "scope", json_string(
		"per node, 1-2-4-8 GPUs; the cluster figure is the sum of the nodes' (no "
		"multi-node run)"));
	json_object_set_new(stage, "cluster_images_per_sec", json_real(cluster));
	json_object_set_new(stage, "results", results);
	json_object_set_new(stage, "findings", findings);
	json_object_set_new(stage, "status", json_string(vstatus_name(validate_findings_status(findings))));
	json_object_set_new(stage, "wall_s", json_real((double)(now_ms() - t0) / 1000.0));
	json_array_append_new(json_object_get(report, "stages"), stage);
	for (size_t i = 0; i < nj; i++) {
		json_decref(jobs[i].tries);
		free(jobs[i].error);
		free(jobs[i].slow_gpus);
		task_release(&tasks[i]);
	}
	free(top);
	free(hs);
	free(tasks);
	free(jobs);
	free(ok);
	return 0;
}

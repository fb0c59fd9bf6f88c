/*
 * The resnet validation stage: ResNet-50 training throughput on synthetic
 * data (images/sec) on 1, 2, 4 and 8 GPUs of every node, then on all nodes
 * at once; scaling efficiency against the 1-GPU figure (the Redpaper: 7,096
 * img/s on 8 V100, 13,745 on 16 across two nodes). A node below
 * min_efficiency fails, naming the GPU whose hardware slowdown is active;
 * the node that drags the cluster (the slowest, when it lies far below the
 * fleet's median) is named too.
 *
 * The benchmark (`validate.resnet.benchmark`) is NVIDIA DeepLearningExamples'
 * PyTorch ResNet-50 v1.5 with mixed precision by default, launched by its
 * multiproc.py (one process a GPU); tf_cnn_benchmarks, which the Redpaper
 * used and which is no longer maintained, stays for comparison with it.
 * The command is configurable; both run under the real Open MPI mpirun for
 * the run across nodes, started on the first GPU node and reaching the
 * others over SSH as the nccl stage does (validate-mpi.c): tf_cnn as
 * Horovod (one rank a GPU), DLE as one multiproc.py a node (--nnodes,
 * --node_rank from the rank). That run's figure is the cluster's, its
 * efficiency the figure against nodes x GPUs x the fleet's median 1-GPU
 * figure; below min_efficiency it fails, on the node whose own figure
 * drags it (from the per-node runs: rank 0 alone prints the job's figure).
 */
#include "validate.h"
#include "validate-int.h"
#include "../inventory/inventory.h"
#include "../facts/parse.h"
#include "../ssh/runner.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"

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

double validate_resnet_parse_bench(enum resnet_bench b, const char *out, size_t len,
				   const char *errout, char **ret_error)
{
	parse_fn *fn = b == RESNET_TF_CNN ? parse_tf_cnn_benchmarks : parse_dle_resnet50;
	const char *key = b == RESNET_TF_CNN ? "total_images_per_sec" : "images_per_sec";
	struct err e = ERR_INIT;
	json_t *p = NULL;
	double ips = -1;

	*ret_error = NULL;
	if (fn(out ? out : "", out ? len : 0, &p, &e))
		*ret_error = xasprintf("%s%s%s", err_msg(&e), errout ? ": " : "", errout ? errout : "");
	else if (json_is_false(json_object_get(p, "ok")))
		*ret_error = xasprintf("%s", json_string_value(json_object_get(p, "error")));
	else if (!json_is_number(json_object_get(p, key)))
		*ret_error = xstrdup(b == RESNET_TF_CNN ? "no 'total images/sec' line" :
				     "no train.total_ips figure");
	else
		ips = json_number_value(json_object_get(p, key));
	json_decref(p);
	err_clear(&e);
	return ips;
}

double validate_resnet_parse(const char *out, size_t len, const char *errout, char **ret_error)
{
	return validate_resnet_parse_bench(RESNET_TF_CNN, out, len, errout, ret_error);
}

/*
 * The benchmark's command line for g GPUs a node. nodes > 1: one rank of an
 * mpirun job across that many nodes (tf_cnn: one GPU a rank, Horovod; DLE:
 * the node's launcher, node_rank from Open MPI's rank, `master` the first
 * node). DLE's output on stderr (tracebacks) goes with stdout, so that the
 * parser sees the tool's failure.
 */
void validate_resnet_args(struct strbuf *sb, const struct validate_resnet_cfg *c, unsigned g,
			  size_t nodes, const char *master)
{
	strbuf_addstr(sb, validate_resnet_command(c));
	if (c->benchmark == RESNET_TF_CNN) {
		strbuf_addf(sb, " --model=resnet50 --batch_size=%u --num_gpus=%u --num_batches=%u "
			    "--variable_update=%s", validate_resnet_batch(c), nodes > 1 ? 1 : g,
			    c->num_batches, nodes > 1 ? "horovod" : "replicated");
		return;
	}
	if (nodes > 1) {
		strbuf_addf(sb, " --nnodes %zu --node_rank \"$OMPI_COMM_WORLD_RANK\" --master_addr ", nodes);
		strbuf_addshquoted(sb, master);
		strbuf_addstr(sb, " --master_port 29500");
	}
	strbuf_addf(sb, " --nproc_per_node %u ./main.py --arch resnet50 -b %u%s --data-backend "
		    "synthetic --epochs 1 --prof %u --training-only --no-checkpoints --workspace "
		    "\"${TMPDIR:-/tmp}\" /imagenet 2>&1", g, validate_resnet_batch(c),
		    c->amp ? " --amp --static-loss-scale 256" : "", c->num_batches);
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

	validate_resnet_args(&line, c, g, 1, NULL);
	cmd.command = line.buf;
	cmd_result_init(&res);
	free(j->error);
	j->error = NULL;
	if (task_exec(t, 0, &cmd, &res, &e))
		j->error = xstrdup(err_msg(&e));
	else if (res.outcome == CMD_TIMED_OUT)
		j->error = xasprintf("timed out after %u s (killed)", c->timeout_s);
	else
		ips = validate_resnet_parse_bench(c->benchmark, res.out.buf, res.out.len,
						  res.err.len ? res.err.buf : NULL, &j->error);
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

/* ---- all nodes at once ---- */

struct cluster_job {
	const struct validate_cfg *cfg;
	const struct inventory *inv;
	const size_t *hosts;          /* inventory indexes, launcher first */
	size_t n;
	unsigned gpus;                /* a node: the fewest any has, up to 8 */
	double ips;                   /* -1: none */
	char *error;                  /* the last try's failure; owned */
	char *peer_error;             /* node-to-node SSH refused; owned */
	json_t *tries;
};

static void cluster_try(struct task_ctx *t, struct cluster_job *cj, unsigned attempt)
{
	const struct validate_resnet_cfg *c = &cj->cfg->resnet;
	const struct host *l = &cj->inv->hosts[cj->hosts[0]];
	bool tf = c->benchmark == RESNET_TF_CNN;
	struct strbuf hf = STRBUF_INIT, prog = STRBUF_INIT, line = STRBUF_INIT;
	struct remote_cmd cmd = { .timeout_ms = c->timeout_s * 1000u, .max_output = 8u << 20 };
	struct cmd_result res;
	struct err e = ERR_INIT;
	const char **names = xcalloc(cj->n, sizeof(*names));

	for (size_t i = 0; i < cj->n; i++)
		names[i] = cj->inv->hosts[cj->hosts[i]].name;
	/* Horovod: a rank a GPU, by slot; DLE: one launcher a node. */
	validate_mpi_hostfile(&hf, names, cj->n, tf ? cj->gpus : 1);
	validate_mpi_begin(&line, c->mpirun_command, hf.buf, tf ? cj->n * cj->gpus : cj->n,
			   l->ssh.port);
	validate_resnet_args(&prog, c, cj->gpus, cj->n, l->name);
	if (tf) {
		strbuf_addstr(&line, " -bind-to none -map-by slot $rootx ");
		strbuf_addstr(&line, prog.buf);
	} else {
		/* The node rank is the MPI rank, known only on the node. */
		strbuf_addstr(&line, " $rootx sh -c ");
		strbuf_addshquoted(&line, prog.buf);
	}
	validate_mpi_end(&line);
	cmd.command = line.buf;
	cmd_result_init(&res);
	free(cj->error);
	cj->error = NULL;
	cj->ips = -1;
	if (task_exec(t, 0, &cmd, &res, &e))
		cj->error = xstrdup(err_msg(&e));
	else if (res.outcome == CMD_TIMED_OUT)
		cj->error = xasprintf("timed out after %u s (mpirun killed)", c->timeout_s);
	else if (res.outcome == CMD_EXITED && res.exit_status == 127)
		cj->error = xasprintf("%s not found on %s (install Open MPI: openmpi-bin)",
				      c->mpirun_command, l->name);
	else
		cj->ips = validate_resnet_parse_bench(c->benchmark, res.out.buf, res.out.len,
						      NULL, &cj->error);
	validate_resnet_try(cj->tries, (unsigned)cj->n * cj->gpus, attempt, cj->ips, cj->error);
	err_clear(&e);
	cmd_result_release(&res);
	strbuf_release(&hf);
	strbuf_release(&prog);
	strbuf_release(&line);
	free(names);
}

static int cluster_task(struct task_ctx *t, void *arg)
{
	struct cluster_job *cj = arg;

	cj->peer_error = validate_mpi_peer_probe(t, cj->inv, cj->hosts, cj->n);
	for (unsigned a = 1; !cj->peer_error && a <= cj->cfg->tries; a++) {
		cluster_try(t, cj, a);
		if (cj->ips >= 0)
			break;
	}
	return 0;
}

/*
 * The run across nodes judged against nodes x GPUs x the fleet's median
 * 1-GPU figure; below min_efficiency, or failed, it is blamed on the node
 * whose own figure drags (top[i] far below the fleet's median), else on
 * the nodes that failed alone, else on the launcher (the fabric between
 * them). Returns the measured figure, -1 when none.
 */
static double judge_cluster(const struct cluster_job *cj, const struct resnet_job *jobs,
			    const double *top, size_t nj, json_t *stage, json_t *findings)
{
	const struct validate_resnet_cfg *c = &cj->cfg->resnet;
	const char *launcher = cj->inv->hosts[cj->hosts[0]].name;
	double *v = xcalloc(nj ? nj : 1, sizeof(*v)), one, med, eff = -1, ideal = -1;
	json_t *mn = json_object(), *nodes = json_array();
	size_t n1 = 0, nt = 0, worst = nj;
	char subject[64];

	for (size_t i = 0; i < cj->n; i++)
		json_array_append_new(nodes, json_string(cj->inv->hosts[cj->hosts[i]].name));
	for (size_t i = 0; i < nj; i++)
		if (jobs[i].n && jobs[i].ips[0] > 0)
			v[n1++] = jobs[i].ips[0];
	one = n1 ? validate_median(v, n1) : -1;
	for (size_t i = 0; i < nj; i++)
		if (top[i] >= 0) {
			v[nt++] = top[i];
			if (worst == nj || top[i] < top[worst])
				worst = i;
		}
	med = nt ? validate_median(v, nt) : -1;
	if (one > 0) {
		ideal = (double)cj->n * cj->gpus * one;
		if (cj->ips >= 0)
			eff = cj->ips * 100 / ideal;
	}
	snprintf(subject, sizeof(subject), "mpirun %zux%u", cj->n, cj->gpus);
	json_object_set_new(mn, "launcher", json_string(launcher));
	json_object_set_new(mn, "nodes", nodes);
	json_object_set_new(mn, "gpus_per_node", json_integer(cj->gpus));
	json_object_set_new(mn, "gpus", json_integer((json_int_t)(cj->n * cj->gpus)));
	json_object_set_new(mn, "images_per_sec", cj->ips < 0 ? json_null() : json_real(cj->ips));
	json_object_set_new(mn, "one_gpu_images_per_sec", one < 0 ? json_null() : json_real(one));
	json_object_set_new(mn, "ideal_images_per_sec", ideal < 0 ? json_null() : json_real(ideal));
	json_object_set_new(mn, "efficiency_pct", eff < 0 ? json_null() : json_real(eff));
	json_object_set(mn, "tries", cj->tries);
	json_object_set_new(stage, "multi_node", mn);
	if (cj->peer_error) {
		json_object_set_new(mn, "status", json_string("fail"));
		json_object_set_new(mn, "why", json_string(cj->peer_error));
		validate_finding(findings, VS_FAIL, launcher, "mpirun",
				 "cannot run ResNet-50 across nodes: node-to-node SSH: %s (precheck "
				 "ssh.peer; mpirun starts its ranks over SSH without a prompt)",
				 cj->peer_error);
		goto out;
	}
	if (cj->ips >= 0 && (eff < 0 || eff >= c->min_efficiency_pct)) {
		json_object_set_new(mn, "status", json_string("pass"));
		goto out;
	}
	json_object_set_new(mn, "status", json_string("fail"));
	if (cj->ips < 0) {
		bool hit = false;

		json_object_set_new(mn, "why", json_string(cj->error ? cj->error : "no figure"));
		for (size_t i = 0; i < nj; i++)
			if (top[i] < 0 || (jobs[i].n && jobs[i].ips[0] < 0)) {
				validate_finding(findings, VS_FAIL, jobs[i].h->name, subject,
						 "ResNet-50 across nodes: %s; this node also failed "
						 "its single-node runs", cj->error ? cj->error : "no figure");
				hit = true;
			}
		if (!hit)
			validate_finding(findings, VS_FAIL, launcher, subject, "ResNet-50 across "
					 "nodes: %s", cj->error ? cj->error : "no figure");
		goto out;
	}
	json_object_set_new(mn, "why", json_string("scaling efficiency across nodes below the line"));
	/* The slowest node drags a synchronous job when it is well under the
	 * others (10%: beyond the benchmark's run-to-run noise). */
	if (worst < nj && nt > 1 && top[worst] < 0.9 * med) {
		const struct resnet_job *w = &jobs[worst];

		json_object_set_new(mn, "drags", json_string(w->h->name));
		validate_finding(findings, VS_FAIL, w->h->name, subject,
				 "ResNet-50 on %zu nodes x %u GPUs: %.0f images/sec, %.0f%% of %zu x "
				 "the 1-GPU %.0f (below %u%%); %s drags it: %.0f images/sec on its "
				 "own %u GPUs, the fleet's median %.0f%s%s", cj->n, cj->gpus,
				 cj->ips, eff, cj->n * cj->gpus, one, c->min_efficiency_pct,
				 w->h->name, top[worst], w->gpus[w->n - 1], med,
				 w->slow_gpus ? "; hardware slowdown active on " : "",
				 w->slow_gpus ? w->slow_gpus : "");
	} else {
		validate_finding(findings, VS_FAIL, launcher, subject,
				 "ResNet-50 on %zu nodes x %u GPUs: %.0f images/sec, %.0f%% of %zu x "
				 "the 1-GPU %.0f (below %u%%); no node drags it (each one's own "
				 "figure is near the fleet's median %.0f): the fabric between them?",
				 cj->n, cj->gpus, cj->ips, eff, cj->n * cj->gpus, one,
				 c->min_efficiency_pct, med);
	}
out:
	free(v);
	return cj->ips;
}

int validate_resnet(struct runner *r, const struct inventory *inv,
		    const struct validate_opts *o, json_t *report, struct err *err)
{
	json_t *stage = json_object(), *findings = json_array(), *results = json_array();
	size_t *ok = xcalloc(o->nhosts ? o->nhosts : 1, sizeof(*ok)), nok, nj = 0;
	struct resnet_job *jobs;
	struct task *tasks;
	const struct host **hs;
	double *top, sum = 0, cluster;
	size_t *gh;
	long long t0 = now_ms();

	(void)err;
	nok = validate_reachable(r, o->hosts, o->nhosts, ok, findings, inv);
	jobs = xcalloc(nok ? nok : 1, sizeof(*jobs));
	tasks = xcalloc(nok ? nok : 1, sizeof(*tasks));
	top = xcalloc(nok ? nok : 1, sizeof(*top));
	hs = xcalloc(nok ? nok : 1, sizeof(*hs));
	gh = xcalloc(nok ? nok : 1, sizeof(*gh));
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
		gh[nj] = ok[i];
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
			sum += top[i];
	}
	for (size_t i = 0; i < nj; i++)
		hs[i] = jobs[i].h;
	validate_resnet_fleet(hs, top, nj, findings);
	json_object_set_new(stage, "stage", json_string("resnet"));
	json_object_set_new(stage, "benchmark", json_string(
		o->cfg->resnet.benchmark == RESNET_TF_CNN ? "tf_cnn" : "dle"));
	json_object_set_new(stage, "sum_images_per_sec", json_real(sum));
	if (nj > 1 && o->cfg->resnet.mpirun) {
		struct cluster_job cj = { .cfg = o->cfg, .inv = inv, .hosts = gh, .n = nj,
					  .gpus = 8, .ips = -1, .tries = json_array() };
		struct task task = { .hosts = gh, .nhosts = 1, .fn = cluster_task, .arg = &cj };

		for (size_t i = 0; i < nj; i++)
			if (jobs[i].h->gpus.count < cj.gpus)
				cj.gpus = jobs[i].h->gpus.count;
		runner_run(r, &task, 1, NULL, NULL);
		if (task.rc) {
			cj.error = xasprintf("cannot run mpirun on %s: %s", jobs[0].h->name,
					     err_msg(&task.err));
			cj.ips = -1;
		}
		cluster = judge_cluster(&cj, jobs, top, nj, stage, findings);
		json_object_set_new(stage, "scope", json_string(
			"per node, 1-2-4-8 GPUs; then all nodes at once through mpirun: the "
			"cluster figure is that run's"));
		json_decref(cj.tries);
		free(cj.error);
		free(cj.peer_error);
		task_release(&task);
	} else {
		/* One node: its figure is the cluster's; mpirun off: not measured. */
		cluster = nj == 1 ? sum : -1;
		json_object_set_new(stage, "scope", json_string(nj == 1 ?
			"one node, 1-2-4-8 GPUs" : "per node, 1-2-4-8 GPUs; no run across nodes "
			"(validate.resnet.mpirun is false): no cluster figure"));
	}
	json_object_set_new(stage, "cluster_images_per_sec", cluster < 0 ? json_null() : json_real(cluster));
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
	free(gh);
	free(tasks);
	free(jobs);
	free(ok);
	return 0;
}

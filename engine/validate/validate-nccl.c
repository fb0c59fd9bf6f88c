/*
 * The nccl validation stage: all_reduce_perf (nccl-tests) on every node,
 * with NCCL_DEBUG=INFO parsed for the transport NCCL chose.
 *
 * Two runs per node, all nodes at once:
 * - "nvlink": the node's GPUs as NCCL picks (NVLink/P2P): bus bandwidth at
 *   the largest size against the GPU model's figure, small-message latency
 *   in the tens of microseconds. When the bandwidth is short, the GPUs'
 *   hardware slowdown flags (nvidia-smi) name the GPU that drags.
 * - "net": the same with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1, so that the
 *   GPUs talk through the network transport and the node's HCAs (a loopback
 *   through the fabric): NCCL must say "Using network IB" and its channels
 *   "via NET/IB/N/GDRDMA" (when IB and GPUDirect RDMA are expected), with
 *   bus bandwidth at least 85% of the node's aggregate compute-port rate.
 * Then across nodes with the real mpirun (validate-mpi.c), blaming a failed
 * cross-node run on the nodes that show the fault.
 *
 * A failing run is tried again (cfg->tries in all); every try is kept. Each
 * node's figures are also compared with the fleet's (median and MAD), so a
 * node that passes the absolute line but lags its peers is named.
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

enum nrun { NRUN_NVLINK, NRUN_NET, NRUN__N };
static const char *const nrun_names[NRUN__N] = { "nvlink", "net" };

struct nccl_meas {
	double busbw;             /* GB/s at the largest size, out of place; -1 none */
	double latency_us;        /* time of the smallest size; -1 none */
	double min_busbw;         /* the line it was judged against */
	char *network;            /* "IB", "Socket"; owned, may be NULL */
	json_t *transports;       /* {"NET/IB/GDRDMA": 8, ...}; owned, may be NULL */
	json_t *curve;            /* [[bytes, busbw GB/s], ...] out of place; owned */
	enum vstatus st;
	struct strbuf why;        /* what failed, for the finding */
	json_t *tries;
};

struct nccl_job {
	const struct validate_cfg *cfg;
	const struct host *h;
	struct nccl_meas m[NRUN__N];
	char *slow_gpus;          /* "GPU 3" when the flags name one; owned */
};

/*
 * Bus bandwidth (GB/s) an 8-GPU single-node all-reduce at 256 MB reaches
 * when healthy, about 85% of the published figures: DGX-1V ~130, 8x A100
 * SXM ~228, 8x H100 ~460.
 */
static double model_busbw(const char *model)
{
	if (model && strstr(model, "H100"))
		return 390;
	if (model && strstr(model, "A100"))
		return 195;
	return 110;
}

static unsigned host_nic_gbps(const struct host *h)
{
	unsigned sum = 0;

	for (size_t i = 0; i < h->nhcas; i++)
		if (h->hcas[i].link_layer == LINK_IB)
			sum += h->hcas[i].rate_gbps;
	return sum;
}

static void judge(const struct nccl_job *j, enum nrun run, struct nccl_meas *m)
{
	const struct validate_nccl_cfg *c = &j->cfg->nccl;
	json_t *v;
	const char *k;
	size_t net = 0, gdr = 0;

	strbuf_reset(&m->why);
	m->st = VS_PASS;
	if (run == NRUN_NVLINK)
		m->min_busbw = c->min_busbw_gbps ? c->min_busbw_gbps : model_busbw(j->h->gpus.model);
	else
		m->min_busbw = c->net_pct / 100.0 * host_nic_gbps(j->h) / 8.0;
	if (m->busbw < 0) {
		m->st = VS_FAIL;
		return;
	}
	if (m->busbw < m->min_busbw)
		strbuf_addf(&m->why, "%sbus bandwidth %.1f GB/s below %.1f", m->why.len ? "; " : "",
			    m->busbw, m->min_busbw);
	if (m->latency_us > c->max_latency_us)
		strbuf_addf(&m->why, "%ssmall-message latency %.0f us above %u (thousands: the "
			    "traffic went over Ethernet)", m->why.len ? "; " : "", m->latency_us,
			    c->max_latency_us);
	if (run == NRUN_NET && c->expect_ib && (!m->network || strcmp(m->network, "IB")))
		strbuf_addf(&m->why, "%sNCCL used NET/%s, not NET/IB (libibverbs or the IB "
			    "devices not found)", m->why.len ? "; " : "", m->network ? m->network : "?");
	json_object_foreach(m->transports, k, v) {
		if (!strncmp(k, "NET/", 4))
			net += (size_t)json_integer_value(v);
		if (strstr(k, "/GDRDMA"))
			gdr += (size_t)json_integer_value(v);
	}
	if (run == NRUN_NET && c->expect_ib && c->expect_gdr && m->network &&
	    !strcmp(m->network, "IB") && (!net || gdr < net))
		strbuf_addf(&m->why, "%s%zu of %zu network channels without GDRDMA (GPUDirect RDMA "
			    "off: peer memory module?)", m->why.len ? "; " : "", net - gdr, net);
	if (m->why.len)
		m->st = VS_FAIL;
}

/* Reads busbw, latency and the NCCL_DEBUG verdict from one run's output. */
static void read_run(struct nccl_meas *m, const char *out, size_t len, char **ret_error)
{
	json_t *j = NULL, *rows, *first, *last, *info;
	struct err e = ERR_INIT;

	m->busbw = m->latency_us = -1;
	free(m->network);
	m->network = NULL;
	json_decref(m->transports);
	m->transports = NULL;
	json_decref(m->curve);
	m->curve = json_array();
	*ret_error = NULL;
	if (parse_nccl_tests(out, len, &j, &e)) {
		*ret_error = xstrdup(err_msg(&e));
		err_clear(&e);
		/* no table: the NCCL_DEBUG lines alone still tell the
		 * transport, judged as with a table */
		if (!(info = validate_nccl_info(out, len)))
			return;
		if (json_is_string(json_object_get(info, "network")))
			m->network = xstrdup(json_string_value(json_object_get(info, "network")));
		m->transports = json_incref(json_object_get(info, "transports"));
		if (!m->transports)
			m->transports = json_object();
		json_decref(info);
		return;
	}
	rows = json_object_get(j, "rows");
	first = json_array_get(rows, 0);
	last = json_array_get(rows, json_array_size(rows) - 1);
	{
		size_t i;
		json_t *row;

		json_array_foreach(rows, i, row)
			json_array_append_new(m->curve, json_pack("[O,O]", json_object_get(row, "size"),
				json_object_get(json_object_get(row, "out_of_place"), "busbw")));
	}
	if (last) {
		m->busbw = json_number_value(json_object_get(json_object_get(last, "out_of_place"), "busbw"));
		m->latency_us = json_number_value(json_object_get(json_object_get(first, "out_of_place"), "time_us"));
	} else {
		*ret_error = xstrdup("no result rows");
	}
	info = json_object_get(j, "nccl_info");
	if (json_is_string(json_object_get(info, "network")))
		m->network = xstrdup(json_string_value(json_object_get(info, "network")));
	m->transports = json_incref(json_object_get(info, "transports"));
	if (!m->transports)
		m->transports = json_object();
	json_decref(j);
}

static void run_command(const struct nccl_job *j, enum nrun run, struct strbuf *sb)
{
	const struct validate_nccl_cfg *c = &j->cfg->nccl;

	strbuf_addstr(sb, "NCCL_DEBUG=INFO ");
	if (run == NRUN_NET)
		strbuf_addstr(sb, "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 ");
	if (!c->expect_ib)
		strbuf_addstr(sb, "NCCL_IB_DISABLE=1 ");
	validate_nccl_args(sb, c, j->h->gpus.count);
}

static int node_task(struct task_ctx *t, void *arg)
{
	struct nccl_job *j = arg;

	for (int run = 0; run < NRUN__N; run++) {
		struct nccl_meas *m = &j->m[run];

		for (unsigned attempt = 1; attempt <= j->cfg->tries; attempt++) {
			struct strbuf line = STRBUF_INIT;
			struct remote_cmd cmd = { .timeout_ms = j->cfg->nccl.timeout_s * 1000u,
						  .max_output = 4u << 20 };
			struct cmd_result res;
			struct err e = ERR_INIT;
			char *error = NULL;
			json_t *try;
			int rc;

			run_command(j, (enum nrun)run, &line);
			cmd.command = line.buf;
			cmd_result_init(&res);
			rc = task_exec(t, 0, &cmd, &res, &e);
			if (rc == ERR_CONNECT) {
				*task_err(t) = e;
				cmd_result_release(&res);
				strbuf_release(&line);
				return rc;
			}
			if (rc)
				error = xstrdup(err_msg(&e));
			else if (res.outcome == CMD_TIMED_OUT)
				error = xasprintf("timed out after %u s (killed)", j->cfg->nccl.timeout_s);
			else
				read_run(m, res.out.buf ? res.out.buf : "", res.out.len, &error);
			if (error)
				m->busbw = -1;
			judge(j, (enum nrun)run, m);
			if (error && !m->why.len)
				strbuf_addstr(&m->why, error);
			try = json_pack("{s:i, s:o, s:o, s:s}", "try", (json_int_t)attempt,
					"busbw_gbps", m->busbw < 0 ? json_null() : json_real(m->busbw),
					"latency_us", m->latency_us < 0 ? json_null() : json_real(m->latency_us),
					"status", vstatus_name(m->st));
			if (m->network)
				json_object_set_new(try, "network", json_string(m->network));
			if (m->transports)
				json_object_set(try, "transports", m->transports);
			if (m->why.len)
				json_object_set_new(try, "error", json_string(m->why.buf));
			json_array_append_new(m->tries, try);
			free(error);
			err_clear(&e);
			cmd_result_release(&res);
			strbuf_release(&line);
			if (m->st != VS_FAIL)
				break;
		}
	}
	/* A throttled GPU slows every ring it is in, the network one too. */
	if (j->m[NRUN_NVLINK].st == VS_FAIL || j->m[NRUN_NET].st == VS_FAIL)
		j->slow_gpus = validate_slow_gpus(t, 0);
	return 0;
}

int validate_nccl(struct runner *r, const struct inventory *inv,
		  const struct validate_opts *o, json_t *report, struct err *err)
{
	json_t *stage = json_object(), *findings = json_array(), *results = json_array();
	size_t *ok = xcalloc(o->nhosts ? o->nhosts : 1, sizeof(*ok)), nok, nj = 0;
	struct nccl_job *jobs;
	struct task *tasks;
	long long t0 = now_ms();

	(void)err;
	nok = validate_reachable(r, o->hosts, o->nhosts, ok, findings, inv);
	jobs = xcalloc(nok ? nok : 1, sizeof(*jobs));
	tasks = xcalloc(nok ? nok : 1, sizeof(*tasks));
	for (size_t i = 0; i < nok; i++) {
		const struct host *h = &inv->hosts[ok[i]];

		if (!h->gpus.count)
			continue;
		jobs[nj].cfg = o->cfg;
		jobs[nj].h = h;
		for (int k = 0; k < NRUN__N; k++) {
			strbuf_init(&jobs[nj].m[k].why, 0);
			jobs[nj].m[k].tries = json_array();
			jobs[nj].m[k].busbw = jobs[nj].m[k].latency_us = -1;
		}
		tasks[nj].hosts = &ok[i];
		tasks[nj].nhosts = 1;
		tasks[nj].fn = node_task;
		tasks[nj].arg = &jobs[nj];
		nj++;
	}
	runner_run(r, tasks, nj, NULL, NULL);
	for (size_t i = 0; i < nj; i++) {
		struct nccl_job *j = &jobs[i];

		if (tasks[i].rc) {
			validate_finding(findings, tasks[i].rc == ERR_CONNECT ? VS_UNREACHABLE : VS_FAIL,
					 j->h->name, NULL, "%s", err_msg(&tasks[i].err));
			continue;
		}
		for (int k = 0; k < NRUN__N; k++) {
			struct nccl_meas *m = &j->m[k];

			json_array_append_new(results, json_pack(
				"{s:s, s:s, s:i, s:o, s:o, s:f, s:o, s:O, s:s, s:O, s:O}",
				"host", j->h->name, "run", nrun_names[k], "gpus", (json_int_t)j->h->gpus.count,
				"busbw_gbps", m->busbw < 0 ? json_null() : json_real(m->busbw),
				"latency_us", m->latency_us < 0 ? json_null() : json_real(m->latency_us),
				"min_busbw_gbps", m->min_busbw,
				"network", m->network ? json_string(m->network) : json_null(),
				"transports", m->transports ? m->transports : json_null(),
				"status", vstatus_name(m->st), "tries", m->tries,
				"curve", m->curve ? m->curve : json_null()));
			if (m->st == VS_FAIL)
				validate_finding(findings, VS_FAIL, j->h->name, j->slow_gpus,
						 "all_reduce_perf (%s, %u GPUs): %s%s%s", nrun_names[k],
						 j->h->gpus.count, m->why.buf ? m->why.buf : "failed",
						 j->slow_gpus ? "; hardware slowdown active on " : "",
						 j->slow_gpus ? j->slow_gpus : "");
		}
	}
	/* Across nodes (validate-mpi.c), from the nodes that answered. */
	if (o->cfg->nccl.mpirun) {
		size_t *gh = xcalloc(nj ? nj : 1, sizeof(*gh)), ng = 0, ns = 0;
		const char **sus = xcalloc(nj ? nj : 1, sizeof(*sus));

		for (size_t i = 0; i < nj; i++) {
			if (tasks[i].rc)
				continue;
			gh[ng++] = tasks[i].hosts[0];
			if (jobs[i].m[NRUN_NVLINK].st == VS_FAIL || jobs[i].m[NRUN_NET].st == VS_FAIL)
				sus[ns++] = jobs[i].h->name;
		}
		validate_nccl_mpi(r, inv, o->cfg, gh, ng, sus, ns, stage, findings);
		free(gh);
		free(sus);
	}
	/* The fleet: a node far below its peers' median, though it passed. */
	for (int k = 0; k < NRUN__N; k++) {
		double *v = xcalloc(nj ? nj : 1, sizeof(*v)), med;
		bool *low = xcalloc(nj ? nj : 1, sizeof(*low));
		size_t *who = xcalloc(nj ? nj : 1, sizeof(*who)), n = 0;

		for (size_t i = 0; i < nj; i++)
			if (!tasks[i].rc && jobs[i].m[k].st != VS_FAIL && jobs[i].m[k].busbw >= 0) {
				who[n] = i;
				v[n++] = jobs[i].m[k].busbw;
			}
		med = validate_outliers_low(v, n, 5, low);
		for (size_t i = 0; i < n; i++)
			if (low[i])
				validate_finding(findings, VS_WARN, jobs[who[i]].h->name, NULL,
						 "all_reduce_perf (%s): bus bandwidth %.1f GB/s, the fleet's "
						 "median is %.1f (outlier by median and MAD)",
						 nrun_names[k], v[i], med);
		free(v);
		free(low);
		free(who);
	}
	json_object_set_new(stage, "stage", json_string("nccl"));
	json_object_set_new(stage, "scope", json_string(
		o->cfg->nccl.mpirun ?
		"per node (8 GPUs over NVLink, then over the node's HCAs with P2P and SHM off), "
		"then across nodes with mpirun (multi_node: the variants, one rank a GPU)" :
		"per node (8 GPUs over NVLink, then over the node's HCAs with P2P and SHM off); "
		"no multi-node mpirun run (validate.nccl.mpirun: false)"));
	json_object_set_new(stage, "results", results);
	json_object_set_new(stage, "findings", findings);
	json_object_set_new(stage, "status", json_string(vstatus_name(validate_findings_status(findings))));
	json_object_set_new(stage, "wall_s", json_real((double)(now_ms() - t0) / 1000.0));
	json_array_append_new(json_object_get(report, "stages"), stage);
	for (size_t i = 0; i < nok; i++) {
		for (int k = 0; k < NRUN__N; k++) {
			free(jobs[i].m[k].network);
			json_decref(jobs[i].m[k].transports);
			json_decref(jobs[i].m[k].curve);
			json_decref(jobs[i].m[k].tries);
			strbuf_release(&jobs[i].m[k].why);
		}
		free(jobs[i].slow_gpus);
		if (i < nj)
			task_release(&tasks[i]);
	}
	free(tasks);
	free(jobs);
	free(ok);
	return 0;
}

/*
 * For validate-kube.c: one run's all_reduce_perf output (a launcher pod's
 * log) read and judged exactly as node_task does; `error` (may be NULL) is
 * why there is no output. One result row as validate_nccl writes them,
 * without tries.
 */
json_t *validate_nccl_judge_output(const struct validate_cfg *cfg, const struct host *h,
				   int run, const char *out, size_t len, const char *error)
{
	struct nccl_job j = { .cfg = cfg, .h = h };
	struct nccl_meas *m = &j.m[run];
	char *perr = NULL;
	json_t *row;

	strbuf_init(&m->why, 0);
	m->busbw = m->latency_us = -1;
	if (!error)
		read_run(m, out ? out : "", len, &perr);
	if (error || perr)
		m->busbw = -1;
	judge(&j, (enum nrun)run, m);
	if ((error || perr) && !m->why.len)
		strbuf_addstr(&m->why, error ? error : perr);
	row = json_pack("{s:s, s:s, s:i, s:o, s:o, s:f, s:o, s:O, s:s, s:O}",
		"host", h->name, "run", nrun_names[run], "gpus", (json_int_t)h->gpus.count,
		"busbw_gbps", m->busbw < 0 ? json_null() : json_real(m->busbw),
		"latency_us", m->latency_us < 0 ? json_null() : json_real(m->latency_us),
		"min_busbw_gbps", m->min_busbw,
		"network", m->network ? json_string(m->network) : json_null(),
		"transports", m->transports ? m->transports : json_null(),
		"status", vstatus_name(m->st), "curve", m->curve ? m->curve : json_null());
	if (m->why.len)
		json_object_set_new(row, "error", json_string(m->why.buf));
	free(perr);
	free(m->network);
	json_decref(m->transports);
	json_decref(m->curve);
	strbuf_release(&m->why);
	return row;
}

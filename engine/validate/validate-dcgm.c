/*
 * The dcgm validation stage: NVIDIA DCGM's diagnostic (`dcgmi diag -r
 * LEVEL`, level 3 by default: Deployment, PCIe, GPU Memory, Diagnostic,
 * Targeted Stress/Power, Memory Bandwidth) on every node at once, its
 * table read by parse-dcgmi.c and judged per test and GPU:
 *
 * - a test whose result is Fail names the host and each GPU its result
 *   lists ("GPU 0"), with the test's name and DCGM's own messages about
 *   that GPU (dcgmi_diag_problems, shared with precheck's gpu.dcgm_diag);
 *   Warn warns the same way;
 * - an Error row (DCGM stops there: the row-remap check does so) fails
 *   the GPU its words name, a Warning row warns;
 * - a node where dcgmi is missing, cannot reach nv-hostengine, times out
 *   or prints no table fails by name.
 *
 * It takes about half an hour on real hardware at level 3, so it runs
 * only when asked for (`--stage dcgm`), never by default.
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

struct dcgm_job {
	const struct validate_cfg *cfg;
	const struct host *h;
	json_t *diag;             /* the parsed table; NULL when none */
	char *error;              /* why there is none */
	json_t *tries;
};

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* One run of dcgmi diag; 0 with j->diag set, or -1 with j->error. */
static int run_diag(struct task_ctx *t, struct dcgm_job *j, unsigned attempt)
{
	const struct validate_dcgm_cfg *c = &j->cfg->dcgm;
	struct strbuf line = STRBUF_INIT;
	struct remote_cmd cmd = { .timeout_ms = c->timeout_s * 1000u, .max_output = 1u << 20 };
	struct cmd_result res;
	struct err e = ERR_INIT, pe = ERR_INIT;
	json_t *d = NULL;

	/* The inventory's command is a shell word list ("sudo dcgmi" works). */
	strbuf_addf(&line, "%s diag -r %u", c->command, c->level);
	cmd.command = line.buf;
	cmd_result_init(&res);
	free(j->error);
	j->error = NULL;
	if (task_exec(t, 0, &cmd, &res, &e))
		j->error = xstrdup(err_msg(&e));
	else if (res.outcome == CMD_TIMED_OUT)
		j->error = xasprintf("dcgmi diag -r %u did not finish in %u s (killed)", c->level,
				     c->timeout_s);
	else if (res.outcome != CMD_EXITED)
		j->error = xasprintf("dcgmi diag -r %u did not run to its end", c->level);
	else if (res.exit_status == 127)
		j->error = xasprintf("%s not found (install DCGM, datacenter-gpu-manager, and start "
				     "nv-hostengine)", c->command);
	/* dcgmi exits non-zero when a test fails: the table is the verdict. */
	else if (parse_dcgmi_diag(res.out.buf ? res.out.buf : "", res.out.len, &d, &pe))
		j->error = xasprintf("dcgmi diag output not understood: %s%s%.200s", err_msg(&pe),
				     res.err.len ? "; stderr: " : "", res.err.len ? res.err.buf : "");
	else if (json_is_false(json_object_get(d, "ok")))
		j->error = xasprintf("dcgmi failed: %s", jstr(d, "error") ? jstr(d, "error") : "?");
	json_array_append_new(j->tries, json_pack("{s:i, s:o, s:o}", "try", (json_int_t)attempt,
		"exit", res.outcome == CMD_EXITED ? json_integer(res.exit_status) : json_null(),
		"error", j->error ? json_string(j->error) : json_null()));
	if (j->error)
		json_decref(d);
	else
		j->diag = d;
	err_clear(&e);
	err_clear(&pe);
	cmd_result_release(&res);
	strbuf_release(&line);
	return j->error ? -1 : 0;
}

/* Tried again only when no table came back: a table that fails a GPU is
 * the answer, and another half hour would only repeat it. */
static int dcgm_task(struct task_ctx *t, void *arg)
{
	struct dcgm_job *j = arg;

	for (unsigned a = 1; a <= j->cfg->tries; a++)
		if (!run_diag(t, j, a))
			break;
	return 0;
}

/* The node's findings from its table; returns the count of tests passed
 * in *ret_passed and of those skipped in *ret_skipped. */
static void judge(json_t *findings, const char *host, const json_t *d, size_t *ret_passed,
		  size_t *ret_skipped)
{
	json_t *by = dcgmi_diag_problems(d), *t, *o;
	const char *subject;
	size_t i;

	*ret_passed = *ret_skipped = 0;
	json_array_foreach(json_object_get(d, "tests"), i, t) {
		const char *ts = jstr(t, "status");

		*ret_passed += ts && !strcmp(ts, "Pass");
		*ret_skipped += ts && (!strcmp(ts, "Skip") || !strcmp(ts, "Not Run"));
	}
	json_object_foreach(by, subject, o)
		validate_finding(findings, json_is_true(json_object_get(o, "fail")) ? VS_FAIL : VS_WARN,
				 host, subject, "dcgmi diag: %s", jstr(o, "what"));
	json_decref(by);
}

/* The worst status of findings[from..]: this node's. */
static enum vstatus worst_since(const json_t *findings, size_t from)
{
	enum vstatus w = VS_PASS;

	for (size_t i = from; i < json_array_size(findings); i++) {
		const char *st = jstr(json_array_get(findings, i), "status");

		if (st && !strcmp(st, vstatus_name(VS_FAIL)))
			w = VS_FAIL;
		else if (st && !strcmp(st, vstatus_name(VS_WARN)) && w == VS_PASS)
			w = VS_WARN;
	}
	return w;
}

int validate_dcgm(struct runner *r, const struct inventory *inv,
		  const struct validate_opts *o, json_t *report, struct err *err)
{
	const struct validate_dcgm_cfg *c = &o->cfg->dcgm;
	json_t *stage = json_object(), *findings = json_array(), *results = json_array();
	size_t *ok = xcalloc(o->nhosts ? o->nhosts : 1, sizeof(*ok)), nok;
	struct dcgm_job *jobs;
	struct task *tasks;
	long long t0 = now_ms();

	(void)err; /* every failure is a finding naming its node */
	nok = validate_reachable(r, o->hosts, o->nhosts, ok, findings, inv);
	jobs = xcalloc(nok ? nok : 1, sizeof(*jobs));
	tasks = xcalloc(nok ? nok : 1, sizeof(*tasks));
	for (size_t i = 0; i < nok; i++) {
		jobs[i] = (struct dcgm_job){ .cfg = o->cfg, .h = &inv->hosts[ok[i]], .tries = json_array() };
		tasks[i].hosts = &ok[i];
		tasks[i].nhosts = 1;
		tasks[i].fn = dcgm_task;
		tasks[i].arg = &jobs[i];
	}
	runner_run(r, tasks, nok, NULL, NULL);
	for (size_t i = 0; i < nok; i++) {
		size_t before = json_array_size(findings), passed = 0, skipped = 0;
		json_t *row;

		if (tasks[i].rc && !jobs[i].error && !jobs[i].diag)
			jobs[i].error = xstrdup(err_msg(&tasks[i].err));
		task_release(&tasks[i]);
		if (jobs[i].diag)
			judge(findings, jobs[i].h->name, jobs[i].diag, &passed, &skipped);
		else
			validate_finding(findings, VS_FAIL, jobs[i].h->name, NULL, "%s",
					 jobs[i].error ? jobs[i].error : "no result");
		row = json_pack("{s:s, s:i, s:i, s:i, s:i, s:s, s:O}", "host", jobs[i].h->name,
			"level", (json_int_t)c->level,
			"tests", (json_int_t)json_array_size(json_object_get(jobs[i].diag, "tests")),
			"passed", (json_int_t)passed, "skipped", (json_int_t)skipped,
			"status", vstatus_name(worst_since(findings, before)), "tries", jobs[i].tries);
		if (jobs[i].error)
			json_object_set_new(row, "error", json_string(jobs[i].error));
		if (jobs[i].diag)
			json_object_set(row, "diag", jobs[i].diag);
		json_array_append_new(results, row);
		json_decref(jobs[i].diag);
		json_decref(jobs[i].tries);
		free(jobs[i].error);
	}
	json_object_set_new(stage, "stage", json_string("dcgm"));
	json_object_set_new(stage, "level", json_integer(c->level));
	json_object_set_new(stage, "results", results);
	json_object_set_new(stage, "findings", findings);
	json_object_set_new(stage, "status", json_string(vstatus_name(validate_findings_status(findings))));
	json_object_set_new(stage, "wall_s", json_real((double)(now_ms() - t0) / 1000.0));
	json_array_append_new(json_object_get(report, "stages"), stage);
	free(tasks);
	free(jobs);
	free(ok);
	return 0;
}

/*
 * validate: `bringup validate`'s stages as a playbook stage, run from the
 * admin host (engine/validate*.c), so that a bring-up playbook can end by
 * proving the cluster performs (playbooks/validate.yaml).
 *
 * A validation changes nothing: check runs the benchmarks and judges them;
 * the stage is ok when every stage passes (warnings become notes) and fails
 * naming each failing host, port or GPU. Under --check nothing runs: a
 * dry run of a bring-up has nothing to measure yet. The figures and tries
 * are in the run's log as notes; `bringup validate` gives the full report,
 * the baseline and the HTML plots.
 */
#include "../engine/deploy/module.h"
#include "../engine/inventory/inventory.h"
#include "../engine/ssh/runner.h"
#include "../engine/base/strbuf.h"
#include "../engine/validate/validate.h"
#include "../engine/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

static const char *valid_stages(const char *v)
{
	char *copy = xstrdup(v), *save = NULL;
	const char *why = *v ? NULL : "one or more of rdma, nccl, resnet, storage, dcgm";

	for (char *s = strtok_r(copy, ",", &save); s && !why; s = strtok_r(NULL, ",", &save))
		if (validate_stage_from_name(s) < 0)
			why = "one or more of rdma, nccl, resnet, storage, dcgm (comma-separated)";
	free(copy);
	return why;
}

static const char *valid_pairs(const char *v)
{
	return !*v || !strcmp(v, "ring") || !strcmp(v, "all") ? NULL : "ring or all";
}

static const struct param_spec params[] = {
	{ "stages", PARAM_STRING, "rdma,nccl,resnet,storage", NULL,
	  "the validation stages to run, in order", valid_stages },
	{ "hosts", PARAM_STRING, "gpu_worker", NULL, "the hosts measured (a selector)", NULL },
	{ "pairs", PARAM_STRING, "", NULL, "rdma: ring or all (default: the inventory's)",
	  valid_pairs },
	{ NULL },
};

typedef int (*stage_fn)(struct runner *, const struct inventory *,
			const struct validate_opts *, json_t *, struct err *);

static const stage_fn stage_fns[VSTAGE__COUNT] = {
	[VSTAGE_RDMA] = validate_rdma,
	[VSTAGE_NCCL] = validate_nccl,
	[VSTAGE_RESNET] = validate_resnet,
	[VSTAGE_STORAGE] = validate_storage,
	[VSTAGE_DCGM] = validate_dcgm,
};

/* Each finding as a note; the failing ones also into `failed`. */
static void findings(struct mod_ctx *mc, const json_t *report, struct strbuf *failed)
{
	const json_t *st, *f;
	size_t i, k;

	json_array_foreach(json_object_get(report, "stages"), i, st) {
		const char *name = json_string_value(json_object_get(st, "stage")) ?: "?";

		json_array_foreach(json_object_get(st, "findings"), k, f) {
			const char *status = json_string_value(json_object_get(f, "status")) ?: "";
			const char *host = json_string_value(json_object_get(f, "host")) ?: "";
			const char *subj = json_string_value(json_object_get(f, "subject"));
			const char *msg = json_string_value(json_object_get(f, "message")) ?: "";

			mod_note(mc, "%s %s %s%s%s: %s", name, status, host, subj ? " " : "",
				 subj ? subj : "", msg);
			if (strcmp(status, "warn"))
				strbuf_addf(failed, "%s%s: %s%s%s: %s", failed->len ? "; " : "", name,
					    host, subj ? " " : "", subj ? subj : "", msg);
		}
		mod_note(mc, "%s: %s", name, json_string_value(json_object_get(st, "status")) ?: "?");
	}
}

static int check(struct mod_ctx *mc)
{
	const struct inventory *inv = mod_inventory(mc);
	struct runner_opts ro = { .cancel_stops_commands = true };
	struct validate_cfg cfg;
	struct validate_opts vo = { .cfg = &cfg, .pairs = -1 };
	struct strbuf failed = STRBUF_INIT;
	struct runner *r = NULL;
	struct err err = ERR_INIT;
	char *list, *save = NULL;
	size_t *idx = NULL, n = 0;
	const char *pairs = mod_param_str(mc, "pairs");
	json_t *report = NULL;
	enum vstatus worst;
	int rc;

	if (!inv)
		return mod_fail(mc, ERR_USAGE, "the validate module runs as a local stage");
	if (mod_checking(mc))
		return mod_skip(mc, "benchmarks run in a real deploy, not in a dry run");
	if (*pairs)
		vo.pairs = strcmp(pairs, "ring") ? PAIRS_ALL : PAIRS_RING;
	validate_cfg_defaults(&cfg);
	if ((rc = validate_config_load(inv, &cfg, &err)) ||
	    (rc = inventory_select(inv, mod_param_str(mc, "hosts"), &idx, &n, &err)) ||
	    (rc = runner_new(inv, &ro, &r, &err)))
		goto out;
	vo.hosts = idx;
	vo.nhosts = n;
	report = json_pack("{s:s, s:[]}", "cluster", inv->cluster_name, "stages");
	list = xstrdup(mod_param_str(mc, "stages"));
	for (char *s = strtok_r(list, ",", &save); s && !rc; s = strtok_r(NULL, ",", &save))
		rc = stage_fns[validate_stage_from_name(s)](r, inv, &vo, report, &err);
	free(list);
	if (rc)
		goto out;
	worst = validate_report_finish(report);
	findings(mc, report, &failed);
	if (worst == VS_FAIL || worst == VS_UNREACHABLE)
		rc = err_set(&err, worst == VS_UNREACHABLE ? ERR_CONNECT : ERR_STATE,
			     "validation %s: %s", vstatus_name(worst),
			     failed.len ? failed.buf : "see the notes");
out:
	if (rc)
		rc = mod_fail(mc, rc, "%s", err_msg(&err));
	json_decref(report);
	runner_free(r);
	free(idx);
	validate_cfg_release(&cfg);
	strbuf_release(&failed);
	err_clear(&err);
	return rc;
}

/* Never called: a validation records no change. */
static int apply(struct mod_ctx *mc)
{
	(void)mc;
	return 0;
}

const struct stage_module mod_validate = {
	.name = "validate",
	.summary = "bringup validate's stages (RDMA, NCCL, ResNet-50, storage, DCGM), judged",
	.version = 1,
	.flags = MOD_LOCAL,
	.params = params,
	.check = check,
	.apply = apply,
};

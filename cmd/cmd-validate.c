/*
 * bringup validate: runs the validation stages (rdma, nccl) across the
 * cluster, judges them against the inventory's `validate:` thresholds and
 * reports which node, port or GPU holds the cluster back. Exit statuses as
 * precheck's: 0 pass (warnings allowed), 1 a stage failed, 2 usage or
 * inventory error, 3 a host was unreachable.
 */
#include "cmd.h"
#include "../engine/inventory/inventory.h"
#include "../engine/kube/kube-client.h"
#include "../engine/kube/kube-objects.h"
#include "../engine/inventory/redact.h"
#include "../engine/rundir/runlog.h"
#include "../engine/ssh/runner.h"
#include "../engine/base/strbuf.h"
#include "../engine/validate/validate.h"
#include "../engine/validate/validate-kube.h"
#include "../engine/base/xalloc.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const struct cmd_option cmd_validate_options[] = {
	{ "inventory", 'i', OPT_SHORT | OPT_FILE | OPT_INVENTORY, "FILE", "inventory (YAML)" },
	{ "limit", 'l', OPT_SHORT | OPT_HOSTS, "HOSTS", "node sets and/or group names (default gpu_worker)" },
	{ "stage", 'S', 0, "LIST", "stages to run, comma-separated: rdma, nccl, resnet, storage, dcgm (default rdma,nccl,resnet,storage)" },
	{ "pairs", 'P', 0, "ring|all", "rdma pairing (default: the inventory's, else all)" },
	{ "output-format", 'o', OPT_SHORT, "text|json|junit|html", "the report's format (default text)" },
	{ "output", 'O', OPT_FILE, "FILE", "write the report to FILE instead of stdout" },
	{ "html", 'H', OPT_FILE, "FILE", "also write the report as HTML to FILE (one run, two reports)" },
	{ "forks", 'f', OPT_SHORT, "N", "hosts worked on at once (default " CMD_STR(RUNNER_DEFAULT_FORKS) ")" },
	{ "state-dir", 'D', OPT_DIR, "DIR", "where the baseline is kept (default ~/.local/state/bringup/CLUSTER)" },
	{ "no-baseline", 'N', 0, NULL, "neither store nor compare with the baseline" },
	{ "accept-new-host-keys", 'A', 0, NULL, "record unknown host keys (changed keys are refused)" },
	{ "via", 'V', 0, "ssh|kubernetes", "run over SSH (default) or as MPIJobs through the Kubernetes API (stages nccl, resnet)" },
	{ "kubeconfig", 'k', OPT_FILE, "FILE", "with --via kubernetes: server, CA and credentials (default the inventory's openshift.kubeconfig, $KUBECONFIG, ~/.kube/config)" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup validate -i INVENTORY [options]\n"
		"\n"
		"Runs benchmarks across the cluster and judges them against the thresholds of\n"
		"the inventory's `validate:` section (inventory/README.md):\n"
		"  rdma  ib_write_bw on every compute HCA port between nodes, in rounds of\n"
		"        disjoint pairs; a port weak against every peer, or failing again\n"
		"        against a node that passed, is named\n"
		"  nccl  all_reduce_perf on each node with NCCL_DEBUG=INFO: bus bandwidth,\n"
		"        small-message latency, the transport (NET/IB, GDRDMA) NCCL chose;\n"
		"        then across nodes with mpirun (Open MPI) from the first node\n"
		"  resnet ResNet-50 images/sec (DeepLearningExamples PyTorch, or\n"
		"        tf_cnn_benchmarks) on 1, 2, 4, 8 GPUs of each node, then all nodes\n"
		"        with mpirun: scaling efficiency, the throttled GPU, the node that drags\n"
		"  storage fio sequential 1 MiB direct write and read on the shared file\n"
		"        system, all nodes at once (the slow client named), then the\n"
		"        aggregate read on 1, 2, 4... nodes (it must grow to the limit)\n"
		"  dcgm  DCGM's diagnostic, dcgmi diag -r 3 (validate.dcgm.level), on every\n"
		"        node at once: a failing test names the host and GPU with DCGM's\n"
		"        message; about 30 minutes on real GPUs, so only with --stage dcgm\n"
		"\n"
		"  -i, --inventory FILE       inventory (YAML)\n"
		"  -l, --limit HOSTS          node sets and/or group names (default gpu_worker)\n"
		"      --stage LIST           stages to run, comma-separated: rdma, nccl, resnet,\n"
		"                             storage, dcgm (default rdma,nccl,resnet,storage)\n"
		"      --pairs ring|all       rdma pairing (default: the inventory's, else all)\n"
		"  -o, --output-format FMT    text (default), json, junit, html (one file,\n"
		"                             plots as inline SVG)\n"
		"      --output FILE          write the report to FILE instead of stdout\n"
		"      --html FILE            also write the report as HTML to FILE\n"
		"  -f, --forks N              hosts worked on at once (default %d)\n"
		"      --accept-new-host-keys record unknown host keys (changed keys are refused)\n"
		"      --state-dir DIR        where the baseline is kept (default\n"
		"                             ~/.local/state/bringup/CLUSTER)\n"
		"      --no-baseline          neither store nor compare with the baseline\n"
		"      --via ssh|kubernetes   kubernetes: the stages run as MPIJobs (MPI Operator)\n"
		"                             on the cluster's scheduler, results read from\n"
		"                             the launcher pods' logs and judged as over SSH\n"
		"                             (stages nccl, resnet; first one health Job per\n"
		"                             node: nvidia-smi -q, ibstat, judged by precheck's\n"
		"                             checks; the jobs are deleted afterwards)\n"
		"      --kubeconfig FILE      with --via kubernetes (default the inventory's\n"
		"                             openshift.kubeconfig, $KUBECONFIG, ~/.kube/config)\n"
		"\n"
		"The first passing run is stored as the cluster's baseline\n"
		"(STATE/validate-baseline.json); later runs warn about every figure that\n"
		"dropped more than validate.baseline_drop_pct (10) below it.\n"
		"\n"
		"Exit status: 0 every stage passed (warnings allowed); 1 a stage failed; 2 usage\n"
		"or inventory error; 3 a host was unreachable.\n",
		RUNNER_DEFAULT_FORKS);
}

typedef int stage_fn(struct runner *r, const struct inventory *inv,
		     const struct validate_opts *o, json_t *report, struct err *err);
/* In the order they run: the fabric first, since NCCL across nodes rides it. */
static stage_fn *const stage_fns[VSTAGE__COUNT] = {
	[VSTAGE_RDMA] = validate_rdma,
	[VSTAGE_NCCL] = validate_nccl,
	[VSTAGE_RESNET] = validate_resnet,
	[VSTAGE_STORAGE] = validate_storage,
	[VSTAGE_DCGM] = validate_dcgm,
};

static int parse_stages(const char *s, bool want[VSTAGE__COUNT])
{
	char *copy = xstrdup(s), *save = NULL;
	int rc = 0;

	for (int i = 0; i < VSTAGE__COUNT; i++)
		want[i] = false;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int st = validate_stage_from_name(t);

		if (st < 0) {
			fprintf(stderr, "bringup validate: unknown stage '%s' (stages: rdma, nccl, resnet, storage, dcgm)\n", t);
			rc = -1;
			break;
		}
		want[st] = true;
	}
	free(copy);
	return rc;
}

/* The findings quote host output, which may hold an inventory secret. */
static void redact_findings(const struct redactor *red, json_t *report)
{
	json_t *s, *f;
	size_t i, k;

	json_array_foreach(json_object_get(report, "stages"), i, s) {
		json_array_foreach(json_object_get(s, "findings"), k, f) {
			const char *m = json_string_value(json_object_get(f, "message"));
			char *copy = m ? xstrdup(m) : NULL;

			if (!copy)
				continue;
			redact_str(red, &copy);
			json_object_set_new(f, "message", json_string(copy));
			free(copy);
		}
	}
}

int cmd_validate(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_getopt g;
	const char *inv_path = NULL, *limit = NULL, *format = "text", *out_path = NULL;
	const char *html_path = NULL;
	const char *state_opt = NULL;
	char *state_dir = NULL;
	bool baseline = true;
	/* dcgm is left out: half an hour of GPU stress only when asked for. */
	bool want[VSTAGE__COUNT] = { [VSTAGE_RDMA] = true, [VSTAGE_NCCL] = true,
				     [VSTAGE_RESNET] = true, [VSTAGE_STORAGE] = true };
	struct runner_opts ro = { .command_timeout_s = 600 };
	struct validate_opts vo = { .pairs = -1 };
	struct validate_cfg cfg;
	struct inventory *inv = NULL;
	struct runner *runner = NULL;
	struct redactor *red = NULL;
	struct err err = ERR_INIT;
	struct strbuf out = STRBUF_INIT;
	json_t *report = NULL;
	size_t *idx = NULL, n = 0;
	int c, status = EXIT_OK;
	enum vstatus worst;
	const char *via = "ssh", *kubeconfig = NULL;
	struct kube_client *kc = NULL;
	bool stages_given = false;

	(void)ctx;
	validate_cfg_defaults(&cfg);
	cmd_getopt_init(&g, cmd_validate_options, false);
	optind = 1;
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 'i': inv_path = optarg; break;
		case 'l': limit = optarg; break;
		case 'S':
			if (parse_stages(optarg, want)) {
				status = EXIT_USAGE;
				goto out;
			}
			stages_given = true;
			break;
		case 'V': via = optarg; break;
		case 'k': kubeconfig = optarg; break;
		case 'P':
			if (strcmp(optarg, "ring") && strcmp(optarg, "all")) {
				fprintf(stderr, "bringup validate: --pairs takes ring or all, not '%s'\n", optarg);
				status = EXIT_USAGE;
				goto out;
			}
			vo.pairs = !strcmp(optarg, "ring") ? PAIRS_RING : PAIRS_ALL;
			break;
		case 'o': format = optarg; break;
		case 'O': out_path = optarg; break;
		case 'H': html_path = optarg; break;
		case 'f':
			if (cmd_parse_uint("validate", "--forks", optarg, &ro.forks)) {
				status = EXIT_USAGE;
				goto out;
			}
			break;
		case 'A': ro.accept_new_host_keys = true; break;
		case 'D': state_opt = optarg; break;
		case 'N': baseline = false; break;
		case 'h': usage(stdout); goto out;
		default: usage(stderr); status = EXIT_USAGE; goto out;
		}
	}
	if (!inv_path || optind != argc ||
	    (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "junit") &&
	     strcmp(format, "html"))) {
		usage(stderr);
		status = EXIT_USAGE;
		goto out;
	}
	if (strcmp(via, "ssh") && strcmp(via, "kubernetes")) {
		fprintf(stderr, "bringup validate: --via takes ssh or kubernetes, not '%s'\n", via);
		status = EXIT_USAGE;
		goto out;
	}
	for (int st = 0; !strcmp(via, "kubernetes") && st < VSTAGE__COUNT; st++) {
		if (want[st] && !validate_kube_supports(st) && stages_given) {
			fprintf(stderr, "bringup validate: stage %s does not run --via kubernetes "
				"(it runs over SSH: leave --via out)\n", validate_stage_name(st));
			status = EXIT_USAGE;
			goto out;
		}
		want[st] = want[st] && validate_kube_supports(st);
	}
	ro.cancel_stops_commands = true;
	if (inventory_load(inv_path, &inv, &err) ||
	    validate_config_load(inv, &cfg, &err) ||
	    inventory_select(inv, limit ? limit : "gpu_worker", &idx, &n, &err) ||
	    (!strcmp(via, "ssh") && runner_new(inv, &ro, &runner, &err))) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	if (!strcmp(via, "kubernetes") && kube_client_for(inv, kubeconfig, &kc, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	vo.cfg = &cfg;
	vo.hosts = idx;
	vo.nhosts = n;
	report = json_pack("{s:s, s:[]}", "cluster", inv->cluster_name, "stages");
	if (kc && validate_kube(kc, inv, &vo, want, report, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	if (kc)
		goto judged;
	cmd_interrupt_begin(cmd_cancel_runner, runner, "no new test starts, running ones are "
			    "cancelled (their remote processes killed)");
	for (int st = 0; st < VSTAGE__COUNT; st++) {
		if (!want[st])
			continue;
		if (stage_fns[st](runner, inv, &vo, report, &err)) {
			cmd_interrupt_end();
			status = cmd_fail_inv(inv, &err);
			goto out;
		}
	}
	if (cmd_interrupt_end())
		json_object_set_new(report, "interrupted", json_true());
judged:
	worst = validate_report_finish(report);
	/* An interrupted run is no baseline and compares only partly. */
	if (baseline && !json_is_true(json_object_get(report, "interrupted"))) {
		state_dir = state_opt ? xstrdup(state_opt) : state_dir_default(inv->cluster_name);
		if (validate_baseline(report, state_dir, cfg.baseline_drop_pct, &err)) {
			status = cmd_fail_inv(inv, &err);
			goto out;
		}
		worst = validate_report_finish(report);
	}
	red = redactor_new();
	redactor_add_inventory(red, inv);
	redact_findings(red, report);
	if (!strcmp(format, "json")) {
		char *s = json_dumps(report, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		strbuf_addstr(&out, s ? s : "{}");
		strbuf_addch(&out, '\n');
		free(s);
	} else if (!strcmp(format, "junit")) {
		validate_report_junit(report, &out);
	} else if (!strcmp(format, "html")) {
		validate_report_html(report, &out);
	} else {
		validate_report_text(report, &out);
	}
	if (cmd_write_out(out_path, out.buf ? out.buf : "", out.len)) {
		status = EXIT_FAILED;
		goto out;
	}
	if (html_path) {
		strbuf_reset(&out);
		validate_report_html(report, &out);
		if (cmd_write_out(html_path, out.buf ? out.buf : "", out.len)) {
			status = EXIT_FAILED;
			goto out;
		}
	}
	if (worst == VS_UNREACHABLE)
		status = EXIT_UNREACHABLE;
	else if (worst == VS_FAIL || json_is_true(json_object_get(report, "interrupted")))
		status = EXIT_FAILED;
out:
	json_decref(report);
	free(state_dir);
	redactor_free(red);
	runner_free(runner);
	kube_client_free(kc);
	inventory_free(inv);
	validate_cfg_release(&cfg);
	free(idx);
	strbuf_release(&out);
	err_clear(&err);
	return status;
}

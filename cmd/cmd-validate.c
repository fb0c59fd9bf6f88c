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
#include "../engine/rundir/cluster-lock.h"
#include "../engine/ssh/runner.h"
#include "../engine/base/strbuf.h"
#include "../engine/validate/validate.h"
#include "../engine/validate/validate-kube.h"
#include "../engine/base/eventlog.h"
#include "../engine/base/nodeset.h"
#include "../engine/base/xalloc.h"
#include "../tui/tui.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	{ "tui", 'U', 0, NULL, "a full-screen view while it runs (bringup tui's keys); the report follows" },
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
		"      --tui                  a full-screen view while it runs: a column per stage,\n"
		"                             a row per host and one for the cluster's own figures;\n"
		"                             a failed cell gives the finding (bringup tui's keys);\n"
		"                             the report follows when you leave (plain without a\n"
		"                             terminal)\n"
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

/*
 * The run as events, recorded in STATE/runs/ID/events.jsonl (bringup tui
 * --attach or --replay) and shown live with --tui: a column per stage, a
 * row per host plus "cluster" for the findings that name no host (the
 * figures across nodes). Every row runs while its stage does; when the
 * stage ends, a host's cell is its worst finding there (fail, unreachable;
 * a warning is ok with its reason), quoted as the report does, secrets
 * redacted.
 */
#define CLUSTER_ROW "cluster"

struct live {
	struct tui *tui;
	struct eventlog *el;   /* NULL: not recorded (no state directory) */
	struct runner *runner;
	const struct redactor *red;
	struct strlist stages;
	char **hosts;
	size_t nhosts;         /* with the cluster row */
	struct run_info ri;
	struct timespec t0;
};

static void emit(struct live *l, const struct dep_event *ev)
{
	if (l->el)
		eventlog_write(l->el, ev);
	if (l->tui)
		tui_event(ev, l->tui);
}

static double live_t(const struct live *l)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - l->t0.tv_sec) + (double)(now.tv_nsec - l->t0.tv_nsec) / 1e9;
}

static void live_init(struct live *l, const struct inventory *inv, const size_t *idx, size_t n,
		      const bool want[VSTAGE__COUNT])
{
	for (int st = 0; st < VSTAGE__COUNT; st++)
		if (want[st])
			strlist_push(&l->stages, validate_stage_name(st));
	l->hosts = xcalloc(n + 2, sizeof(*l->hosts));
	for (size_t i = 0; i < n; i++)
		l->hosts[i] = inv->hosts[idx[i]].name;
	l->hosts[n] = CLUSTER_ROW;
	l->nhosts = n + 1;
	l->ri = (struct run_info){ inv->cluster_name, "validate", NULL, l->stages.v, l->stages.n,
				   l->hosts, l->nhosts };
	clock_gettime(CLOCK_MONOTONIC, &l->t0);
}

static void live_stage_start(struct live *l, const char *stage)
{
	int s = strlist_index(&l->stages, stage);
	char *set;

	if (!l->hosts || s < 0)
		return;
	set = nodeset_fold(l->hosts, l->nhosts);
	emit(l, &(struct dep_event){ .kind = DEV_STAGE_START, .stage = (size_t)s,
	     .stage_name = stage, .hosts = set, .t = live_t(l) });
	free(set);
	for (size_t h = 0; h < l->nhosts; h++)
		emit(l, &(struct dep_event){ .kind = DEV_HOST_START, .stage = (size_t)s,
		     .stage_name = stage, .host = l->hosts[h], .t = live_t(l) });
}

/* The stage object the report holds for the stage: each host's worst finding. */
static void live_stage_done(struct live *l, const json_t *stage_obj, double started)
{
	const char *stage = json_string_value(json_object_get(stage_obj, "stage"));
	const json_t *fs = json_object_get(stage_obj, "findings"), *f;
	int s = stage ? strlist_index(&l->stages, stage) : -1;
	double t = live_t(l);
	size_t k;

	if (!l->hosts || s < 0)
		return;
	for (size_t h = 0; h < l->nhosts; h++) {
		bool cluster = h == l->nhosts - 1;
		enum vstatus worst = VS_PASS;
		struct strbuf why = STRBUF_INIT;
		enum host_result res;

		json_array_foreach(fs, k, f) {
			const char *fh = json_string_value(json_object_get(f, "host"));
			const char *subj = json_string_value(json_object_get(f, "subject"));
			const char *st = json_string_value(json_object_get(f, "status"));
			enum vstatus v = vstatus_parse(st);

			if (cluster ? fh != NULL : !fh || strcmp(fh, l->hosts[h]))
				continue;
			if (v > worst)
				worst = v;
			strbuf_addf(&why, "%s%s%s%s: %s", why.len ? "\n" : "", st ? st : "fail",
				    subj ? " " : "", subj ? subj : "",
				    json_string_value(json_object_get(f, "message")) ?
				    json_string_value(json_object_get(f, "message")) : "");
		}
		res = worst == VS_FAIL ? RES_FAILED : worst == VS_UNREACHABLE ? RES_UNREACHABLE : RES_OK;
		{
			char *reason = why.len ? redact_dup(l->red, why.buf) : NULL;

			emit(l, &(struct dep_event){ .kind = DEV_HOST_DONE, .stage = (size_t)s,
			     .stage_name = stage, .host = l->hosts[h], .result = res,
			     .reason = reason, .duration_s = t - started, .t = t,
			     .hint = worst >= VS_FAIL ? "the report (text, JSON or --html) has every figure "
			     "behind it; bringup precheck -l HOST looks at the host's state" : NULL });
			free(reason);
		}
		strbuf_release(&why);
	}
	emit(l, &(struct dep_event){ .kind = DEV_STAGE_DONE, .stage = (size_t)s,
	     .stage_name = stage, .t = t });
}

static void live_release(struct live *l)
{
	tui_free(l->tui);
	l->tui = NULL;
	eventlog_free(l->el);
	l->el = NULL;
	free(l->hosts);
	l->hosts = NULL;
	strlist_clear(&l->stages);
}

static void live_pause(void *runner, bool paused) { if (runner) runner_pause(runner, paused); }
static void live_stop(void *runner) { if (runner) runner_cancel(runner); }

static void cancel_validate_tui(void *arg)
{
	struct live *l = arg;

	if (l->runner)
		runner_cancel(l->runner);
	if (l->tui)
		tui_interrupted(l->tui);
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
	struct cluster_lock *cl = NULL;
	struct redactor *red = NULL;
	struct err err = ERR_INIT;
	struct strbuf out = STRBUF_INIT;
	json_t *report = NULL;
	size_t *idx = NULL, n = 0;
	int c, status = EXIT_OK;
	enum vstatus worst;
	const char *via = "ssh", *kubeconfig = NULL;
	struct kube_client *kc = NULL;
	bool stages_given = false, want_tui = false;
	struct live live = { 0 };
	char *run_id = NULL;

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
		case 'U': want_tui = true; break;
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
	red = redactor_new();
	redactor_add_inventory(red, inv);
	state_dir = state_opt ? xstrdup(state_opt) : state_dir_default(inv->cluster_name);
	live_init(&live, inv, idx, n, want);
	live.red = red;
	live.runner = runner;
	run_id = run_id_new();
	/* One run per cluster: benchmarks beside a deploy or upgrade measure
	 * nodes being changed (and a driver install under NCCL fails both).
	 * Over the Kubernetes API no node is logged in to. */
	if (!kc && cmd_cluster_lock(inv, run_id, &ro, &cl, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	{
		/* A run that cannot be recorded still validates: a warning. */
		char *run_dir = xasprintf("%s/runs/%s-validate", state_dir, run_id);

		live.ri.run_dir = run_dir;
		if (mkdir_p(run_dir, &err) || eventlog_open(run_dir, &live.ri, &live.el, &err)) {
			fprintf(stderr, "bringup validate: warning: the run is not recorded: %s\n",
				err_msg(&err));
			err_clear(&err);
		}
		live.ri.run_dir = NULL;
		free(run_dir);
	}
	if (want_tui && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO) && tui_term_ok()) {
		struct tui_ctl ctl = { live_pause, NULL, live_stop, runner, "no new test starts, "
				       "running ones are cancelled; the report covers the rest",
				       false, false };

		if (tui_new(&live.ri, &ctl, &live.tui, &err)) {
			status = cmd_fail_inv(inv, &err);
			goto out;
		}
		cmd_interrupt_on_exit(tui_restore_terminal);
	}
	if (kc) {
		double started = live_t(&live);
		json_t *s;
		size_t i;

		for (int st = 0; st < VSTAGE__COUNT; st++)
			if (want[st])
				live_stage_start(&live, validate_stage_name(st));
		if (validate_kube(kc, inv, &vo, want, report, &err)) {
			live_release(&live);
			status = cmd_fail_inv(inv, &err);
			goto out;
		}
		json_array_foreach(json_object_get(report, "stages"), i, s)
			live_stage_done(&live, s, started);
		goto judged;
	}
	if (live.tui)
		cmd_interrupt_begin(cancel_validate_tui, &live, "no new test starts, running ones "
				    "are cancelled (their remote processes killed)");
	else
		cmd_interrupt_begin(cmd_cancel_runner, runner, "no new test starts, running ones are "
				    "cancelled (their remote processes killed)");
	for (int st = 0; st < VSTAGE__COUNT; st++) {
		double started = live_t(&live);
		json_t *stages = json_object_get(report, "stages");
		size_t before = json_array_size(stages);

		if (!want[st] || runner_cancelled(runner))
			continue;
		live_stage_start(&live, validate_stage_name(st));
		if (stage_fns[st](runner, inv, &vo, report, &err)) {
			cmd_interrupt_end();
			live_release(&live);
			status = cmd_fail_inv(inv, &err);
			goto out;
		}
		if (json_array_size(stages) > before)
			live_stage_done(&live, json_array_get(stages, json_array_size(stages) - 1), started);
	}
	if (cmd_interrupt_end() || runner_cancelled(runner))
		json_object_set_new(report, "interrupted", json_true());
judged:
	emit(&live, &(struct dep_event){ .kind = DEV_RUN_DONE, .stage = (size_t)-1,
	     .t = live_t(&live), .interrupted = json_is_true(json_object_get(report, "interrupted")) });
	if (live.tui) {
		tui_wait(live.tui);
		cmd_interrupt_on_exit(NULL);
	}
	live_release(&live);
	worst = validate_report_finish(report);
	/* An interrupted run is no baseline and compares only partly. */
	if (baseline && !json_is_true(json_object_get(report, "interrupted"))) {
		if (validate_baseline(report, state_dir, cfg.baseline_drop_pct, &err)) {
			status = cmd_fail_inv(inv, &err);
			goto out;
		}
		worst = validate_report_finish(report);
	}
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
	live_release(&live);
	cluster_lock_release(cl); /* before the inventory it reads is freed */
	free(run_id);
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

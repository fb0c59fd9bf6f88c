/*
 * bringup deploy: run a playbook's stages on the cluster (engine/deploy/deploy.h),
 * print one line per state change and a summary folded by node set (or the
 * summary as JSON), keep a journal for --resume.
 */
#include "cmd.h"
#include "progress.h"
#include "version.h"
#include "../engine/deploy/deploy.h"
#include "../engine/base/eventlog.h"
#include "../engine/base/jsontext.h"
#include "../engine/kube/kube-objects.h"
#include "../engine/base/nodeset.h"
#include "../engine/ssh/runner.h"
#include "../engine/base/template.h"
#include "../engine/base/xalloc.h"
#include "../engine/deploy/module.h"
#include "../engine/deploy/upgrade.h"
#include "../engine/rundir/cluster-lock.h"
#include "../modules/offline.h"
#include "../tui/tui.h"

#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_PLAYBOOK "playbooks/deploy.yaml"

struct out {
	bool json, tty, check;
	const struct inventory *inv;
	const struct playbook *pb;
};

/* A second ^C kills us the usual way (cmd_interrupt_begin); the journal is
 * whole either way, and last_words makes it say "interrupted", not
 * "running" (a state nothing would ever change again). */
static void cancel_deploy(void *d)
{
	deploy_cancel(d);
}

/* What the second ^C's handler reads: set before deploy_run, cleared after
 * (a signal handler's only way to them). */
static const struct journal *volatile last_words_journal;
static volatile sig_atomic_t last_words_tui;

static void last_words(void)
{
	const struct journal *j = last_words_journal;

	if (last_words_tui)
		tui_restore_terminal();
	if (j)
		journal_save_interrupted(j);
}

const struct cmd_option cmd_deploy_options[] = {
	{ "inventory", 'i', OPT_SHORT | OPT_FILE | OPT_INVENTORY, "FILE", "inventory (YAML)" },
	{ "playbook", 'p', OPT_SHORT | OPT_FILE, "FILE", "playbook to run instead of the built-in one" },
	{ "check", 'C', OPT_SHORT, NULL, "plan only: show what would change (with diffs), change nothing" },
	{ "limit", 'l', OPT_SHORT | OPT_HOSTS, "HOSTS", "node sets and/or group names, comma-separated" },
	{ "tags", 't', OPT_SHORT, "T[,T]", "only stages with one of these tags (or names)" },
	{ "skip-tags", 'T', 0, "T[,T]", "never stages with one of these tags (or names)" },
	{ "start-at", 'S', 0, "STAGE", "skip the stages before STAGE" },
	{ "resume", 'R', 0, NULL, "continue the last run: skip what its journal says is done" },
	{ "run-id", 'I', 0, "ID", "record the run as ID (new); with --resume, continue run ID, not the last" },
	{ "state-dir", 'D', OPT_DIR, "DIR", "journal and logs (default ~/.local/state/bringup/CLUSTER)" },
	{ "output", 'o', OPT_SHORT, "text|json", "the summary as text (default) or JSON" },
	{ "forks", 'f', OPT_SHORT, "N", "hosts worked on at once (default " CMD_STR(RUNNER_DEFAULT_FORKS) ")" },
	{ "timeout", 'W', 0, "S", "per-command time limit (default: the inventory's)" },
	{ "accept-new-host-keys", 'A', 0, NULL, "record unknown host keys (changed keys are refused)" },
	{ "list-modules", 'M', 0, NULL, "print the modules playbooks can use" },
	{ "from-bundle", 'B', OPT_FILE, "FILE", "use an air-gap bundle (bundle --offline): checked, unpacked in STATE/offline" },
	{ "tui", 'U', 0, NULL, "a full-screen view to watch and steer the run (bringup tui)" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

/* Where the events go: the run directory always, then the TUI or the lines. */
struct sinks {
	struct out *o;
	struct eventlog *el;
	struct tui *tui;
	struct progress *progress;  /* a terminal without --tui */
	struct deploy *d;
};

static void cancel_deploy_tui(void *arg)
{
	struct sinks *k = arg;

	deploy_cancel(k->d);
	tui_interrupted(k->tui);
}

static void tui_pause(void *d, bool paused) { deploy_pause(d, paused); }
static void tui_retry(void *d, size_t stage) { deploy_retry(d, stage); }
static void tui_stop(void *d) { deploy_cancel(d); }
static void tui_retry_host(void *d, size_t h, const char *who) { deploy_retry_host(d, h, who); }
static void tui_skip_host(void *d, size_t h, const char *who) { deploy_skip_host(d, h, who); }
static void tui_stop_host(void *d, size_t h, const char *who) { deploy_stop_host(d, h, who); }

/* Who steers from this terminal, for the run's record: the login name
 * (the one sudo was run by, when it was), as last(1) would name it. */
static char *tui_who(void)
{
	const char *u = getenv("SUDO_USER");
	struct passwd *pw;

	if (!u || !*u)
		u = (pw = getpwuid(getuid())) ? pw->pw_name : NULL;
	return xasprintf("%s (tui, pid %ld)", u && *u ? u : "uid", (long)getpid());
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup deploy -i INVENTORY [options]\n"
		"\n"
		"Runs the stages of a playbook (default: the built-in deploy playbook) on the\n"
		"cluster: stages in order, the hosts of a stage in parallel. Each stage checks\n"
		"first and changes only what differs, so a second run changes nothing.\n"
		"\n");
	cmd_print_options(f, cmd_deploy_options);
	fprintf(f,
		"\n"
		"On a terminal: a live status (a line per stage with a bar and counts, failures\n"
		"as they happen). Events are recorded in RUN_DIR/events.jsonl (tui --replay).\n"
		"Output: when stdout is not a terminal, one line per state change:\n"
		"  STAGE * start HOSTS | STAGE HOST started | STAGE HOST output TEXT |\n"
		"  STAGE HOST ok|changed|failed|unreachable|skipped SECONDS [: REASON] |\n"
		"  STAGE * done\n"
		"then a summary per stage and result, hosts folded into node sets. A host that\n"
		"refuses or does not answer within the connect timeout is unreachable (not\n"
		"failed); its later stages are skipped and --resume tries it again.\n"
		"SIGINT stops cleanly: nothing new starts, running commands finish; a second\n"
		"SIGINT quits at once; --resume goes on. A command that runs out of time is\n"
		"stopped on the host (its process group gets SIGTERM, then SIGKILL).\n"
		"\n"
		"Exit status: 0 every stage succeeded; 1 a stage failed on a host or the run was\n"
		"interrupted; 2 usage, inventory or playbook error; 3 a host was unreachable.\n");
}

static void split_commas(const char *s, struct strlist *out)
{
	const char *p;

	while (s && *s) {
		p = strchr(s, ',');
		if (p != s)
			strlist_push_owned(out, p ? xstrndup(s, (size_t)(p - s)) : xstrdup(s));
		s = p ? p + 1 : NULL;
	}
}

/* ---- the event stream ---- */

static void print_event(const struct dep_event *ev, void *arg)
{
	struct out *o = arg;

	if (o->json)
		return;
	switch (ev->kind) {
	case DEV_STAGE_START:
		printf("%s * start %s\n", ev->stage_name, ev->hosts);
		break;
	case DEV_HOST_START:
		if (!o->tty)
			printf("%s %s started\n", ev->stage_name, ev->host);
		break;
	case DEV_OUTPUT:
		printf("%s %s output %s\n", ev->stage_name, ev->host, ev->msg);
		break;
	case DEV_HOST_DONE:
		printf("%s %s %s %.2fs", ev->stage_name, ev->host,
		       o->check && ev->result == RES_CHANGED ? "would-change" :
		       host_result_name(ev->result), ev->duration_s);
		if (ev->reason)
			printf(": %s", ev->reason);
		else if (ev->changes && ev->changes->n)
			printf(": %zu change%s", ev->changes->n, ev->changes->n == 1 ? "" : "s");
		putchar('\n');
		break;
	case DEV_STAGE_DONE:
		printf("%s * done\n", ev->stage_name);
		break;
	case DEV_RUN_DONE:
		if (ev->interrupted)
			printf("* * interrupted\n");
		break;
	case DEV_CONTROL:
		printf("%s %s control %s\n", ev->stage_name, ev->host, ev->msg ? ev->msg : "");
		break;
	}
	fflush(stdout);
}

static void fan_out(const struct dep_event *ev, void *arg)
{
	struct sinks *k = arg;

	eventlog_write(k->el, ev);
	if (k->tui)
		tui_event(ev, k->tui);
	else if (k->progress)
		progress_event(ev, k->progress);
	else
		print_event(ev, k->o);
}

/* The matrix's rows and columns: the inventory's hosts, and the admin host
 * when a stage runs there. Strings are borrowed; the arrays are the caller's. */
static void fill_run_info(const struct inventory *inv, const struct playbook *pb,
			  const char *run_dir, struct run_info *ri)
{
	char **stages = xcalloc(pb->nstages + 1, sizeof(*stages));
	char **hosts = xcalloc(inv->nhosts + 2, sizeof(*hosts));
	size_t nh = 0;
	bool local = false;

	for (size_t i = 0; i < pb->nstages; i++) {
		stages[i] = pb->stages[i].name;
		local |= pb->stages[i].local;
	}
	for (size_t i = 0; i < inv->nhosts; i++)
		hosts[nh++] = inv->hosts[i].name;
	if (local)
		hosts[nh++] = "localhost";
	*ri = (struct run_info){ inv->cluster_name, pb->name, run_dir, stages, pb->nstages,
				 hosts, nh };
}

/* ---- the summary ---- */

static bool same_cell(const struct deploy_cell *a, const struct deploy_cell *b, bool plan)
{
	if (deploy_cell_counted(a) != deploy_cell_counted(b) || !!a->reason != !!b->reason ||
	    (a->reason && strcmp(a->reason, b->reason)))
		return false;
	if (!plan)
		return true;
	if (a->changes.n != b->changes.n)
		return false;
	for (size_t i = 0; i < a->changes.n; i++)
		if (strcmp(a->changes.v[i], b->changes.v[i]) || strcmp(a->diffs.v[i], b->diffs.v[i]))
			return false;
	return true;
}

/*
 * Lines of "STAGE RESULT HOSTS[: reason]", hosts with the same result and
 * reason folded; with `plan`, also the changes (and diffs) under each group.
 */
static void print_stage_summary(const struct deploy *d, const struct out *o, size_t si,
				size_t *totals, bool plan)
{
	size_t ncols = o->inv->nhosts + 1;
	bool *shown = xcalloc(ncols, sizeof(*shown));

	for (size_t h = 0; h < ncols; h++) {
		const struct deploy_cell *c = deploy_cell(d, si, h);
		struct strlist names = STRLIST_INIT;
		char *set;

		if (shown[h] || c->result == RES_NONE || (plan && c->result != RES_CHANGED))
			continue;
		for (size_t k = h; k < ncols; k++) {
			const struct deploy_cell *x = deploy_cell(d, si, k);

			if (shown[k] || !same_cell(c, x, plan))
				continue;
			shown[k] = true;
			if (totals)
				totals[deploy_cell_counted(x)]++;
			strlist_push(&names, k < o->inv->nhosts ? o->inv->hosts[k].name : "localhost");
		}
		set = nodeset_fold(names.v, names.n);
		if (plan) {
			printf("%s %s:\n", o->pb->stages[si].name, set);
			for (size_t i = 0; i < c->changes.n; i++) {
				printf("  - %s\n", c->changes.v[i]);
				if (*c->diffs.v[i])
					printf("%s", c->diffs.v[i]);
			}
		} else {
			printf("  %-16s %-8s %s%s%s\n", o->pb->stages[si].name,
			       o->check && c->result == RES_CHANGED ? "would-change" :
			       host_result_name(deploy_cell_counted(c)), set, c->reason ? ": " : "",
			       c->reason ? c->reason : "");
		}
		free(set);
		strlist_clear(&names);
	}
	free(shown);
}

static void print_summary(const struct deploy *d, const struct out *o, const char *run_dir)
{
	size_t totals[RES__COUNT] = { 0 };

	if (o->check) {
		printf("plan (nothing was changed):\n");
		for (size_t si = 0; si < o->pb->nstages; si++)
			print_stage_summary(d, o, si, NULL, true);
	}
	printf("summary:\n");
	for (size_t si = 0; si < o->pb->nstages; si++)
		print_stage_summary(d, o, si, totals, false);
	printf("total: ok=%zu %s=%zu failed=%zu skipped=%zu", totals[RES_OK],
	       o->check ? "would-change" : "changed", totals[RES_CHANGED],
	       totals[RES_FAILED], totals[RES_SKIPPED]);
	if (totals[RES_UNREACHABLE])
		printf(" unreachable=%zu", totals[RES_UNREACHABLE]);
	putchar('\n');
	printf("run: %s\n", run_dir);
}

static json_t *strlist_json(const struct strlist *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(a, json_text_or_null(l->v[i]));
	return a;
}

static json_t *summary_json(const struct deploy *d, const struct out *o, const char *run_id,
			    const char *run_dir)
{
	json_t *stages = json_array(), *totals = json_object();
	size_t count[RES__COUNT] = { 0 };

	for (size_t si = 0; si < o->pb->nstages; si++) {
		json_t *hosts = json_object();

		for (size_t h = 0; h <= o->inv->nhosts; h++) {
			const struct deploy_cell *c = deploy_cell(d, si, h);
			json_t *j;

			if (c->result == RES_NONE)
				continue;
			count[deploy_cell_counted(c)]++;
			j = json_pack("{s:s, s:o, s:f, s:o}", "status",
				      host_result_name(deploy_cell_counted(c)),
				      "changes", strlist_json(&c->changes), "duration_s", c->duration_s,
				      "reason", json_text_or_null(c->reason));
			if (o->check)
				json_object_set_new(j, "diffs", strlist_json(&c->diffs));
			json_object_set_new(hosts, h < o->inv->nhosts ? o->inv->hosts[h].name :
					    "localhost", j);
		}
		json_array_append_new(stages, json_pack("{s:s, s:s, s:o}", "name",
							o->pb->stages[si].name, "module",
							o->pb->stages[si].module->name, "hosts", hosts));
	}
	for (int r = RES_OK; r < RES__COUNT; r++)
		json_object_set_new(totals, host_result_name((enum host_result)r),
				    json_integer((json_int_t)count[r]));
	return json_pack("{s:s, s:s, s:s, s:s, s:b, s:b, s:o, s:o}", "cluster",
			 o->inv->cluster_name, "playbook", o->pb->name, "run_id", run_id,
			 "run_dir", run_dir, "check", o->check, "interrupted",
			 deploy_interrupted(d), "stages", stages, "totals", totals);
}

static int exit_status(const struct deploy *d, const struct out *o)
{
	int status = EXIT_OK;

	for (size_t si = 0; si < o->pb->nstages; si++)
		for (size_t h = 0; h <= o->inv->nhosts; h++) {
			const struct deploy_cell *c = deploy_cell(d, si, h);

			if (c->result == RES_UNREACHABLE && status == EXIT_OK)
				status = EXIT_UNREACHABLE;
			if (c->result != RES_FAILED)
				continue;
			if (cmd_exit_for(c->err_code) == EXIT_UNREACHABLE && status == EXIT_OK)
				status = EXIT_UNREACHABLE;
			else if (cmd_exit_for(c->err_code) != EXIT_UNREACHABLE)
				status = EXIT_FAILED;
		}
	if (deploy_interrupted(d) && status == EXIT_OK)
		status = EXIT_FAILED;
	return status;
}

/* ---- setting up ---- */

/* The built-in playbook, or the one in the source tree beside the binary. */
static int load_default_playbook(struct playbook **ret, struct err *err)
{
	size_t len;
	const char *text = template_get(DEFAULT_PLAYBOOK, &len);
	char exe[PATH_MAX], *slash, *path;
	ssize_t n;
	int rc;

	if (text)
		return playbook_load_buf("deploy.yaml (built in)", text, len, stage_modules,
					 stage_nmodules, ret, err);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return err_set(err, ERR_NOTFOUND, "no built-in playbook; give one with -p");
	exe[n] = '\0';
	for (int up = 0; up < 3 && (slash = strrchr(exe, '/')); up++) {
		*slash = '\0';
		path = xasprintf("%s/%s", exe, DEFAULT_PLAYBOOK);
		if (!access(path, R_OK)) {
			rc = playbook_load(path, stage_modules, stage_nmodules, ret, err);
			free(path);
			return rc;
		}
		free(path);
	}
	return err_set(err, ERR_NOTFOUND, "no built-in playbook; give one with -p");
}

static void list_modules(void)
{
	for (size_t i = 0; i < stage_nmodules; i++) {
		const struct stage_module *m = stage_modules[i];

		printf("%-14s %s\n", m->name, m->summary);
		for (const struct param_spec *p = m->params; p && p->name; p++)
			printf("    %-20s %s (default %s%s%s)\n", p->name, p->help,
			       p->def ? p->def : "none", p->var ? "; inventory variable " : "",
			       p->var ? p->var : "");
	}
}

struct run_paths {
	char *state_dir, *run_id, *run_dir;
	char *prior_last; /* a new run: the run STATE/last named before it (NULL: none) */
};

static void run_paths_release(struct run_paths *rp)
{
	free(rp->state_dir);
	free(rp->run_id);
	free(rp->run_dir);
	free(rp->prior_last);
}

/*
 * The run's id before its journal: the cluster lock names it. A new run
 * given its id (--run-id: an upgrade's) must not have a journal yet.
 */
static int run_id_for(bool resume, const char *given, struct run_paths *rp, struct err *err)
{
	if (given) {
		char *path = xasprintf("%s/runs/%s/journal.json", rp->state_dir, given);
		int rc = 0;

		if (!resume && !access(path, F_OK))
			rc = err_set(err, ERR_USAGE, "--run-id %s: that run has a journal (%s): "
				     "--resume continues it", given, path);
		else
			rp->run_id = xstrdup(given);
		free(path);
		return rc;
	}
	if (!resume) {
		rp->run_id = run_id_new();
		return 0;
	}
	return run_last(rp->state_dir, &rp->run_id, err) ? err_prefix(err, "--resume: ") : 0;
}

/* Opens the journal of the last run (--resume) or starts a new one
 * (rp->run_id: when set, the run's id). */
static int open_journal(const struct inventory *inv, const struct playbook *pb,
			const char *inv_path, bool resume, struct run_paths *rp,
			struct journal **ret, struct err *err)
{
	const char *key;
	json_t *prior, *v;
	char *path;
	int rc;

	if (resume) {
		if (!rp->run_id && (rc = run_last(rp->state_dir, &rp->run_id, err)))
			return err_prefix(err, "--resume: ");
		rp->run_dir = xasprintf("%s/runs/%s", rp->state_dir, rp->run_id);
		path = xasprintf("%s/journal.json", rp->run_dir);
		rc = journal_load(path, ret, err);
		free(path);
		if (rc)
			return rc;
		if (strcmp(journal_get(*ret, "playbook") ?: "", pb->name)) {
			rc = err_set(err, ERR_USAGE, "--resume: the last run (%s) ran playbook '%s', "
				     "not '%s'", rp->run_id, journal_get(*ret, "playbook") ?: "?",
				     pb->name);
			journal_free(*ret);
			*ret = NULL;
		}
		return rc;
	}
	/* What earlier runs learnt of the cluster (the GPFS cluster ID, the
	 * mount point) stays known: `deploy --tags openshift` after a full
	 * deploy builds its PersistentVolume from them. This run's stages
	 * record over them. */
	if (!(prior = kube_records_load(rp->state_dir, err))) {
		fprintf(stderr, "bringup deploy: warning: the last run's records are not carried "
			"over: %s\n", err_msg(err));
		err_clear(err);
		prior = json_object();
	}
	if (!rp->run_id)
		rp->run_id = run_id_new();
	if (run_last(rp->state_dir, &rp->prior_last, err))
		err_clear(err); /* the first run */
	rp->run_dir = xasprintf("%s/runs/%s", rp->state_dir, rp->run_id);
	if ((rc = mkdir_p(rp->run_dir, err))) {
		json_decref(prior);
		return rc;
	}
	path = xasprintf("%s/journal.json", rp->run_dir);
	*ret = journal_new(path, &(struct journal_meta){ rp->run_id, inv->cluster_name,
			   pb->name, BRINGUP_VERSION, inv_path });
	free(path);
	json_object_foreach(prior, key, v)
		if (json_is_string(v))
			journal_record(*ret, key, json_string_value(v));
	json_decref(prior);
	if ((rc = journal_save(*ret, err)) ||
	    (rc = run_mark_last(rp->state_dir, rp->run_id, err))) {
		journal_free(*ret);
		*ret = NULL;
	}
	return rc;
}

static void add_secrets(struct runlog *log, const struct inventory *inv)
{
	runlog_add_secrets_from(log, inv->vars);
	for (size_t i = 0; i < ROLE__COUNT; i++)
		runlog_add_secrets_from(log, inv->groups[i].vars);
	for (size_t i = 0; i < inv->nhosts; i++)
		runlog_add_secrets_from(log, inv->hosts[i].vars);
}

struct deploy_args;
static int use_bundle(const struct deploy_args *a, struct inventory *inv, struct err *err);

struct deploy_args {
	const char *inv_path, *pb_path, *limit, *start_at, *state_dir, *format, *from_bundle;
	const char *run_id;
	struct strlist tags, skip_tags;
	bool tui;
	bool check, resume, list;
	struct deploy_opts o;
};

static int parse_args(int argc, char **argv, struct deploy_args *a)
{
	struct cmd_getopt g;
	int c;

	a->format = "text";
	cmd_getopt_init(&g, cmd_deploy_options, false);
	optind = 1;
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 'i': a->inv_path = optarg; break;
		case 'p': a->pb_path = optarg; break;
		case 'C': a->check = true; break;
		case 'l': a->limit = optarg; break;
		case 't': split_commas(optarg, &a->tags); break;
		case 'T': split_commas(optarg, &a->skip_tags); break;
		case 'S': a->start_at = optarg; break;
		case 'R': a->resume = true; break;
		case 'I': a->run_id = optarg; break;
		case 'D': a->state_dir = optarg; break;
		case 'o': a->format = optarg; break;
		case 'f': if (cmd_parse_uint("deploy", "--forks", optarg, &a->o.forks)) return -1; break;
		case 'W': if (cmd_parse_uint("deploy", "--timeout", optarg, &a->o.command_timeout_s)) return -1; break;
		case 'A': a->o.accept_new_host_keys = true; break;
		case 'M': a->list = true; break;
		case 'B': a->from_bundle = optarg; break;
		case 'U': a->tui = true; break;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return -1;
		}
	}
	if (a->list)
		return 0;
	if (!a->inv_path || optind != argc || (strcmp(a->format, "text") && strcmp(a->format, "json"))) {
		usage(stderr);
		return -1;
	}
	if (a->check && a->resume) {
		fprintf(stderr, "bringup deploy: --check and --resume do not go together\n");
		return -1;
	}
	if (a->run_id && (a->check || !run_id_valid(a->run_id))) {
		fprintf(stderr, "bringup deploy: --run-id %s: %s\n", a->run_id, a->check ?
			"a dry run records no run" : "letters, digits, '.', '_' and '-' "
			"(not first), at most 64");
		return -1;
	}
	a->o.check = a->check;
	a->o.limit = a->limit;
	a->o.tags = &a->tags;
	a->o.skip_tags = &a->skip_tags;
	a->o.start_at = a->start_at;
	return 0;
}

/* --from-bundle: the hosts' ofed_tarball (gpfs_installer, peermem_tarball) point into the unpacked bundle. */
static int use_bundle(const struct deploy_args *a, struct inventory *inv, struct err *err)
{
	char *state = a->state_dir ? xstrdup(a->state_dir) : state_dir_default(inv->cluster_name);
	char *dir = xasprintf("%s/offline", state);
	struct strbuf report = STRBUF_INIT;
	int rc = offline_bundle_use(a->from_bundle, dir, inv, &report, err);

	if (!rc)
		fputs(report.buf, stderr);
	strbuf_release(&report);
	free(dir);
	free(state);
	return rc;
}

/*
 * What finished upgrades installed (STATE/upgrade/releases) is desired where
 * a host runs it, whatever the inventory still says: the modules' `upgraded`
 * parameter; and a plain deploy says which inventory keys to change.
 */
static void use_upgraded_releases(const struct inventory *inv, struct playbook *pb,
				  const char *state_dir)
{
	struct upgrade_to rel;
	struct strbuf keys = STRBUF_INIT;

	if (!upgrade_releases(state_dir, &rel))
		return;
	if (rel.ofed)
		playbook_default_param(pb, "ofed", "upgraded", rel.ofed);
	if (rel.scale)
		playbook_default_param(pb, "scale_install", "upgraded", rel.scale);
	if (rel.driver)
		playbook_default_param(pb, "gpu_driver", "upgraded", rel.driver);
	if (strcmp(pb->name, "upgrade"))
		upgrade_inventory_keys(inv, &rel, &keys);
	if (keys.len)
		fprintf(stderr, "bringup deploy: note: `bringup upgrade` installed releases "
			"the inventory does not name (%s/upgrade/releases); deploy keeps them "
			"where they run: %s", state_dir, keys.buf);
	strbuf_release(&keys);
	upgrade_to_release(&rel);
}

/*
 * Takes the cluster lock for a run whose journal exists: one run per
 * cluster, whatever its state directory, before any host is touched.
 * A ^C meanwhile ends the process with the journal saying "interrupted"
 * (--resume then starts the run: nothing was changed). A refused new run
 * is undone (its journal removed, STATE/last pointing where it did), so
 * that a second deploy never takes --resume away from the run it waits
 * for; a --resume takes over the lease of the run it resumes, and becomes
 * the last run once it holds it.
 */
static int lock_cluster(const struct inventory *inv, const struct deploy_args *a,
			const struct run_paths *rp, struct journal **journal,
			struct cluster_lock **cl, struct err *err)
{
	int rc;

	last_words_journal = *journal;
	cmd_interrupt_on_exit(last_words);
	cmd_interrupt_fatal();
	rc = cmd_cluster_lock(inv, rp->run_id, &(struct runner_opts){ .forks = a->o.forks,
			      .command_timeout_s = a->o.command_timeout_s,
			      .accept_new_host_keys = a->o.accept_new_host_keys }, cl, err);
	cmd_interrupt_end();
	cmd_interrupt_on_exit(NULL);
	last_words_journal = NULL;
	if (rc && !a->resume) {
		journal_free(*journal);
		*journal = NULL;
		run_discard(rp->state_dir, rp->run_id, rp->prior_last);
	} else if (!rc && a->resume) {
		rc = run_mark_last(rp->state_dir, rp->run_id, err);
	}
	return rc;
}

int cmd_deploy(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cluster_lock *cl = NULL;
	struct deploy_args a = { 0 };
	struct inventory *inv = NULL;
	struct playbook *pb = NULL;
	struct journal *journal = NULL;
	json_t *check_records = NULL;
	struct runlog *log = NULL;
	struct deploy *d = NULL;
	struct run_paths rp = { 0 };
	struct err err = ERR_INIT;
	struct out o = { 0 };
	struct sinks sinks = { 0 };
	struct run_info ri = { 0 };
	int status = EXIT_OK, rc, lock_fd = -1;
	char *who = NULL;

	(void)ctx;
	rc = parse_args(argc, argv, &a);
	if (rc || a.list) {
		if (a.list)
			list_modules();
		status = rc < 0 ? EXIT_USAGE : EXIT_OK;
		goto out;
	}
	/* Everything that can be wrong with the input fails here, before any host is touched. */
	if (cmd_inventory_load(a.inv_path, &inv, &err) ||
	    (a.from_bundle && use_bundle(&a, inv, &err)) ||
	    (a.pb_path ? playbook_load(a.pb_path, stage_modules, stage_nmodules, &pb, &err) :
	     load_default_playbook(&pb, &err)) ||
	    playbook_resolve(pb, inv, &err)) {
		status = cmd_fail_inv(inv, &err);
		if (status == EXIT_FAILED && err.code == ERR_NOTFOUND)
			status = EXIT_USAGE;
		goto out;
	}
	if (a.start_at && playbook_stage_index(pb, a.start_at) < 0) {
		fprintf(stderr, "bringup deploy: --start-at %s: no such stage in %s\n", a.start_at,
			pb->path);
		status = EXIT_USAGE;
		goto out;
	}
	rp.state_dir = a.state_dir ? xstrdup(a.state_dir) : state_dir_default(inv->cluster_name);
	use_upgraded_releases(inv, pb, rp.state_dir);
	if (a.check) {
		char *id = run_id_new();

		rp.run_id = xasprintf("%s-check", id);
		rp.run_dir = xasprintf("%s/runs/%s", rp.state_dir, rp.run_id);
		free(id);
		/* A dry run starts from what the last run learnt, as a real one does. */
		if (!(check_records = kube_records_load(rp.state_dir, &err)))
			err_clear(&err);
		a.o.records = check_records;
	} else if (run_lock(rp.state_dir, &lock_fd, &err) ||
		   run_id_for(a.resume, a.run_id, &rp, &err) ||
		   /* recorded before the cluster lock: a run cut while it
		    * waits for the lock is the one --resume goes on with */
		   open_journal(inv, pb, a.inv_path, a.resume, &rp, &journal, &err) ||
		   lock_cluster(inv, &a, &rp, &journal, &cl, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	if (runlog_open(rp.run_dir, &log, &err) ||
	    deploy_new(inv, pb, &a.o, journal, log, &d, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	add_secrets(log, inv);
	o = (struct out){ !strcmp(a.format, "json"), isatty(STDOUT_FILENO), a.check, inv, pb };
	fill_run_info(inv, pb, rp.run_dir, &ri);
	ri.dry_run = a.check;
	if (eventlog_open(rp.run_dir, &ri, &sinks.el, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	sinks.o = &o;
	sinks.d = d;
	last_words_journal = journal;
	cmd_interrupt_on_exit(last_words);
	/* --tui on a pipe: the plain lines, as without it */
	if (a.tui && o.tty && isatty(STDIN_FILENO) && tui_term_ok()) {
		struct tui_ctl ctl = { tui_pause, tui_retry, tui_stop, d, "running commands "
				       "finish; `bringup deploy --resume` goes on", false, false,
				       tui_retry_host, tui_skip_host, tui_stop_host, NULL };

		who = tui_who();
		ctl.who = who;
		if (tui_new(&ri, &ctl, &sinks.tui, &err)) {
			status = cmd_fail_inv(inv, &err);
			goto out;
		}
		last_words_tui = 1;
		cmd_interrupt_begin(cancel_deploy_tui, &sinks, "no new stage or host starts, "
				    "running commands finish; --resume goes on");
	} else {
		if (o.tty && !o.json)
			sinks.progress = progress_new(stdout, &ri, !getenv("NO_COLOR"));
		cmd_interrupt_begin(cancel_deploy, d, "no new stage or host starts, running "
				    "commands finish (a change is never cut in half); --resume goes on");
	}
	rc = deploy_run(d, fan_out, &sinks, &err);
	while (sinks.tui && !rc && tui_wait(sinks.tui) == TUI_RUN_AGAIN)
		rc = deploy_run(d, fan_out, &sinks, &err);
	cmd_interrupt_end();
	last_words_journal = NULL;
	last_words_tui = 0;
	tui_free(sinks.tui);
	sinks.tui = NULL;
	progress_free(sinks.progress);
	sinks.progress = NULL;
	cmd_interrupt_on_exit(NULL);
	if (o.json) {
		json_t *j = summary_json(d, &o, rp.run_id, rp.run_dir);

		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
		putchar('\n');
		json_decref(j);
	} else {
		print_summary(d, &o, rp.run_dir);
	}
	status = exit_status(d, &o);
	if (rc)
		status = cmd_fail_inv(inv, &err);
	else if (deploy_interrupted(d))
		fprintf(stderr, "bringup: interrupted; `bringup deploy --resume` goes on from here\n");
out:
	cluster_lock_release(cl); /* before the inventory it reads is freed */
	tui_free(sinks.tui);
	progress_free(sinks.progress);
	eventlog_free(sinks.el);
	free((void *)ri.stages);
	free((void *)ri.hosts);
	deploy_free(d);
	runlog_free(log);
	journal_free(journal);
	json_decref(check_records);
	playbook_free(pb);
	inventory_free(inv);
	run_paths_release(&rp);
	if (lock_fd >= 0)
		close(lock_fd);
	strlist_clear(&a.tags);
	strlist_clear(&a.skip_tags);
	err_clear(&err);
	free(who);
	return status;
}

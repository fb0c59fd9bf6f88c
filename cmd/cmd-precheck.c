/*
 * bringup precheck: is the cluster ready for bring-up, and if not, what
 * and where. One round trip per host (facts), then every check, then one
 * report in the format asked for. The CI gate: exit 0 all pass, 1 a check
 * failed, 2 usage or inventory error, 3 hosts unreachable.
 */
#include "cmd.h"
#include "progress.h"
#include "../engine/precheck/check.h"
#include "../engine/facts/facts.h"
#include "../engine/inventory/inventory.h"
#include "../engine/base/nodeset.h"
#include "../engine/inventory/redact.h"
#include "../engine/precheck/report.h"
#include "../engine/ssh/runner.h"
#include "../engine/ssh/ssh.h"
#include "../engine/rundir/runlog.h"
#include "../engine/base/strlist.h"
#include "../engine/deploy/upgrade.h"
#include "../engine/base/xalloc.h"
#include "../tui/tui.h"

#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const struct cmd_option cmd_precheck_options[] = {
	{ "inventory", 'i', OPT_SHORT | OPT_FILE | OPT_INVENTORY, "FILE", "inventory (YAML)" },
	{ "limit", 'l', OPT_SHORT | OPT_HOSTS, "HOSTS", "node sets and/or group names, comma-separated" },
	{ "checks", 'c', OPT_CHECKS, "LIST", "only these checks (ids or globs: 'ib.*,gpu.count')" },
	{ "skip-checks", 's', OPT_CHECKS, "LIST", "all but these" },
	{ "list-checks", 'L', 0, NULL, "print every check id with its severity and title" },
	{ "print-probe", 'P', 0, NULL, "print the script precheck runs on every host (sh -s)" },
	{ "output-format", 'o', OPT_SHORT, "text|json|junit|prom", "the report's format (default text)" },
	{ "output", 'O', OPT_FILE, "FILE", "write the report to FILE instead of stdout" },
	{ "facts", 'F', OPT_FILE, "FILE", "also write the gathered facts as JSON" },
	{ "forks", 'f', OPT_SHORT, "N", "hosts worked on at once (default " CMD_STR(RUNNER_DEFAULT_FORKS) ")" },
	{ "timeout", 't', OPT_SHORT, "S", "time limit for one host's facts (default 60; 180 with --deep)" },
	{ "deep", 'd', 0, NULL, "also run the GPU diagnostics (dcgmi diag -r 1, up to 2 minutes a host)" },
	{ "accept-new-host-keys", 'A', 0, NULL, "record unknown host keys (changed keys are refused)" },
	{ "tui", 'U', 0, NULL, "a full-screen view while it runs (bringup tui's keys); the report follows" },
	{ "state-dir", 'D', OPT_DIR, "DIR", "where bringup upgrade notes an unfinished upgrade (default ~/.local/state/bringup/CLUSTER)" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup precheck -i INVENTORY [options]\n"
		"\n"
		"Gathers facts from every host in one round trip and checks that the cluster\n"
		"is ready for bring-up: SSH, OS and kernel, HCAs and ports, OFED, peer memory,\n"
		"memlock, SELinux, GPUs (count, model, row remapping, XIDs, power brake), PCIe\n"
		"links, GPUDirect RDMA, Spectrum Scale, clocks, the subnet manager.\n"
		"\n");
	cmd_print_options(f, cmd_precheck_options);
	fprintf(f,
		"\n"
		"Severities can be changed per check in the inventory:\n"
		"  vars: { precheck_severity: { gpu.throttle: warn } }\n"
		"Colour when stdout is a terminal, never with NO_COLOR set.\n"
		"\n"
		"A host that refuses or does not answer within the connect timeout fails\n"
		"ssh.reachable (unreachable). ^C stops starting hosts, cancels the running\n"
		"probes (their remote processes killed) and reports what finished; a second\n"
		"^C quits at once.\n"
		"\n"
		"On a terminal, a live status (facts, then a line per group of checks) comes\n"
		"first; failures are listed as they are found.\n"
		"\n"
		"Exit status: 0 every check passed (warnings allowed); 1 a check failed or the\n"
		"run was interrupted; 2 usage or inventory error; 3 a host was unreachable.\n");
}

static void split_list(const char *s, struct strlist *out)
{
	char *copy = xstrdup(s), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (*t)
			strlist_push(out, t);
	free(copy);
}

static void list_checks(void)
{
	for (size_t i = 0; i < check_ndefs; i++)
		printf("%-18s %-4s %s\n", check_defs[i].id,
		       check_defs[i].severity == SEV_FAIL ? "fail" : "warn", check_defs[i].title);
}

/* Findings quote what hosts printed, which may hold an inventory secret.
 * NULL: the string is clean as it is. */
static char *redact_changed(const char *s, void *arg)
{
	char *m = redact_dup(arg, s);

	if (!strcmp(m, s)) {
		free(m);
		return NULL;
	}
	return m;
}

static void redact_report(const struct redactor *r, struct check_report *rep)
{
	check_report_map_strings(rep, redact_changed, (void *)r);
}

/*
 * JSON goes out as it is made (some 20 MB at 1,000 hosts), the other formats
 * whole (cmd_write_out). As there, only a file's errors count.
 */
static int write_json_report(const char *path, const struct check_report *rep)
{
	FILE *f = path ? fopen(path, "w") : stdout;
	int rc;

	if (!f) {
		perror(path);
		return -1;
	}
	rc = report_json_to(rep, f);
	if (!path) {
		fflush(f);
		return 0;
	}
	if (fclose(f) || rc) {
		perror(path);
		return -1;
	}
	return 0;
}

/* Facts are raw host output: readable by the user only, like the run directory. */
static int write_facts(const char *path, const json_t *j)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	int rc;

	if (fd < 0)
		return -1;
	if (fchmod(fd, 0600)) {
		close(fd);
		return -1;
	}
	rc = json_dumpfd(j, fd, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	return close(fd) || rc ? -1 : 0;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Managed switches speak a CLI, not a shell: the probe cannot run there.
 * Their SM shows in every node's sminfo, and deploy's subnet_manager stage
 * reads their configuration. Returns how many of idx[0..n) remain.
 */
static size_t drop_switches(const struct inventory *inv, size_t *idx, size_t n)
{
	struct strlist names = STRLIST_INIT;
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		if (host_has_role(&inv->hosts[idx[i]], ROLE_IB_SWITCH))
			strlist_push(&names, inv->hosts[idx[i]].name);
		else
			idx[kept++] = idx[i];
	}
	if (names.n) {
		char *set = nodeset_fold(names.v, names.n);

		fprintf(stderr, "bringup precheck: not probed: %s (ib_switch: a switch CLI, not a "
			"shell; deploy's subnet_manager stage reads it)\n", set);
		free(set);
	}
	strlist_clear(&names);
	return kept;
}

/*
 * The live view (TUI or status lines): a "facts" stage, then a stage per
 * group of checks (the id's prefix: ssh, os, ib, gpu...). A host's cell in a
 * group is its worst result there: failed (reason: the check and what it
 * found; hint: the check's remediation), skipped, or ok (warnings say so
 * in the reason).
 */
struct live {
	struct tui *tui;
	struct progress *progress;
	const struct redactor *red;
	struct runner *runner;
	struct strlist stages;
	struct run_info ri;
	double t0;
};

static void live_event(const struct dep_event *ev, void *arg)
{
	struct live *l = arg;
	struct dep_event e = *ev;
	char *reason = ev->reason ? redact_dup(l->red, ev->reason) : NULL;

	e.reason = reason;
	if (l->tui)
		tui_event(&e, l->tui);
	else if (l->progress)
		progress_event(&e, l->progress);
	free(reason);
}

static void live_init(struct live *l, const struct inventory *inv, const size_t *idx, size_t n)
{
	char **hosts = xcalloc(n + 1, sizeof(*hosts));

	strlist_push(&l->stages, "facts");
	for (size_t i = 0; i < check_ndefs; i++) {
		const char *id = check_defs[i].id, *dot = strchr(id, '.');
		char *g = xstrndup(id, dot ? (size_t)(dot - id) : strlen(id));

		if (strlist_index(&l->stages, g) < 0)
			strlist_push(&l->stages, g);
		free(g);
	}
	for (size_t i = 0; i < n; i++)
		hosts[i] = inv->hosts[idx[i]].name;
	l->ri = (struct run_info){ inv->cluster_name, "precheck", NULL, l->stages.v, l->stages.n,
				   hosts, n };
}

static bool in_group(const char *id, const char *group)
{
	size_t n = strlen(group);

	return !strncmp(id, group, n) && (id[n] == '.' || !id[n]);
}

static void live_checks(struct live *l, const struct check_report *rep, double t)
{
	struct report_index ix;

	/* nobody watches: the report says it all */
	if (!l->tui && !l->progress)
		return;
	report_index_init(&ix, rep);
	for (size_t s = 1; s < l->stages.n; s++) {
		const char *g = l->stages.v[s];
		struct strlist names = STRLIST_INIT;
		char *set;

		for (size_t i = 0; i < rep->hosts_n; i++)
			strlist_push(&names, rep->inv->hosts[rep->hosts[i]].name);
		set = nodeset_fold(names.v, names.n);
		live_event(&(struct dep_event){ .kind = DEV_STAGE_START, .stage = s,
			   .stage_name = g, .hosts = set, .t = t }, l);
		for (size_t i = 0; i < rep->hosts_n; i++) {
			struct dep_event e = { .kind = DEV_HOST_DONE, .stage = s, .stage_name = g,
					       .host = names.v[i], .result = RES_OK, .t = t };
			const struct check_result *worst = NULL;
			bool any = false, warn = false;
			char *reason = NULL;

			/* the host's results of the group's checks, in report order */
			for (size_t k = 0; k < check_ndefs; k++) {
				size_t c = i * check_ndefs + k;

				if (!in_group(check_defs[k].id, g))
					continue;
				for (size_t j = ix.first[c]; j < ix.first[c + 1]; j++) {
					const struct check_result *r = &rep->r[ix.idx[j]];

					any = true;
					if (r->status == CHECK_FAIL &&
					    (!worst || worst->status != CHECK_FAIL))
						worst = r;
					else if (r->status == CHECK_WARN && !worst)
						worst = r, warn = true;
				}
			}
			if (!any) {
				e.result = RES_SKIPPED;
				e.reason = "no check of this group applies";
			} else if (worst) {
				e.result = warn ? RES_OK : RES_FAILED;
				reason = xasprintf("%s%s%s%s: expected %s, found %s%s%s", warn ?
						   "warning: " : "", worst->def->id,
						   worst->subject ? " " : "",
						   worst->subject ? worst->subject : "",
						   worst->expected ? worst->expected : "?",
						   worst->found ? worst->found : "?",
						   worst->detail ? "; " : "",
						   worst->detail ? worst->detail : "");
				e.reason = reason;
				e.hint = worst->def->hint;
			}
			live_event(&e, l);
			free(reason);
		}
		live_event(&(struct dep_event){ .kind = DEV_STAGE_DONE, .stage = s,
			   .stage_name = g, .t = t }, l);
		free(set);
		strlist_clear(&names);
	}
	report_index_release(&ix);
}

static void live_release(struct live *l)
{
	tui_free(l->tui);
	progress_free(l->progress);
	free((void *)l->ri.hosts);
	strlist_clear(&l->stages);
}

static void cancel_precheck_tui(void *arg)
{
	struct live *l = arg;

	runner_cancel(l->runner);
	if (l->tui)
		tui_interrupted(l->tui);
}

/*
 * A host is judged as its facts come in; then only what the fleet checks
 * read of it stays (unless --facts wants it all): memory follows the hosts
 * in flight and the results, not every host's facts.
 */
struct judging {
	struct check_judge *cj;
	bool keep_facts;
};

static void judge_host(struct host_facts *hf, void *arg)
{
	struct judging *j = arg;

	check_judge_host(j->cj, hf);
	if (!j->keep_facts)
		facts_keep_only(hf, check_fleet_facts);
	/* A host's output, session and parsed trees, freed by now, leave
	 * holes between what later hosts still hold, which malloc keeps:
	 * give their whole pages back (precheck's peak at 256 sim hosts
	 * 40 MB instead of 45, same wall time; make bench). */
	malloc_trim(0);
}

static void live_pause(void *runner, bool paused) { runner_pause(runner, paused); }
static void live_stop(void *runner) { runner_cancel(runner); }

int cmd_precheck(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_getopt g;
	const char *inv_path = NULL, *limit = NULL, *format = "text", *out_path = NULL;
	const char *facts_path = NULL, *state_dir = NULL;
	char *state = NULL;
	struct upgrade_to upgrading = { 0 };
	struct runner_opts ro = { .command_timeout_s = 60 };
	struct check_opts co = { STRLIST_INIT, STRLIST_INIT };
	struct inventory *inv = NULL;
	struct runner *runner = NULL;
	struct facts *facts = NULL;
	struct check_report *rep = NULL;
	struct judging judging = { NULL, false };
	struct redactor *red = NULL;
	struct err err = ERR_INIT;
	struct strbuf out = STRBUF_INIT;
	struct report_counts counts;
	size_t *idx = NULL, n = 0;
	double t0 = wall_now();
	int c, status = EXIT_OK;
	bool interrupted = false, want_tui = false, deep = false, timeout_set = false;
	struct live live = { 0 };

	(void)ctx;
	cmd_getopt_init(&g, cmd_precheck_options, false);
	optind = 1;
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 'i': inv_path = optarg; break;
		case 'l': limit = optarg; break;
		case 'c': split_list(optarg, &co.only); break;
		case 's': split_list(optarg, &co.skip); break;
		case 'L': list_checks(); status = EXIT_OK; goto out;
		case 'P': facts_script(&out); fputs(out.buf, stdout); goto out;
		case 'o': format = optarg; break;
		case 'O': out_path = optarg; break;
		case 'F': facts_path = optarg; break;
		case 'f':
		case 't':
			if (cmd_parse_uint("precheck", c == 'f' ? "--forks" : "--timeout", optarg,
					   c == 'f' ? &ro.forks : &ro.command_timeout_s)) {
				status = EXIT_USAGE;
				goto out;
			}
			timeout_set |= c == 't';
			break;
		case 'd': deep = true; break;
		case 'A': ro.accept_new_host_keys = true; break;
		case 'U': want_tui = true; break;
		case 'D': state_dir = optarg; break;
		case 'h': usage(stdout); goto out;
		default: usage(stderr); status = EXIT_USAGE; goto out;
		}
	}
	if (!inv_path || optind != argc ||
	    (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "junit") &&
	     strcmp(format, "prom"))) {
		usage(stderr);
		status = EXIT_USAGE;
		goto out;
	}
	/* dcgmi diag has up to two minutes of its own (facts.sh). */
	if (deep && !timeout_set)
		ro.command_timeout_s = 180;
	ro.cancel_stops_commands = true;
	if (cmd_inventory_load(inv_path, &inv, &err) ||
	    inventory_select(inv, limit, &idx, &n, &err) ||
	    runner_new(inv, &ro, &runner, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	/* An unfinished rolling upgrade: two releases are expected for now. */
	state = state_dir ? xstrdup(state_dir) : state_dir_default(inv->cluster_name);
	if (upgrade_in_progress(state, &upgrading)) {
		co.upgrade_ofed = upgrading.ofed;
		co.upgrade_driver = upgrading.driver;
	}
	n = drop_switches(inv, idx, n);
	if (check_judge_new(inv, idx, n, &co, &judging.cj, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	judging.keep_facts = facts_path != NULL;
	red = redactor_new();
	redactor_add_inventory(red, inv);
	live_init(&live, inv, idx, n);
	live.red = red;
	live.runner = runner;
	if (want_tui && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO) && tui_term_ok()) {
		struct tui_ctl ctl = { live_pause, NULL, live_stop, runner, "no new host starts, "
				       "running probes are cancelled; the report covers the rest",
				       false, false };

		if (tui_new(&live.ri, &ctl, &live.tui, &err)) {
			status = cmd_fail_inv(inv, &err);
			goto out;
		}
		cmd_interrupt_on_exit(tui_restore_terminal);
		cmd_interrupt_begin(cancel_precheck_tui, &live, "no new host starts, running "
				    "probes are cancelled");
	} else {
		/* the live status, where it cannot mix with a report on stdout */
		if (isatty(STDOUT_FILENO) && (out_path || !strcmp(format, "text")))
			live.progress = progress_new(stdout, &live.ri, !getenv("NO_COLOR"));
		cmd_interrupt_begin(cmd_cancel_runner, runner, "no new host starts, running probes are "
				    "cancelled (their remote processes killed)");
	}
	{
		char *set = nodeset_fold(live.ri.hosts, live.ri.nhosts);

		live_event(&(struct dep_event){ .kind = DEV_STAGE_START, .stage = 0,
			   .stage_name = "facts", .hosts = set }, &live);
		free(set);
	}
	facts_gather_once_events(runner, inv, idx, n, deep ? FACTS_DEEP : 0, 0, "facts",
				 live.tui || live.progress ? live_event : NULL, &live,
				 judge_host, &judging, &facts, &err);
	live_event(&(struct dep_event){ .kind = DEV_STAGE_DONE, .stage = 0, .stage_name = "facts",
		   .t = wall_now() - t0 }, &live);
	check_judge_finish(judging.cj, facts, &rep);
	/* Judged: what the fleet checks kept goes before the report is written,
	 * unless --facts wants every host's. */
	if (!facts_path) {
		facts_free(facts);
		facts = NULL;
	}
	live_checks(&live, rep, wall_now() - t0);
	live_event(&(struct dep_event){ .kind = DEV_RUN_DONE, .stage = (size_t)-1,
		   .t = wall_now() - t0, .interrupted = runner_cancelled(runner) }, &live);
	if (live.tui)
		tui_wait(live.tui);
	interrupted = cmd_interrupt_end() || runner_cancelled(runner);
	live_release(&live);
	live = (struct live){ 0 };
	cmd_interrupt_on_exit(NULL);
	redact_report(red, rep);

	if (!strcmp(format, "json")) {
		if (write_json_report(out_path, rep)) {
			status = EXIT_FAILED;
			goto out;
		}
	} else if (!strcmp(format, "junit")) {
		report_junit(rep, wall_now() - t0, &out);
	} else if (!strcmp(format, "prom")) {
		report_prom(rep, wall_now(), &out);
	} else {
		bool colour = !out_path && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
		report_text(rep, colour, &out);
	}
	if (strcmp(format, "json") && cmd_write_out(out_path, out.buf, out.len)) {
		status = EXIT_FAILED;
		goto out;
	}
	if (facts_path) {
		json_t *j = facts_to_json(facts);

		redact_json(red, j);
		if (write_facts(facts_path, j))
			fprintf(stderr, "bringup precheck: cannot write %s\n", facts_path);
		json_decref(j);
	}
	report_count(rep, &counts);
	if (counts.unreachable)
		status = EXIT_UNREACHABLE;
	else if (counts.fail || interrupted)
		status = EXIT_FAILED;
	if (interrupted)
		fprintf(stderr, "bringup precheck: interrupted: the report covers the hosts that "
			"finished; the others' checks were skipped\n");
out:
	live_release(&live);
	redactor_free(red);
	check_report_free(rep);
	check_judge_free(judging.cj);
	facts_free(facts);
	runner_free(runner);
	inventory_free(inv);
	free(idx);
	strlist_clear(&co.only);
	strlist_clear(&co.skip);
	upgrade_to_release(&upgrading);
	free(state);
	strbuf_release(&out);
	err_clear(&err);
	return status;
}

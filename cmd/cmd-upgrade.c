/*
 * bringup upgrade: a rolling upgrade in batches that keep Spectrum Scale
 * quorum, a master SM and a standby, the control plane and a contact node
 * up (engine/deploy/upgrade-plan.h). Reads which nodes are down now, plans, prints
 * the batches with the reason for each limit, refuses a plan that would
 * lose quorum before anything changes, then runs the generated playbook
 * (engine/deploy/upgrade.h) through `deploy`, whose journal gives --resume.
 */
#include "cmd.h"
#include "../engine/inventory/inventory.h"
#include "../engine/rundir/journal.h"
#include "../engine/kube/kube-objects.h"
#include "../engine/rundir/runlog.h"
#include "../engine/rundir/cluster-lock.h"
#include "../engine/ssh/runner.h"
#include "../engine/deploy/upgrade.h"
#include "../engine/base/nodeset.h"
#include "../engine/base/strlist.h"
#include "../engine/base/xalloc.h"
#include "../modules/gpu-runfile.h"
#include "../modules/ofed-tarball.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct cmd_option cmd_upgrade_options[] = {
	{ "inventory", 'i', OPT_SHORT | OPT_FILE | OPT_INVENTORY, "FILE", "inventory (YAML)" },
	{ "to", 'T', 0, "ofed=VER[,scale=VER][,driver=VER]", "the releases to move to (OFED, Spectrum Scale, GPU driver)" },
	{ "batch", 'b', 0, "N|P%", "at most N nodes (or P% of them) down at once (default: as the limits allow)" },
	{ "ofed-tarball", 'O', OPT_FILE, "FILE", "the new MLNX_OFED tarball (default: the inventory's ofed_tarball)" },
	{ "scale-installer", 'S', OPT_DIR, "DIR", "the new Spectrum Scale release, extracted (default: the inventory's gpfs_installer)" },
	{ "driver-installer", 'G', OPT_FILE, "FILE", "the new GPU driver's runfile, NVIDIA-Linux-ARCH-VER.run (default: the inventory's gpu_driver_installer)" },
	{ "check", 'C', OPT_SHORT, NULL, "show the batches and why, change nothing" },
	{ "resume", 'R', 0, NULL, "continue the planned upgrade where it stopped (or from its first batch)" },
	{ "state-dir", 'D', OPT_DIR, "DIR", "journal, logs and the upgrade's playbook (default ~/.local/state/bringup/CLUSTER)" },
	{ "forks", 'f', OPT_SHORT, "N", "hosts worked on at once (default " CMD_STR(RUNNER_DEFAULT_FORKS) ")" },
	{ "timeout", 'W', 0, "S", "per-command time limit (default: the inventory's)" },
	{ "accept-new-host-keys", 'A', 0, NULL, "record unknown host keys (changed keys are refused)" },
	{ "tui", 'U', 0, NULL, "show the batches' stages in the full-screen view (as bringup tui; plain lines without a terminal)" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup upgrade -i INVENTORY --to ofed=VER[,scale=VER][,driver=VER]\n"
		"                       [--batch N|P%%] [--check | --resume]\n"
		"\n"
		"Moves a running cluster to a new release a batch of nodes at a time. Per node:\n"
		"with a Kubernetes layer (cluster var openshift) cordon and drain through the\n"
		"API, honouring PodDisruptionBudgets; the node's manager roles moved to nodes\n"
		"outside the batch (mmchmgr -c; mmchmgr DEVICE NODE for each file system this\n"
		"cluster owns), the quorum guard, mmshutdown, the new OFED (a reboot when the\n"
		"install needs one), the new Spectrum Scale packages (rpm -U / dpkg -i), the\n"
		"new GPU driver (GPU services stopped, modules unloaded, the runfile with\n"
		"--silent --dkms, a reboot), peer memory loaded again, mmbuildgpl,\n"
		"mmstartup, wait until active, mmmount, uncordon. A batch holds at\n"
		"most: --batch nodes; as many active quorum nodes as leave a strict majority\n"
		"active; as many SM hosts as leave a master and a standby; as many\n"
		"control-plane nodes as leave etcd a majority; all but one Scale manager/NSD\n"
		"node. A node that fails stops the run at the end of its batch (cordoned); no\n"
		"later batch starts; --resume goes on. After a new Spectrum Scale release on\n"
		"every node, the next step is printed, not run: mmchconfig release=LATEST\n"
		"(the cluster's function level; it cannot be undone).\n"
		"\n");
	cmd_print_options(f, cmd_upgrade_options);
	fprintf(f,
		"\n"
		"Exit status: 0 upgraded (or --check); 1 refused (quorum) or a node failed;\n"
		"2 usage or inventory error; 3 a host was unreachable.\n");
}

struct upgrade_args {
	const char *inv_path, *to, *batch, *tarball, *installer, *runfile, *state_dir, *forks;
	const char *timeout;
	bool check, resume, accept, tui;
	unsigned nbatch;
	bool percent;
};

static int parse_batch(const char *s, struct upgrade_args *a)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	a->percent = *end == '%';
	if (end == s || errno || !v || (a->percent ? end[1] != '\0' || v > 100 : *end != '\0') ||
	    v > 100000) {
		fprintf(stderr, "bringup upgrade: --batch %s: expected a number of nodes (1 or more) "
			"or a percentage (1%%-100%%)\n", s);
		return -1;
	}
	a->nbatch = (unsigned)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct upgrade_args *a)
{
	struct cmd_getopt g;
	int c;

	cmd_getopt_init(&g, cmd_upgrade_options, false);
	optind = 1;
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 'i': a->inv_path = optarg; break;
		case 'T': a->to = optarg; break;
		case 'b': a->batch = optarg; break;
		case 'O': a->tarball = optarg; break;
		case 'S': a->installer = optarg; break;
		case 'G': a->runfile = optarg; break;
		case 'C': a->check = true; break;
		case 'R': a->resume = true; break;
		case 'D': a->state_dir = optarg; break;
		case 'f': a->forks = optarg; break;
		case 'W': a->timeout = optarg; break;
		case 'A': a->accept = true; break;
		case 'U': a->tui = true; break;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return -1;
		}
	}
	if (!a->inv_path || optind != argc || (!a->to && !a->resume)) {
		usage(stderr);
		return -1;
	}
	if (a->check && a->resume) {
		fprintf(stderr, "bringup upgrade: --check and --resume do not go together\n");
		return -1;
	}
	if (a->resume && (a->to || a->batch)) {
		fprintf(stderr, "bringup upgrade: --resume goes on with the batches planned at the "
			"start; give neither --to nor --batch\n");
		return -1;
	}
	return a->batch ? parse_batch(a->batch, a) : 0;
}

static void print_plan(const struct inventory *inv, const struct upg_plan *p,
		       const struct upgrade_to *to, const char *const *state)
{
	size_t ndown = 0;

	char *what = upgrade_to_str(to);

	printf("upgrade plan: %u nodes in %zu batches, to %s\n", p->members[UPG_LIM_ADMIN],
	       p->nbatches, what);
	free(what);
	for (size_t i = 0; i < inv->nhosts; i++)
		if (!strcmp(state[i], "switch"))
			printf("not upgraded: %s (a managed switch)\n", inv->hosts[i].name);
		else if (strcmp(state[i], "active") && strcmp(state[i], "no GPFS"))
			printf("%s %s: %s\n", ndown++ ? "       " : "down now:", inv->hosts[i].name,
			       state[i]);
	printf("limits per batch:\n");
	for (int l = 0; l < UPG_LIM__COUNT; l++) {
		if (p->cap[l] == UPG_NO_LIMIT)
			printf("  %-8s none (%s)\n", upg_limit_name(l), l == UPG_LIM_ADMIN ?
			       "no --batch" : "no such nodes in the inventory");
		else
			printf("  %-8s at most %u: %s\n", upg_limit_name(l), p->cap[l], p->why[l]);
	}
	if (kube_layer(inv))
		printf("kubernetes: each batch cordoned and drained before it goes down (evictions "
		       "honour PodDisruptionBudgets; drain_timeout, default 600 s), uncordoned once "
		       "back; a node that fails stays cordoned\n");
	else
		printf("kubernetes: none (no cluster var openshift): nothing to cordon or drain\n");
	for (size_t b = 0; b < p->nbatches; b++) {
		const struct upg_batch *bt = &p->batches[b];
		char *set = upgrade_batch_set(inv, bt);
		struct strbuf full = STRBUF_INIT;

		printf("batch %zu: %s (%zu nodes):", b + 1, set, bt->n);
		for (int l = 0; l < UPG_LIM__COUNT; l++) {
			if (p->cap[l] == UPG_NO_LIMIT)
				continue;
			printf(" %s %u/%u", upg_limit_name(l), bt->used[l], p->cap[l]);
			if (bt->used[l] == p->cap[l])
				strbuf_addf(&full, "%s%s", full.len ? ", " : "", upg_limit_name(l));
		}
		printf("%s%s\n", full.len ? "; at the limit: " : "", full.len ? full.buf : "");
		strbuf_release(&full);
		free(set);
	}
}

/* The nodes no batch could take, and why (a remedy naming real nodes). */
static void print_left(const struct inventory *inv, const struct upg_plan *p)
{
	struct strlist names = STRLIST_INIT;
	char *set;

	if (!p->nleft)
		return;
	for (size_t i = 0; i < p->nleft; i++)
		strlist_push(&names, inv->hosts[p->left[i]].name);
	set = nodeset_fold(names.v, names.n);
	printf("not upgraded: %s: %s\n", set, p->left_why ? p->left_why : "no batch can take them");
	free(set);
	strlist_clear(&names);
}

static int write_file(const char *path, const char *buf, size_t len, struct err *err)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = 0;

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		rc = err_set(err, ERR_IO, "%s: %s", tmp, strerror(errno));
		if (f)
			fclose(f);
	} else if (rename(tmp, path)) {
		rc = err_set(err, ERR_IO, "%s: %s", path, strerror(errno));
	}
	free(tmp);
	return rc;
}

/*
 * After the run, one line per node from the last run's journal: upgraded,
 * failed at a stage, interrupted in one (^C cut it), stopped part-way, or
 * untouched (its batch never began; a ^C kept it from starting).
 */
/*
 * A finished upgrade: its releases recorded in STATE/upgrade/releases (a
 * deploy takes them as desired where the cluster runs them), and the
 * inventory keys that still name the old ones said.
 */
static int finish_upgrade(const struct inventory *inv, const char *state)
{
	struct upgrade_to done;
	struct strbuf keys = STRBUF_INIT;
	struct err err = ERR_INIT;
	int status = EXIT_OK;

	if (upgrade_finish(state, &done, &err)) {
		fprintf(stderr, "bringup upgrade: the upgrade finished but its releases are not "
			"recorded: %s\n", err_msg(&err));
		status = EXIT_FAILED;
	}
	upgrade_inventory_keys(inv, &done, &keys);
	/* The new daemons still speak the old release's protocol and file
	 * system format until the cluster's function level is raised (IBM,
	 * "Completing the upgrade to a new level of IBM Spectrum Scale"); after
	 * that, nodes of the old release cannot join and going back needs
	 * IBM's revert procedure ("Reverting to the previous level"): offered,
	 * never run. */
	if (done.scale)
		printf("next: every node runs Spectrum Scale %s; once you will not go back to the "
		       "old release, raise the cluster's function level on a manager node: "
		       "mmchconfig release=LATEST (then mmchfs DEVICE -V full for a file system "
		       "this cluster owns); bringup does not run it: it cannot be undone\n",
		       done.scale);
	if (keys.len)
		printf("the cluster now runs what the inventory does not say: %s"
		       "(until then, deploy keeps the releases this upgrade installed, "
		       "recorded in %s/upgrade/releases)\n", keys.buf, state);
	upgrade_to_release(&done);
	strbuf_release(&keys);
	err_clear(&err);
	return status;
}

static void print_node_states(const struct inventory *inv, const char *state)
{
	struct journal *j = NULL;
	struct strlist stages = STRLIST_INIT;
	struct err err = ERR_INIT;
	char *id = NULL, *path = NULL;

	if (run_last(state, &id, &err))
		goto out;
	path = xasprintf("%s/runs/%s/journal.json", state, id);
	if (journal_load(path, &j, &err))
		goto out;
	journal_stages(j, &stages);
	printf("nodes:\n");
	for (size_t h = 0; h < inv->nhosts; h++) {
		const char *name = inv->hosts[h].name, *failed = NULL, *last_done = NULL;
		const char *cut = NULL;
		size_t n = 0, done = 0;

		if (inv->hosts[h].roles & (1u << ROLE_IB_SWITCH))
			continue;
		for (size_t s = 0; s < stages.n; s++) {
			const char *st = journal_host_status(j, stages.v[s], name);
			const char *why = journal_host_reason(j, stages.v[s], name);

			if (!st)
				continue;
			n++;
			if (!strcmp(st, "ok") || !strcmp(st, "changed")) {
				done++;
				last_done = stages.v[s];
			} else if (!strcmp(st, "interrupted")) {
				/* a stage ^C kept from starting is no failure; one it
				 * cut is where --resume goes on */
				if (!cut && !(why && !strcmp(why, "interrupted: not started")))
					cut = stages.v[s];
			} else if (!failed && strcmp(st, "skipped")) {
				failed = stages.v[s];
			}
		}
		if (n && done == n)
			printf("  %-12s upgraded\n", name);
		else if (cut && !failed)
			printf("  %-12s interrupted at %s (--resume goes on from there)\n", name, cut);
		else if (failed)
			printf("  %-12s failed at %s (left as it failed; --resume retries it)\n",
			       name, failed);
		else if (last_done)
			printf("  %-12s stopped after %s\n", name, last_done);
		else
			printf("  %-12s untouched (its batch did not start)\n", name);
	}
out:
	strlist_clear(&stages);
	journal_free(j);
	free(path);
	free(id);
	err_clear(&err);
}

/* Runs the upgrade's playbook through deploy (its journal, report and --resume). */
static int run_deploy(const struct cmd_ctx *ctx, const struct upgrade_args *a, const char *pb,
		      const char *state, const char *run_id, bool resume)
{
	struct cmd_ctx dctx = { cmd_ctx_find(ctx, "deploy"), ctx->commands, ctx->ncommands };
	const char *argv[16];
	int n = 0;

	argv[n++] = "deploy";
	argv[n++] = "-i";
	argv[n++] = a->inv_path;
	argv[n++] = "-p";
	argv[n++] = pb;
	argv[n++] = "--state-dir";
	argv[n++] = state;
	argv[n++] = "--run-id";
	argv[n++] = run_id;
	if (resume)
		argv[n++] = "--resume";
	if (a->forks) {
		argv[n++] = "--forks";
		argv[n++] = a->forks;
	}
	if (a->timeout) {
		argv[n++] = "--timeout";
		argv[n++] = a->timeout;
	}
	if (a->accept)
		argv[n++] = "--accept-new-host-keys";
	if (a->tui)
		argv[n++] = "--tui";
	argv[n] = NULL;
	fflush(stdout);
	return cmd_deploy(&dctx, n, (char **)argv);
}

/*
 * The new OFED tarball holds the release asked for: checked on this host
 * before any node goes down (the ofed stage would find it only after the
 * first batch's daemons stopped). A repository source (ofed_source: repo)
 * is the ofed stage's to check.
 */
static int check_tarball(const struct inventory *inv, const struct upgrade_args *a,
			 const struct upgrade_to *to, struct err *err)
{
	const char *src = json_string_value(json_object_get(inv->vars, "ofed_source"));
	const char *path = a->tarball ? a->tarball :
			   json_string_value(json_object_get(inv->vars, "ofed_tarball"));
	struct strbuf have = STRBUF_INIT, want = STRBUF_INIT;
	struct ofed_tarball t = { 0 };
	int rc;

	if (!to->ofed || (src && !strcmp(src, "repo") && !a->tarball))
		return 0;
	if (!path)
		return err_set(err, ERR_USAGE, "--to ofed=%s: no tarball: give --ofed-tarball FILE "
			       "(or the inventory's ofed_tarball)", to->ofed);
	if ((rc = ofed_tarball_inspect(path, &t, err)))
		return rc;
	ofed_release(t.version, &have);
	ofed_release(to->ofed, &want);
	if (!have.len || strcmp(have.buf, want.buf))
		rc = err_set(err, ERR_USAGE, "--to ofed=%s: %s holds %s; give the new release's "
			     "tarball with --ofed-tarball FILE", to->ofed, path, t.version);
	ofed_tarball_release(&t);
	strbuf_release(&have);
	strbuf_release(&want);
	return rc;
}

/*
 * --to driver=: the runfile is the driver asked for (its Makeself header),
 * checked before any node goes down, as check_tarball does for OFED.
 */
static int check_runfile(const struct inventory *inv, const struct upgrade_args *a,
			 const struct upgrade_to *to, struct err *err)
{
	const char *path = a->runfile ? a->runfile :
			   json_string_value(json_object_get(inv->vars, "gpu_driver_installer"));
	struct gpu_runfile r;
	int rc;

	if (!to->driver)
		return 0;
	if (!path)
		return err_set(err, ERR_USAGE, "--to driver=%s: no runfile: give --driver-installer "
			       "FILE (or the inventory's gpu_driver_installer)", to->driver);
	rc = gpu_runfile_inspect(path, &r, err);
	if (!rc && strcmp(r.version, to->driver))
		rc = err_set(err, ERR_USAGE, "--to driver=%s: %s is driver %s; give the new "
			     "driver's runfile with --driver-installer FILE", to->driver, path,
			     r.version);
	gpu_runfile_release(&r);
	return rc;
}

/*
 * --resume: the run of the planned upgrade (STATE/upgrade/run) goes on
 * where its journal says it stopped, or starts from its first batch where
 * it was cut before its journal began. No record, or an upgrade already
 * finished: nothing to resume, said as such (an upgrade cut while it read
 * the cluster and planned changed nothing).
 */
static int resume(const struct cmd_ctx *ctx, const struct upgrade_args *a,
		  const struct inventory *inv, const char *state, const char *pb)
{
	struct upgrade_to to = { 0 };
	char *run_id = NULL, *journal = NULL, *what = NULL;
	size_t nleft = 0;
	int status;

	if (!upgrade_run_read(state, &run_id, &nleft)) {
		fprintf(stderr, "bringup upgrade: --resume: no upgrade was begun in %s (one cut "
			"while it read the cluster and planned changed nothing): start it with "
			"`bringup upgrade --to ...`\n", state);
		return EXIT_USAGE;
	}
	if (!upgrade_in_progress(state, &to)) {
		fprintf(stderr, "bringup upgrade: --resume: no upgrade is in progress in %s: the "
			"last one (run %s) finished (one cut while it read the cluster and planned "
			"changed nothing): start a new one with `bringup upgrade --to ...`\n",
			state, run_id);
		free(run_id);
		return EXIT_USAGE;
	}
	what = upgrade_to_str(&to);
	journal = xasprintf("%s/runs/%s/journal.json", state, run_id);
	if (!access(journal, F_OK)) {
		printf("resuming the upgrade to %s planned in %s (run %s)\n", what, pb, run_id);
		status = run_deploy(ctx, a, pb, state, run_id, true);
	} else {
		printf("the upgrade to %s planned in %s was cut before its first stage: its "
		       "batches start from the first (run %s)\n", what, pb, run_id);
		status = run_deploy(ctx, a, pb, state, run_id, false);
	}
	/* nodes the plan left out still run the old releases */
	if (status == EXIT_OK && nleft) {
		printf("not upgraded: %zu node%s the plan left out (see the plan); the upgrade "
		       "is not finished\n", nleft, nleft == 1 ? "" : "s");
		status = EXIT_FAILED;
	} else if (status == EXIT_OK) {
		status = finish_upgrade(inv, state);
	}
	if (status != EXIT_USAGE)
		print_node_states(inv, state);
	upgrade_to_release(&to);
	free(journal);
	free(what);
	free(run_id);
	return status;
}

int cmd_upgrade(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct upgrade_args a = { 0 };
	struct inventory *inv = NULL;
	struct runner *r = NULL;
	struct cluster_lock *cl = NULL;
	struct upgrade_to to = { 0 };
	struct upg_plan plan = { 0 };
	struct upg_node *nodes = NULL;
	struct strbuf yaml = STRBUF_INIT;
	struct err err = ERR_INIT;
	char *state = NULL, *dir = NULL, *pb = NULL, **hstate = NULL, *run_id = NULL;
	const char *installer = NULL;
	bool *down = NULL, planned = false, tiebreaker = false;
	struct strbuf notes = STRBUF_INIT;
	int status = EXIT_OK, rc, lock_fd = -1;
	unsigned forks = 0, timeout = 0;

	rc = parse_args(argc, argv, &a);
	if (rc) {
		status = rc < 0 ? EXIT_USAGE : EXIT_OK;
		goto out;
	}
	if ((a.forks && cmd_parse_uint("upgrade", "--forks", a.forks, &forks)) ||
	    (a.timeout && cmd_parse_uint("upgrade", "--timeout", a.timeout, &timeout))) {
		status = EXIT_USAGE;
		goto out;
	}
	if ((a.to && upgrade_to_parse(a.to, &to, &err)) || cmd_inventory_load(a.inv_path, &inv, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	installer = a.installer ? a.installer :
		    json_string_value(json_object_get(inv->vars, "gpfs_installer"));
	if (!a.resume && to.scale && !installer) {
		fprintf(stderr, "bringup upgrade: --to scale=%s: no installer: give --scale-installer "
			"DIR (or the inventory's gpfs_installer)\n", to.scale);
		status = EXIT_USAGE;
		goto out;
	}
	if (!a.resume && ((to.scale && upgrade_scale_installer_check(installer, to.scale, &err)) ||
			  check_tarball(inv, &a, &to, &err) || check_runfile(inv, &a, &to, &err))) {
		status = cmd_fail_inv(inv, &err);
		if (err.code != ERR_USAGE && status == EXIT_FAILED)
			status = EXIT_USAGE;
		goto out;
	}
	state = a.state_dir ? xstrdup(a.state_dir) : state_dir_default(inv->cluster_name);
	dir = xasprintf("%s/upgrade", state);
	pb = xasprintf("%s/playbook.yaml", dir);
	if (a.resume) {
		status = resume(ctx, &a, inv, state, pb);
		goto out;
	}
	/* What is down now counts as down: read it before planning. */
	down = xcalloc(inv->nhosts + 1, sizeof(*down));
	hstate = xcalloc(inv->nhosts + 1, sizeof(*hstate));
	struct runner_opts ro = { .forks = forks, .command_timeout_s = timeout,
				  .accept_new_host_keys = a.accept, .cancel_stops_commands = true };
	run_id = run_id_new();
	/* One run per cluster, before the probe reads a node: a deploy or
	 * upgrade from another state directory would change what the plan
	 * reads. The deploy this upgrade runs takes the same lease (this
	 * process holds it); --check changes nothing and takes none. */
	rc = !a.check ? cmd_cluster_lock(inv, run_id, &ro, &cl, &err) : 0;
	if (rc || runner_new(inv, &ro, &r, &err) || upgrade_probe(r, inv, down, hstate, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	/* Quorum and manager roles are GPFS's (mmlscluster), not the inventory's. */
	nodes = upgrade_nodes(inv, down, hstate);
	if (upgrade_scale_roles(r, inv, hstate, nodes, &tiebreaker, &notes, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	runner_free(r);
	r = NULL;
	if (upg_plan_make_tb(nodes, inv->nhosts, a.nbatch, a.percent, tiebreaker, &plan, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	planned = true;
	print_plan(inv, &plan, &to, (const char *const *)hstate);
	fputs(notes.buf ? notes.buf : "", stdout);
	print_left(inv, &plan);
	if (a.check) {
		/* a plan that cannot take every node is not one to start as if it could */
		if (plan.nleft)
			status = EXIT_FAILED;
		goto out;
	}
	upgrade_playbook(inv, &plan, &to, &(struct upgrade_files){ a.tarball, a.installer,
			 a.runfile }, &yaml);
	/* A deploy or upgrade running on this cluster keeps its playbook: refused
	 * here, before ours replaces it (deploy takes the lock again for the run). */
	if (run_lock(state, &lock_fd, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	close(lock_fd);
	lock_fd = -1;
	/* In this order, so that --resume finds the run of this plan or none
	 * (upgrade_run_record): a cut before the record changed nothing. */
	upgrade_run_forget(state);
	if (mkdir_p(dir, &err) || write_file(pb, yaml.buf, yaml.len, &err) ||
	    upgrade_mark(state, &to, &err) || upgrade_run_record(state, run_id, plan.nleft, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	status = run_deploy(ctx, &a, pb, state, run_id, false);
	/* nodes left out still run the old releases: the upgrade is not over,
	 * its mark stays and nothing is recorded as installed */
	if (status == EXIT_OK && !plan.nleft)
		status = finish_upgrade(inv, state);
	if (status != EXIT_USAGE)
		print_node_states(inv, state);
	/* nodes the plan could not take: the upgrade is not finished */
	if (plan.nleft) {
		print_left(inv, &plan);
		if (status == EXIT_OK)
			status = EXIT_FAILED;
	}
out:
	cluster_lock_release(cl); /* before the inventory it reads is freed */
	free(run_id);
	if (planned)
		upg_plan_release(&plan);
	for (size_t i = 0; hstate && inv && i < inv->nhosts; i++)
		free(hstate[i]);
	free(hstate);
	free(down);
	free(nodes);
	runner_free(r);
	upgrade_to_release(&to);
	strbuf_release(&yaml);
	strbuf_release(&notes);
	free(pb);
	free(dir);
	free(state);
	inventory_free(inv);
	err_clear(&err);
	return status;
}

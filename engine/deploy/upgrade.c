/*
 * The rolling upgrade's probe and playbook; see upgrade.h.
 */
#include "upgrade.h"
#include "scale-quorum.h"
#include "../kube/kube-objects.h"
#include "../base/nodeset.h"
#include "../facts/parse.h"
#include "../rundir/runlog.h"
#include "../ssh/ssh.h"
#include "../base/strlist.h"
#include "../base/xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void upgrade_to_release(struct upgrade_to *t)
{
	free(t->ofed);
	free(t->scale);
	free(t->driver);
	memset(t, 0, sizeof(*t));
}

int upgrade_to_parse(const char *spec, struct upgrade_to *ret, struct err *err)
{
	char *copy = xstrdup(spec), *save = NULL;
	struct upgrade_to t = { 0 };
	int rc = 0;

	for (char *part = strtok_r(copy, ",", &save); part && !rc;
	     part = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(part, '='), **slot = NULL;

		if (eq) {
			*eq = '\0';
			slot = !strcmp(part, "ofed") ? &t.ofed : !strcmp(part, "scale") ? &t.scale :
			       !strcmp(part, "driver") ? &t.driver : NULL;
		}
		if (!eq || !slot || !eq[1] || strspn(eq + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(eq + 1))
			rc = err_set(err, ERR_USAGE, "--to %s: found '%s%s%s', expected "
				     "ofed=VERSION, scale=VERSION or driver=VERSION (letters, "
				     "digits, '.', '_', '-')", spec, part, eq ? "=" : "",
				     eq ? eq + 1 : "");
		else if (*slot)
			rc = err_set(err, ERR_USAGE, "--to %s: %s given twice", spec, part);
		else
			*slot = xstrdup(eq + 1);
	}
	if (!rc && !t.ofed && !t.scale && !t.driver)
		rc = err_set(err, ERR_USAGE, "--to: nothing to upgrade to");
	free(copy);
	if (rc)
		upgrade_to_release(&t);
	else
		*ret = t;
	return rc;
}

struct probe_job {
	const struct inventory *inv;
	size_t host;
	char *state;
};

static int probe_task(struct task_ctx *t, void *arg)
{
	struct probe_job *job = arg;
	const struct host *h = task_host(t, 0);
	struct remote_cmd cmd = { .command = "/usr/lpp/mmfs/bin/mmgetstate", .timeout_ms = 60000 };
	struct cmd_result res;
	struct err perr = ERR_INIT;
	json_t *st = NULL, *row;
	size_t i;
	int rc;

	cmd_result_init(&res);
	rc = task_exec(t, 0, &cmd, &res, task_err(t));
	if (!rc && res.outcome != CMD_EXITED)
		rc = err_set(task_err(t), ERR_TIMEOUT, "%s: mmgetstate did not finish", h->name);
	if (rc)
		goto out;
	if (res.exit_status == 127) {
		job->state = xstrdup("no GPFS");
		goto out;
	}
	if (res.exit_status || parse_mmgetstate(res.out.buf, res.out.len, &st, &perr)) {
		job->state = xstrdup("down");
		goto out;
	}
	json_array_foreach(json_object_get(st, "nodes"), i, row) {
		const char *name = json_string_value(json_object_get(row, "name"));
		const char *s = json_string_value(json_object_get(row, "state"));
		size_t n = strlen(h->name);

		if (name && s && !strncmp(name, h->name, n) && (!name[n] || name[n] == '.'))
			job->state = xstrdup(s);
	}
	if (!job->state)
		job->state = xstrdup("unknown");
out:
	json_decref(st);
	err_clear(&perr);
	cmd_result_release(&res);
	return rc;
}

int upgrade_probe(struct runner *r, const struct inventory *inv, bool *down,
		  char **state, struct err *err)
{
	struct probe_job *jobs = xcalloc(inv->nhosts, sizeof(*jobs));
	struct task *tasks = xcalloc(inv->nhosts, sizeof(*tasks));
	size_t *idx = xcalloc(inv->nhosts, sizeof(*idx));

	(void)err;
	size_t nt = 0;

	/* A managed switch speaks a CLI, not a shell, and is not upgraded here. */
	for (size_t i = 0; i < inv->nhosts; i++) {
		idx[nt] = i;
		jobs[nt] = (struct probe_job){ inv, i, NULL };
		tasks[nt] = (struct task){ .hosts = &idx[nt], .nhosts = 1, .fn = probe_task,
					   .arg = &jobs[nt] };
		if (inv->hosts[i].roles & (1u << ROLE_IB_SWITCH)) {
			down[i] = false;
			state[i] = xstrdup("switch");
			continue;
		}
		nt++;
	}
	runner_run(r, tasks, nt, NULL, NULL);
	for (size_t k = 0; k < nt; k++) {
		size_t i = jobs[k].host;

		if (tasks[k].rc) {
			free(jobs[k].state);
			jobs[k].state = xasprintf("unreachable: %s", err_msg(&tasks[k].err));
		}
		down[i] = tasks[k].rc || (strcmp(jobs[k].state, "active") &&
					  strcmp(jobs[k].state, "no GPFS"));
		state[i] = jobs[k].state;
		task_release(&tasks[k]);
	}
	free(idx);
	free(tasks);
	free(jobs);
	return 0;
}

struct upg_node *upgrade_nodes(const struct inventory *inv, const bool *down,
			       char *const *state)
{
	struct upg_node *nd = xcalloc(inv->nhosts ? inv->nhosts : 1, sizeof(*nd));

	for (size_t i = 0; i < inv->nhosts; i++)
		nd[i] = (struct upg_node){ inv->hosts[i].name, inv->hosts[i].roles, down[i],
					   state ? state[i] : NULL,
					   !!(inv->hosts[i].roles & (1u << ROLE_IB_SWITCH)) };
	return nd;
}

struct roles_job {
	struct cmd_result cluster, tiebreaker;
};

static int roles_task(struct task_ctx *t, void *arg)
{
	struct roles_job *job = arg;
	struct remote_cmd ls = { .command = "/usr/lpp/mmfs/bin/mmlscluster", .timeout_ms = 60000 };
	struct remote_cmd tb = { .command = "/usr/lpp/mmfs/bin/mmlsconfig tiebreakerDisks",
				 .timeout_ms = 60000 };
	int rc = task_exec(t, 0, &ls, &job->cluster, task_err(t));

	if (!rc && job->cluster.outcome != CMD_EXITED)
		rc = err_set(task_err(t), ERR_TIMEOUT, "%s: mmlscluster did not finish",
			     task_host(t, 0)->name);
	if (!rc)
		rc = task_exec(t, 0, &tb, &job->tiebreaker, task_err(t));
	return rc;
}

/* " (scale_quorum, scale_manager)": the inventory's Scale groups of roles. */
static const char *inv_designation(unsigned roles)
{
	bool q = roles & (1u << ROLE_SCALE_QUORUM), m = roles & (1u << ROLE_SCALE_MANAGER);

	return q && m ? "quorum-manager" : q ? "quorum" : m ? "manager" : "client";
}

int upgrade_scale_roles(struct runner *r, const struct inventory *inv, char *const *state,
			struct upg_node *nodes, bool *ret_tiebreaker, struct strbuf *notes,
			struct err *err)
{
	const unsigned qm = (1u << ROLE_SCALE_QUORUM) | (1u << ROLE_SCALE_MANAGER);
	struct roles_job job;
	struct task task;
	struct err perr = ERR_INIT;
	json_t *cl = NULL;
	size_t at = inv->nhosts, i, k;
	json_t *row;
	int rc = 0;

	*ret_tiebreaker = false;
	for (i = 0; i < inv->nhosts && at == inv->nhosts; i++)
		if (state[i] && !strcmp(state[i], "active"))
			at = i;
	if (at == inv->nhosts) {
		strbuf_addstr(notes, "quorum roles: from the inventory (no node has GPFS active "
			      "to read mmlscluster from)\n");
		return 0;
	}
	cmd_result_init(&job.cluster);
	cmd_result_init(&job.tiebreaker);
	task = (struct task){ .hosts = &at, .nhosts = 1, .fn = roles_task, .arg = &job };
	runner_run(r, &task, 1, NULL, NULL);
	if (task.rc)
		rc = err_set(err, task.rc, "reading the quorum roles on %s: %s",
			     inv->hosts[at].name, err_msg(&task.err));
	else if (job.cluster.exit_status ||
		 parse_mmlscluster(job.cluster.out.buf, job.cluster.out.len, &cl, &perr))
		rc = err_set(err, ERR_REMOTE, "mmlscluster on %s (exit %d): %s; the quorum roles "
			     "must come from GPFS, not the inventory", inv->hosts[at].name,
			     job.cluster.exit_status, perr.code ? err_msg(&perr) :
			     job.cluster.err.len ? job.cluster.err.buf : "no output");
	if (!rc) {
		*ret_tiebreaker = !job.tiebreaker.exit_status &&
				  scale_quorum_tiebreaker(job.tiebreaker.out.buf,
							  job.tiebreaker.out.len);
		strbuf_addf(notes, "quorum roles: from mmlscluster on %s%s\n", inv->hosts[at].name,
			    *ret_tiebreaker ? "; tiebreaker disks configured" : "");
	}
	for (i = 0; !rc && i < inv->nhosts; i++) {
		unsigned gpfs = 0, was = nodes[i].roles & qm;
		size_t n = strlen(nodes[i].name);

		if (nodes[i].skip)
			continue;
		json_array_foreach(json_object_get(cl, "nodes"), k, row) {
			const char *d = json_string_value(json_object_get(row, "daemon_node_name"));
			const char *des = json_string_value(json_object_get(row, "designation"));

			if (!d || strncmp(d, nodes[i].name, n) || (d[n] && d[n] != '.'))
				continue;
			if (des && !strncmp(des, "quorum", 6))
				gpfs |= 1u << ROLE_SCALE_QUORUM;
			if (des && strstr(des, "manager"))
				gpfs |= 1u << ROLE_SCALE_MANAGER;
		}
		if (gpfs != was)
			strbuf_addf(notes, "drift: %s is %s in mmlscluster, %s in the inventory "
				    "(groups scale_quorum/scale_manager); planned as mmlscluster "
				    "says\n", nodes[i].name, inv_designation(gpfs),
				    inv_designation(was));
		nodes[i].roles = (nodes[i].roles & ~qm) | gpfs;
	}
	json_decref(cl);
	err_clear(&perr);
	task_release(&task);
	cmd_result_release(&job.cluster);
	cmd_result_release(&job.tiebreaker);
	return rc;
}

/*
 * STATE/upgrade/NAME holds `text` and a newline, written whole to a new
 * file, synced, then renamed over: a cut write leaves the last one.
 */
static int state_file_write(const char *state_dir, const char *name, const char *text,
			    struct err *err)
{
	char *dir = xasprintf("%s/upgrade", state_dir), *path = xasprintf("%s/%s", dir, name);
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = NULL;
	int rc = mkdir_p(dir, err);

	if (!rc && (!(f = fopen(tmp, "w")) || fprintf(f, "%s\n", text) < 0 || fflush(f) ||
		    fsync(fileno(f))))
		rc = err_set(err, ERR_IO, "%s: %s", tmp, strerror(errno));
	if (f && fclose(f) && !rc)
		rc = err_set(err, ERR_IO, "%s: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, path))
		rc = err_set(err, ERR_IO, "%s: %s", path, strerror(errno));
	if (rc)
		unlink(tmp);
	free(tmp);
	free(path);
	free(dir);
	return rc;
}

static void state_file_remove(const char *state_dir, const char *name)
{
	char *path = xasprintf("%s/upgrade/%s", state_dir, name);

	unlink(path);
	free(path);
}

int upgrade_mark(const char *state_dir, const struct upgrade_to *to, struct err *err)
{
	char *what = upgrade_to_str(to);
	int rc = state_file_write(state_dir, "in-progress", what, err);

	free(what);
	return rc;
}

void upgrade_unmark(const char *state_dir)
{
	state_file_remove(state_dir, "in-progress");
}

/* Reads a file of one --to line ("ofed=X,scale=Y") into *ret. */
static bool read_to_file(const char *path, struct upgrade_to *ret)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	struct err err = ERR_INIT;
	bool found = false;

	memset(ret, 0, sizeof(*ret));
	if (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		/* bringup before driver= and scale= wrote the OFED release alone */
		if (*line && !strchr(line, '='))
			ret->ofed = xstrdup(line), found = true;
		else if (*line)
			found = !upgrade_to_parse(line, ret, &err);
	}
	if (f)
		fclose(f);
	err_clear(&err);
	return found;
}

bool upgrade_in_progress(const char *state_dir, struct upgrade_to *ret)
{
	char *path = xasprintf("%s/upgrade/in-progress", state_dir);
	bool found = read_to_file(path, ret);

	free(path);
	return found;
}

int upgrade_run_record(const char *state_dir, const char *run_id, size_t nleft,
		       struct err *err)
{
	char *text = xasprintf("%s\nleft %zu", run_id, nleft);
	int rc = state_file_write(state_dir, "run", text, err);

	free(text);
	return rc;
}

void upgrade_run_forget(const char *state_dir)
{
	state_file_remove(state_dir, "run");
}

bool upgrade_run_read(const char *state_dir, char **ret_id, size_t *ret_nleft)
{
	char *path = xasprintf("%s/upgrade/run", state_dir);
	char id[128], left[64];
	FILE *f = fopen(path, "r");
	bool found = false;
	unsigned long n;
	char end;

	if (f && fgets(id, sizeof(id), f) && fgets(left, sizeof(left), f)) {
		id[strcspn(id, "\n")] = '\0';
		if (run_id_valid(id) && !strncmp(left, "left ", 5) && isdigit((unsigned char)left[5]) &&
		    sscanf(left + 5, "%lu%c", &n, &end) == 2 && end == '\n') {
			*ret_id = xstrdup(id);
			*ret_nleft = n;
			found = true;
		}
	}
	if (f)
		fclose(f);
	free(path);
	return found;
}

bool upgrade_releases(const char *state_dir, struct upgrade_to *ret)
{
	char *path = xasprintf("%s/upgrade/releases", state_dir);
	bool found = read_to_file(path, ret);

	free(path);
	return found;
}

/* "MLNX_OFED_LINUX-5.0-2.1.8.0" and "5.0-2.1.8.0" name one release. */
static const char *bare_release(const char *v)
{
	static const char prefix[] = "MLNX_OFED_LINUX-";

	return strncmp(v, prefix, sizeof(prefix) - 1) ? v : v + sizeof(prefix) - 1;
}

/* The value of `var` on the first host where it is not `want`, or NULL. */
static const char *stale_var(const struct inventory *inv, const char *var, const char *want,
			     bool ofed)
{
	for (size_t i = 0; i < inv->nhosts; i++) {
		const char *v = json_string_value(json_object_get(inv->hosts[i].vars, var));

		if (v && (ofed ? strcmp(bare_release(v), bare_release(want)) : strcmp(v, want)))
			return v;
	}
	return NULL;
}

void upgrade_inventory_keys(const struct inventory *inv, const struct upgrade_to *rel,
			    struct strbuf *out)
{
	const char *v, *dir;
	struct err e = ERR_INIT;

	if (rel->ofed && (v = stale_var(inv, "ofed_version", rel->ofed, true)))
		strbuf_addf(out, "set ofed_version: %s in the inventory (it says %s), and "
			    "ofed_tarball to that release's bundle\n", rel->ofed, v);
	dir = json_string_value(json_object_get(inv->vars, "gpfs_installer"));
	if (rel->scale && (!dir || upgrade_scale_installer_check(dir, rel->scale, &e)))
		strbuf_addf(out, "set gpfs_installer in the inventory to the installer of "
			    "Spectrum Scale %s (%s)\n", rel->scale,
			    dir ? err_msg(&e) : "it names none");
	if (rel->driver && (v = stale_var(inv, "gpu_driver", rel->driver, false)))
		strbuf_addf(out, "set gpu_driver: %s in the inventory (it says %s), and "
			    "gpu_driver_installer to its runfile\n", rel->driver, v);
	err_clear(&e);
}

static void take(char **slot, char **from)
{
	if (*from) {
		free(*slot);
		*slot = *from;
		*from = NULL;
	}
}

int upgrade_finish(const char *state_dir, struct upgrade_to *ret_done, struct err *err)
{
	struct upgrade_to all, done;
	char *what = NULL;
	int rc = 0;

	memset(ret_done, 0, sizeof(*ret_done));
	if (!upgrade_in_progress(state_dir, &done))
		goto out; /* finished before: nothing new to record */
	upgrade_releases(state_dir, &all);
	*ret_done = (struct upgrade_to){ done.ofed ? xstrdup(done.ofed) : NULL,
					 done.scale ? xstrdup(done.scale) : NULL,
					 done.driver ? xstrdup(done.driver) : NULL };
	take(&all.ofed, &done.ofed);
	take(&all.scale, &done.scale);
	take(&all.driver, &done.driver);
	what = upgrade_to_str(&all);
	if (!(rc = state_file_write(state_dir, "releases", what, err)))
		upgrade_unmark(state_dir);
	upgrade_to_release(&all);
	upgrade_to_release(&done);
out:
	free(what);
	return rc;
}

char *upgrade_batch_set(const struct inventory *inv, const struct upg_batch *b)
{
	struct strlist names = STRLIST_INIT;
	char *set;

	for (size_t i = 0; i < b->n; i++)
		strlist_push(&names, inv->hosts[b->nodes[i]].name);
	set = nodeset_fold(names.v, names.n);
	strlist_clear(&names);
	return set;
}

char *upgrade_to_str(const struct upgrade_to *to)
{
	return xasprintf("%s%s%s%s%s%s%s%s", to->ofed ? "ofed=" : "", to->ofed ? to->ofed : "",
			 to->ofed && to->scale ? "," : "", to->scale ? "scale=" : "",
			 to->scale ? to->scale : "", (to->ofed || to->scale) && to->driver ? "," : "",
			 to->driver ? "driver=" : "", to->driver ? to->driver : "");
}

int upgrade_scale_installer_check(const char *dir, const char *version, struct err *err)
{
	/* 5.1.2.1 -> 5.1.2-1, as the packages are versioned */
	const char *dot = strrchr(version, '.');
	char *rel = dot ? xasprintf("%.*s-%s", (int)(dot - version), version, dot + 1) : NULL;
	char *rpm = xasprintf("gpfs.base-%s.", rel ? rel : ""), *deb = xasprintf("gpfs.base_%s_",
		rel ? rel : "");
	static const char *const sub[] = { "gpfs_rpms", "gpfs_debs" };
	struct strbuf have = STRBUF_INIT;
	bool found = false;
	int rc = 0;

	for (size_t i = 0; i < 2 && rel && !found; i++) {
		char *path = xasprintf("%s/%s", dir, sub[i]);
		DIR *d = opendir(path);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			if (strncmp(de->d_name, "gpfs.base", 9))
				continue;
			found |= !strncmp(de->d_name, i ? deb : rpm, strlen(i ? deb : rpm));
			strbuf_addf(&have, "%s%s", have.len ? ", " : "", de->d_name);
		}
		if (d)
			closedir(d);
		free(path);
	}
	if (!rel)
		rc = err_set(err, ERR_USAGE, "--to scale=%s: expected a release like 5.1.2.1", version);
	else if (!found)
		rc = err_set(err, ERR_USAGE, "--to scale=%s: the installer %s holds %s; give the "
			     "extracted installer of %s with --scale-installer DIR", version, dir,
			     have.len ? have.buf : "no gpfs.base package (gpfs_rpms/ or gpfs_debs/)",
			     version);
	strbuf_release(&have);
	free(rpm);
	free(deb);
	free(rel);
	return rc;
}

/* A YAML double-quoted scalar (names and versions are plain; paths may not be). */
static void yaml_quoted(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_addch(out, '\\');
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
}

void upgrade_playbook(const struct inventory *inv, const struct upg_plan *p,
		      const struct upgrade_to *to, const struct upgrade_files *files,
		      struct strbuf *out)
{
	strbuf_addstr(out, "# Written by `bringup upgrade`: one block of stages per batch, run in\n"
		      "# order; the last stage of a batch stops the run when a node failed.\n"
		      "name: upgrade\nstages:\n");
	bool kube = kube_layer(inv);

	for (size_t b = 0; b < p->nbatches; b++) {
		char *set = upgrade_batch_set(inv, &p->batches[b]);
		struct strbuf names = STRBUF_INIT;

		struct strbuf clients = STRBUF_INIT;

		for (size_t i = 0; i < p->batches[b].n; i++) {
			const struct host *h = &inv->hosts[p->batches[b].nodes[i]];

			strbuf_addf(&names, "%s%s", i ? "," : "", h->name);
			if (h->roles & (1u << ROLE_SCALE_CLIENT))
				strbuf_addf(&clients, "%s%s", clients.len ? "," : "", h->name);
		}
		if (kube)
			strbuf_addf(out, "  - name: b%zu-drain\n    module: kube_node\n"
				    "    params: { action: drain, nodes: \"%s\" }\n"
				    "    max_fail_percent: 0\n", b + 1, names.buf);
		/* One stop at a time, each through the quorum invariant on live
		 * state (scale-quorum.h): a quorum node lost mid-batch makes the
		 * next quorum node's stop fail, named, and the batch goes on
		 * without it (max_fail_percent 100 here; the batch's last stage
		 * stops the run). */
		strbuf_addf(out, "  - name: b%zu-scale-stop\n    module: scale_node\n"
			    "    hosts: \"%s\"\n    serial: 1\n    max_fail_percent: 100\n"
			    "    params: { action: stop, avoid: \"%s\" }\n",
			    b + 1, set, names.buf);
		if (to->ofed) {
			strbuf_addf(out, "  - name: b%zu-ofed\n    module: ofed\n    hosts: \"%s\"\n"
				    "    params:\n      release_change: true\n      version: ",
				    b + 1, set);
			yaml_quoted(out, to->ofed);
			if (files->ofed_tarball) {
				strbuf_addstr(out, "\n      tarball: ");
				yaml_quoted(out, files->ofed_tarball);
			}
			strbuf_addch(out, '\n');
		}
		if (to->scale) {
			strbuf_addf(out, "  - name: b%zu-scale-install\n    module: scale_install\n"
				    "    hosts: \"%s\"\n    params:\n      release_change: true\n",
				    b + 1, set);
			if (files->scale_installer) {
				strbuf_addstr(out, "      installer: ");
				yaml_quoted(out, files->scale_installer);
				strbuf_addch(out, '\n');
			}
		}
		/* The GPU driver after OFED: its DKMS build of nvidia-peermem
		 * links against the ib_core the new OFED brought. */
		if (to->driver) {
			strbuf_addf(out, "  - name: b%zu-driver\n    module: gpu_driver\n"
				    "    hosts: \"%s\"\n    params:\n      release_change: true\n"
				    "      version: ", b + 1, set);
			yaml_quoted(out, to->driver);
			if (files->driver_installer) {
				strbuf_addstr(out, "\n      installer: ");
				yaml_quoted(out, files->driver_installer);
			}
			strbuf_addch(out, '\n');
		}
		/* Peer memory is built against OFED's ib_core and the GPU driver: a
		 * new one of either needs it loaded (nvidia-peermem, which the
		 * driver ships) or rebuilt (nv_peer_mem) again before the node
		 * takes GPU jobs. */
		if (to->ofed || to->driver)
			strbuf_addf(out, "  - name: b%zu-peermem\n    module: peermem\n"
				    "    hosts: \"%s\"\n", b + 1, set);
		strbuf_addf(out, "  - name: b%zu-scale-start\n    module: scale_node\n"
			    "    hosts: \"%s\"\n    params: { action: start }\n", b + 1, set);
		/* The proof that the daemon moves data over verbs RDMA on the
		 * configured ports again (a new OFED may rename nothing, or break
		 * RDMA silently: GPFS falls back to TCP). The batch's last stage
		 * stops the run when one of its nodes failed: with Kubernetes that
		 * is the uncordon, which gives the others back first and leaves the
		 * failed ones cordoned. */
		if (clients.len)
			strbuf_addf(out, "  - name: b%zu-verify-rdma\n    module: scale_rdma\n"
				    "    hosts: \"%s\"\n%s", b + 1, clients.buf,
				    kube ? "" : "    max_fail_percent: 0\n");
		else if (!kube)
			strbuf_addf(out, "    max_fail_percent: 0\n");
		if (kube)
			strbuf_addf(out, "  - name: b%zu-uncordon\n    module: kube_node\n"
				    "    params: { action: uncordon, nodes: \"%s\" }\n"
				    "    max_fail_percent: 0\n", b + 1, names.buf);
		strbuf_release(&names);
		strbuf_release(&clients);
		free(set);
	}
}

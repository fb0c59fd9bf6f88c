/*
 * scale_node: one node's GPFS daemon stopped or started, for work on the
 * node itself (the rolling upgrade, engine/deploy/upgrade.h). stop moves the
 * manager roles the node holds (mmlsmgr) to nodes outside `avoid`, the nodes
 * going down with it: the cluster manager to an active quorum node (mmchmgr
 * -c), each file system it manages to an active manager node (mmchmgr
 * DEVICE NODE); then it asks the quorum guard (engine/deploy/scale-quorum.h) and
 * runs mmshutdown. start
 * rebuilds the portability layer for the running kernel (mmbuildgpl: an
 * OFED or kernel change may need it), runs mmstartup, waits until the node
 * is active and mounts its file systems (mmmount all). Each command runs on
 * the node itself. A node without Spectrum Scale is left alone. A start is
 * done when the daemon is active and every file system mmlsmount lists is
 * mounted there: the daemon goes active on its own after mmstartup, so a
 * run cut before its mmmount leaves an active node unmounted, and the
 * resume mounts it (issue 24).
 *
 * Deploy's restarts (issue 28) use the same two halves. owed (read-only)
 * compares what the daemon runs with (mmdiag --config) with what the
 * configuration gives the node (mmlsconfig: its stanzas, its class's,
 * [common]) and records the difference in the run's journal as
 * scale.restart_owed.NODE ("" when none), before anything stops: the drain
 * and uncordon around the restarts read it (kube_node nodes_from), and a
 * person reads there what is owed. restart stops (manager roles moved away,
 * the quorum guard) and starts a node whose daemon runs with other values
 * than its configuration; the playbook runs it serial: 1, so that each stop
 * is judged on live state with the earlier ones back. Nothing is kept on a
 * node: a later or resumed run finds what is owed again from running
 * against configured values, and restart starts a daemon it finds down (a
 * run cut between a restart's mmshutdown and mmstartup; one arbitrating, a
 * run resumed right after the restart's mmstartup). A daemon active
 * with nothing owed but unmounted (a run cut between a restart's mmstartup
 * and its mmmount, issue 24) is left to scale_remote_mount, which follows
 * and mounts all such nodes at once (t0961). A file system of automount
 * yes needs no mmmount after a start: GPFS mounts it when the daemon
 * starts (IBM, sim/README.md), mmlsmount lists it, and the checks find
 * nothing to do.
 */
#include "../engine/deploy/module.h"
#include "scale-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/facts/parse.h"
#include "../engine/precheck/check-scale.h"
#include "../engine/base/xalloc.h"

static const char *valid_action(const char *v)
{
	return !strcmp(v, "stop") || !strcmp(v, "start") || !strcmp(v, "owed") ||
	       !strcmp(v, "restart") ? NULL : "stop, start, owed or restart";
}

static const struct param_spec params[] = {
	{ "action", PARAM_STRING, "stop", NULL, "stop (manager roles away, quorum guard, "
	  "mmshutdown), start (mmbuildgpl, mmstartup, wait active, mmmount all), owed (record "
	  "running against configured values in the journal) or restart (stop and start when "
	  "they differ)", valid_action },
	{ "avoid", PARAM_STRING, "", NULL,
	  "nodes (comma-separated) that must not take over a manager role (cluster or file "
	  "system manager)", NULL },
	{ "startup_timeout", PARAM_UINT, "600", "gpfs_startup_timeout",
	  "seconds a started daemon has to become active", NULL },
	{ NULL },
};

/* The node's own GPFS state ("active", "down", ...), or "" without GPFS. */
static int own_state(struct mod_ctx *mc, struct strbuf *state)
{
	const char *argv[] = { "mmgetstate", "-N", mod_host(mc), NULL };
	struct cmd_result res;
	struct err perr = ERR_INIT;
	json_t *st = NULL, *row;
	size_t i;
	int rc = scale_mm(mc, argv, &res);

	if (rc || scale_not_installed(&res))
		goto out;
	if (res.exit_status) {
		strbuf_addstr(state, "down");
		goto out;
	}
	if (parse_mmgetstate(res.out.buf, res.out.len, &st, &perr)) {
		rc = mod_fail(mc, ERR_PARSE, "mmgetstate on %s: %s", mod_host(mc), err_msg(&perr));
		goto out;
	}
	json_array_foreach(json_object_get(st, "nodes"), i, row)
		if (scale_same_node(json_string_value(json_object_get(row, "name")), mod_host(mc)))
			strbuf_addstr(state, json_string_value(json_object_get(row, "state")) ?: "?");
	if (!state->len)
		strbuf_addstr(state, "unknown");
out:
	json_decref(st);
	err_clear(&perr);
	cmd_result_release(&res);
	return rc;
}

static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; p += strcspn(p, ",") + !!p[strcspn(p, ",")])
		if (strcspn(p, ",") == n && !strncmp(p, name, n))
			return true;
	return false;
}

/* True when `name` is a manager node in mmlscluster's table (`cluster`). */
static bool is_manager(const json_t *cluster, const char *name)
{
	size_t i, n = strcspn(name, ".");
	json_t *row;

	json_array_foreach(json_object_get(cluster, "nodes"), i, row) {
		const char *d = json_string_value(json_object_get(row, "daemon_node_name"));
		const char *des = json_string_value(json_object_get(row, "designation"));

		if (d && strcspn(d, ".") == n && !strncmp(d, name, n))
			return des && strstr(des, "manager");
	}
	return false;
}

/*
 * An active node of `states` (parse_mmgetstate rows) to take a role over
 * from this one: not this node, not among `avoid` (the nodes going down
 * with it); with `cluster` (mmlscluster) a manager node when one qualifies.
 * Borrowed from states; NULL when there is none.
 */
static const char *taker(struct mod_ctx *mc, const json_t *states, const json_t *cluster)
{
	const char *avoid = mod_param_str(mc, "avoid"), *any = NULL;
	size_t i;
	json_t *row;

	json_array_foreach(json_object_get(states, "nodes"), i, row) {
		const char *name = json_string_value(json_object_get(row, "name"));
		const char *st = json_string_value(json_object_get(row, "state"));
		char *shortname;
		bool skip;

		if (!name || !st || strcmp(st, "active") || scale_same_node(name, mod_host(mc)))
			continue;
		shortname = xstrndup(name, strcspn(name, "."));
		skip = listed(avoid, shortname);
		free(shortname);
		if (skip)
			continue;
		if (!cluster || is_manager(cluster, name))
			return name;
		any = any ? any : name;
	}
	return any;
}

/* What this node manages, from mmlsmgr: the cluster (*cluster) and the file
 * systems (names pushed to fss). Read-only; check shows it, stop moves it. */
static int managed(struct mod_ctx *mc, bool *cluster, struct strlist *fss)
{
	static const char *const lsmgr[] = { "mmlsmgr", NULL };
	json_t *mgr = NULL, *fs;
	size_t i;
	int rc = scale_mm_parsed(mc, lsmgr, parse_mmlsmgr, &mgr);

	*cluster = false;
	if (rc)
		return rc;
	*cluster = scale_same_node(json_string_value(json_object_get(
		json_object_get(mgr, "cluster_manager"), "node")) ?: "", mod_host(mc));
	json_array_foreach(json_object_get(mgr, "file_systems"), i, fs)
		if (scale_same_node(json_string_value(json_object_get(fs, "node")) ?: "",
				    mod_host(mc)))
			strlist_push(fss, json_string_value(json_object_get(fs, "device")));
	json_decref(mgr);
	return 0;
}

/*
 * Hands this node's manager roles over before its daemon stops, so that
 * GPFS does not have to take them over from a node that just vanished (a
 * takeover stalls the file system's metadata operations for its duration).
 * The cluster manager goes to an active quorum node (mmchmgr -c); each file
 * system it manages to an active manager node (mmchmgr DEVICE NODE), or,
 * in a cluster that designates none, to any active node: IBM's "should be
 * a manager node, although this is not strictly required".
 */
static int move_managers(struct mod_ctx *mc, const json_t *quorum)
{
	static const char *const all[] = { "mmgetstate", "-a", NULL };
	static const char *const lscluster[] = { "mmlscluster", NULL };
	const char *avoid = mod_param_str(mc, "avoid"), *to;
	struct strlist fss = STRLIST_INIT;
	json_t *states = NULL, *cluster = NULL;
	bool clmgr;
	int rc = managed(mc, &clmgr, &fss);

	if (!rc && clmgr && !(to = taker(mc, quorum, NULL)))
		rc = mod_fail(mc, ERR_STATE, "%s is the cluster manager and no other active quorum "
			      "node outside this batch (%s) can take the role over", mod_host(mc),
			      *avoid ? avoid : "none");
	else if (!rc && clmgr) {
		const char *chmgr[] = { "mmchmgr", "-c", to, NULL };

		mod_note(mc, "moving the cluster manager role from %s to %s", mod_host(mc), to);
		rc = scale_run(mc, chmgr);
	}
	if (!rc && fss.n)
		rc = scale_mm_parsed(mc, all, parse_mmgetstate, &states);
	if (!rc && fss.n)
		rc = scale_mm_parsed(mc, lscluster, parse_mmlscluster, &cluster);
	for (size_t i = 0; !rc && i < fss.n; i++) {
		const char *chmgr[] = { "mmchmgr", fss.v[i], taker(mc, states, cluster), NULL };

		if (!chmgr[2]) {
			rc = mod_fail(mc, ERR_STATE, "%s is the file system manager of %s and no "
				      "other active node outside this batch (%s) can take it over",
				      mod_host(mc), fss.v[i], *avoid ? avoid : "none");
			break;
		}
		mod_note(mc, "moving the file system manager of %s from %s to %s", fss.v[i],
			 mod_host(mc), chmgr[2]);
		rc = scale_run(mc, chmgr);
	}
	json_decref(states);
	json_decref(cluster);
	strlist_clear(&fss);
	return rc;
}

/* What stop would do: the roles it moves (mmlsmgr, read-only), then down. */
static int check_stop(struct mod_ctx *mc, const char *state)
{
	struct strlist fss = STRLIST_INIT;
	struct strbuf roles = STRBUF_INIT;
	bool clmgr = false;
	int rc = strcmp(state, "active") ? 0 : managed(mc, &clmgr, &fss);

	if (clmgr)
		strbuf_addstr(&roles, "the cluster manager role");
	for (size_t i = 0; i < fss.n; i++)
		strbuf_addf(&roles, "%s%s", i ? ", " : roles.len ? ", the file system manager of " :
			    "the file system manager of ", fss.v[i]);
	if (!rc)
		mod_change(mc, NULL, "GPFS %s -> down (%s%s, quorum guard, mmshutdown)", state,
			   roles.len ? roles.buf : "no manager role to move",
			   roles.len ? " moved away" : "");
	strbuf_release(&roles);
	strlist_clear(&fss);
	return rc;
}

/*
 * What the daemon runs with against what the configuration gives this node
 * (precheck's scale.config_running judges the same): the differences,
 * "ATTR configured X, running Y; ...", into drift ("" when none).
 */
static int running_drift(struct mod_ctx *mc, struct strbuf *drift)
{
	static const char *const lsconfig[] = { "mmlsconfig", NULL };
	static const char *const diag[] = { "mmdiag", "--config", NULL };
	const char *cls = json_string_value(json_object_get(mod_host_vars(mc), "gpfs_nodeclass"));
	json_t *lsc = NULL, *run = NULL;
	int rc = scale_mm_parsed(mc, lsconfig, parse_mmlsconfig, &lsc);

	if (!rc)
		rc = scale_mm_parsed(mc, diag, parse_mmdiag_config, &run);
	if (!rc)
		scale_config_drift(lsc, run, mod_host(mc), cls && *cls ? cls : NULL, drift);
	json_decref(lsc);
	json_decref(run);
	return rc;
}

/*
 * The file systems (mmlsmount all -L) not mounted on this node, ", "
 * between names. mmlsmount says "No file systems were found." and exits 1
 * on a cluster that has none (the stand-in's, sim-gpfs-lib.sh): nothing
 * for mmmount all to mount.
 */
static int not_mounted(struct mod_ctx *mc, struct strbuf *out)
{
	static const char *const argv[] = { "mmlsmount", "all", "-L", NULL };
	struct cmd_result res;
	struct err perr = ERR_INIT;
	json_t *m = NULL, *fs, *row;
	size_t i, k;
	int rc = scale_mm(mc, argv, &res);

	if (rc || (res.exit_status && res.out.len &&
		   strstr(res.out.buf, "No file systems were found")))
		goto out;
	if (res.exit_status)
		rc = mod_fail(mc, ERR_REMOTE, "mmlsmount all -L on %s exited %d: %s", mod_host(mc),
			      res.exit_status, res.err.len ? res.err.buf : res.out.buf);
	else if (parse_mmlsmount(res.out.buf, res.out.len, &m, &perr))
		rc = mod_fail(mc, ERR_PARSE, "mmlsmount on %s: %s", mod_host(mc), err_msg(&perr));
	json_array_foreach(json_object_get(m, "filesystems"), i, fs) {
		bool here = false;

		json_array_foreach(json_object_get(fs, "nodes"), k, row)
			here |= scale_same_node(json_string_value(json_object_get(row, "node")),
						mod_host(mc));
		if (!here)
			strbuf_addf(out, "%s%s", out->len ? ", " : "",
				    json_string_value(json_object_get(fs, "name")) ?: "?");
	}
out:
	json_decref(m);
	err_clear(&perr);
	cmd_result_release(&res);
	return rc;
}

/*
 * An active daemon's mounts, for start and restart alike: the file systems
 * mmlsmount lists that this node lacks are the mount of a start or restart
 * cut before its mmmount (issue 24); apply then runs mmmount all alone
 * ("start" = "mount"). `cut` says which was cut.
 */
static int check_mounts(struct mod_ctx *mc, const char *cut)
{
	struct strbuf unmounted = STRBUF_INIT;
	int rc = not_mounted(mc, &unmounted);

	if (!rc && unmounted.len) {
		mod_set(mc, "start", "mount");
		mod_change(mc, NULL, "mount %s on %s (mmmount all): GPFS is active there, not "
			   "mounted (%s)", unmounted.buf, mod_host(mc), cut);
	}
	strbuf_release(&unmounted);
	return rc;
}

/* owed: the journal's record of the restart this node is owed, read-only. */
static int check_owed(struct mod_ctx *mc, const char *state)
{
	struct strbuf drift = STRBUF_INIT;
	char *key = xasprintf("scale.restart_owed.%s", mod_host(mc));
	int rc = !strcmp(state, "active") ? running_drift(mc, &drift) : 0;

	if (!rc) {
		/* "" too: a restart an earlier run recorded is not owed any more. */
		mod_record(mc, key, drift.buf);
		if (drift.len)
			mod_note(mc, "GPFS on %s owes a restart: %s", mod_host(mc), drift.buf);
	}
	free(key);
	strbuf_release(&drift);
	return rc;
}

/* restart: stop and start when the daemon runs with other values. */
static int check_restart(struct mod_ctx *mc, const char *state)
{
	struct strbuf drift = STRBUF_INIT;
	int rc = 0;

	if (strcmp(state, "active")) {
		/* Deploy wants every daemon up (scale_start); down here means a run
		 * was cut between a restart's mmshutdown and its mmstartup, and
		 * arbitrating one resumed right after its mmstartup: start does
		 * the rest, as the start action does for a daemon not active. */
		mod_set(mc, "restart", "start");
		mod_change(mc, NULL, "GPFS %s -> active (mmbuildgpl, mmstartup, mmmount all): "
			   "a restart cut before it was done", state);
	} else if (!strcmp(state, "active") && !(rc = running_drift(mc, &drift)) && drift.len) {
		mod_set(mc, "restart", "both");
		mod_change(mc, NULL, "restart GPFS (manager roles moved away, quorum guard, "
			   "mmshutdown, mmstartup, mmmount all): the daemon runs with %s", drift.buf);
	}
	/* Active with nothing owed but unmounted (a run cut between a
	 * restart's mmstartup and its mmmount, or a node just added): the
	 * mount is scale_remote_mount's, next in the playbook, one mmmount -N
	 * for every such node; a mount here would be one a node (t0900). */
	strbuf_release(&drift);
	return rc;
}

static int sn_check(struct mod_ctx *mc)
{
	struct strbuf state = STRBUF_INIT;
	const char *action = mod_param_str(mc, "action");
	bool stop = !strcmp(action, "stop");
	int rc = own_state(mc, &state);

	if (rc)
		goto out;
	if (!state.len)
		mod_note(mc, "no Spectrum Scale on %s: nothing to %s", mod_host(mc), action);
	else if (!strcmp(action, "owed"))
		rc = check_owed(mc, state.buf);
	else if (!strcmp(action, "restart"))
		rc = check_restart(mc, state.buf);
	else if (stop && strcmp(state.buf, "down"))
		rc = check_stop(mc, state.buf);
	else if (!stop && strcmp(state.buf, "active"))
		mod_change(mc, NULL, "GPFS %s -> active (mmbuildgpl, mmstartup, mmmount all)",
			   state.buf);
	else if (!stop)
		rc = check_mounts(mc, "a start cut before its mount");
out:
	strbuf_release(&state);
	return rc;
}

/*
 * The quorum invariant before anything moves, and again right before
 * mmshutdown: the batch's stops run one at a time (serial: 1), each judged
 * on live state, so a quorum node lost while the batch goes down leaves the
 * rest of the batch's quorum nodes up (this one fails, named, and the run
 * stops at the batch's end).
 */
static int stop(struct mod_ctx *mc)
{
	static const char *const quorum[] = { "mmgetstate", "-N", "quorumnodes", NULL };
	const char *down[] = { "mmshutdown", "-N", mod_host(mc), NULL };
	const char *self[] = { mod_host(mc) };
	json_t *q = NULL;
	int rc = scale_quorum_guard(mc, self, 1);

	if (!rc)
		rc = scale_mm_parsed(mc, quorum, parse_mmgetstate, &q);
	if (!rc)
		rc = move_managers(mc, q);
	if (!rc)
		rc = scale_quorum_guard(mc, self, 1);
	if (!rc)
		rc = scale_run(mc, down);
	json_decref(q);
	return rc;
}

static int start(struct mod_ctx *mc)
{
	static const char *const gpl[] = { "mmbuildgpl", NULL };
	const char *up[] = { "mmstartup", "-N", mod_host(mc), NULL };
	const char *mount[] = { "mmmount", "all", "-N", mod_host(mc), NULL };
	struct cmd_result res;
	int rc;

	/* active already (check): only the mount of a cut start is missing */
	if (!strcmp(mod_get(mc, "start"), "mount"))
		return scale_run(mc, mount);
	rc = scale_mm(mc, gpl, &res);
	if (!rc && res.exit_status) {
		/* mmbuildgpl says what is missing in its last lines before "failed". */
		const char *why = strstr(res.out.buf, "Cannot find a valid kernel header");

		rc = mod_fail(mc, ERR_REMOTE, "mmbuildgpl on %s exited %d: %s; GPFS cannot start "
			      "without its portability layer (install the running kernel's "
			      "kernel-devel/headers, then --resume)", mod_host(mc), res.exit_status,
			      why ? "Cannot find a valid kernel header file" :
			      "Building GPL module failed");
	}
	cmd_result_release(&res);
	if (!rc)
		rc = scale_run(mc, up);
	if (!rc)
		rc = scale_wait_active(mc, mod_host(mc), mod_param_uint(mc, "startup_timeout"), NULL);
	if (!rc)
		rc = scale_run(mc, mount);
	return rc;
}

static int sn_apply(struct mod_ctx *mc)
{
	const char *action = mod_param_str(mc, "action");
	int rc = 0;

	if (!strcmp(action, "restart")) {
		if (!strcmp(mod_get(mc, "restart"), "both")) {
			mod_note(mc, "restarting GPFS on %s for its configuration", mod_host(mc));
			rc = stop(mc);
		}
		return rc ? rc : start(mc);
	}
	return strcmp(action, "stop") ? start(mc) : stop(mc);
}

const struct stage_module mod_scale_node = {
	.name = "scale_node",
	.summary = "stop (manager roles moved away, quorum guard, mmshutdown), start "
		   "(mmbuildgpl, mmstartup, wait active, mmmount) or restart for its "
		   "configuration GPFS on one node",
	.version = 1,
	.flags = MOD_PER_HOST,
	.params = params,
	.check = sn_check,
	.apply = sn_apply,
};

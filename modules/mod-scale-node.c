/*
 * scale_node: one node's GPFS daemon stopped or started, for work on the
 * node itself (the rolling upgrade, engine/upgrade.h). stop moves the
 * cluster manager role away when the node holds it (mmlsmgr -c; mmchmgr -c
 * to an active quorum node outside `avoid`, the nodes going down with it),
 * asks the quorum guard (engine/scale-quorum.h) and runs mmshutdown. start
 * rebuilds the portability layer for the running kernel (mmbuildgpl: an
 * OFED or kernel change may need it), runs mmstartup, waits until the node
 * is active and mounts its file systems (mmmount all). Each command runs on
 * the node itself. A node without Spectrum Scale is left alone.
 */
#include "module.h"
#include "scale-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/parse.h"
#include "../engine/scale-quorum.h"
#include "../engine/xalloc.h"

static const char *valid_action(const char *v)
{
	return !strcmp(v, "stop") || !strcmp(v, "start") ? NULL : "stop or start";
}

static const struct param_spec params[] = {
	{ "action", PARAM_STRING, "stop", NULL, "stop (manager role away, quorum guard, "
	  "mmshutdown) or start (mmbuildgpl, mmstartup, wait active, mmmount all)", valid_action },
	{ "avoid", PARAM_STRING, "", NULL,
	  "nodes (comma-separated) that must not take over the cluster manager role", NULL },
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

static int sn_check(struct mod_ctx *mc)
{
	struct strbuf state = STRBUF_INIT;
	bool stop = !strcmp(mod_param_str(mc, "action"), "stop");
	int rc = own_state(mc, &state);

	if (rc)
		goto out;
	if (!state.len)
		mod_note(mc, "no Spectrum Scale on %s: nothing to %s", mod_host(mc),
			 stop ? "stop" : "start");
	else if (stop && strcmp(state.buf, "down"))
		mod_change(mc, NULL, "GPFS %s -> down (cluster manager role moved away, quorum "
			   "guard, mmshutdown)", state.buf);
	else if (!stop && strcmp(state.buf, "active"))
		mod_change(mc, NULL, "GPFS %s -> active (mmbuildgpl, mmstartup, mmmount all)",
			   state.buf);
out:
	strbuf_release(&state);
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

/* mmlsmgr -c names this node: hand the role to an active quorum node outside avoid. */
static int move_cluster_manager(struct mod_ctx *mc, const json_t *quorum)
{
	static const char *const lsmgr[] = { "mmlsmgr", "-c", NULL };
	const char *avoid = mod_param_str(mc, "avoid"), *to = NULL;
	struct cmd_result res;
	char *open, *mine;
	size_t i;
	json_t *row;
	int rc = scale_mm_ok(mc, lsmgr, &res);

	if (rc)
		goto out;
	/* "Cluster manager node: 127.0.1.1 (dgx01)" */
	mine = xasprintf("(%s", mod_host(mc));
	open = strstr(res.out.buf, mine);
	free(mine);
	if (!open || (open[1 + strlen(mod_host(mc))] != ')' && open[1 + strlen(mod_host(mc))] != '.'))
		goto out;
	json_array_foreach(json_object_get(quorum, "nodes"), i, row) {
		const char *name = json_string_value(json_object_get(row, "name"));
		const char *st = json_string_value(json_object_get(row, "state"));
		char *shortname;

		if (!name || !st || strcmp(st, "active") || scale_same_node(name, mod_host(mc)))
			continue;
		shortname = xstrndup(name, strcspn(name, "."));
		if (!listed(avoid, shortname) && !to)
			to = name;
		free(shortname);
	}
	if (!to) {
		rc = mod_fail(mc, ERR_STATE, "%s is the cluster manager and no other active quorum "
			      "node outside this batch (%s) can take the role over", mod_host(mc),
			      *avoid ? avoid : "none");
		goto out;
	}
	mod_note(mc, "moving the cluster manager role from %s to %s", mod_host(mc), to);
	{
		const char *chmgr[] = { "mmchmgr", "-c", to, NULL };

		rc = scale_run(mc, chmgr);
	}
out:
	cmd_result_release(&res);
	return rc;
}

static int stop(struct mod_ctx *mc)
{
	static const char *const quorum[] = { "mmgetstate", "-N", "quorumnodes", NULL };
	const char *down[] = { "mmshutdown", "-N", mod_host(mc), NULL };
	struct strbuf why = STRBUF_INIT;
	json_t *q = NULL;
	int rc = scale_mm_parsed(mc, quorum, parse_mmgetstate, &q);

	if (!rc)
		rc = move_cluster_manager(mc, q);
	if (!rc && !scale_quorum_may_stop(q, mod_host(mc), &why))
		rc = mod_fail(mc, ERR_STATE, "%s", why.buf);
	if (!rc)
		rc = scale_run(mc, down);
	json_decref(q);
	strbuf_release(&why);
	return rc;
}

static int start(struct mod_ctx *mc)
{
	static const char *const gpl[] = { "mmbuildgpl", NULL };
	const char *up[] = { "mmstartup", "-N", mod_host(mc), NULL };
	const char *mount[] = { "mmmount", "all", "-N", mod_host(mc), NULL };
	struct cmd_result res;
	int rc = scale_mm(mc, gpl, &res);

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
	return strcmp(mod_param_str(mc, "action"), "stop") ? start(mc) : stop(mc);
}

const struct stage_module mod_scale_node = {
	.name = "scale_node",
	.summary = "stop (cluster manager role moved away, quorum guard, mmshutdown) or start "
		   "(mmbuildgpl, mmstartup, wait active, mmmount) GPFS on one node",
	.version = 1,
	.flags = MOD_PER_HOST,
	.params = params,
	.check = sn_check,
	.apply = sn_apply,
};

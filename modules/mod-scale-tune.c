/*
 * scale_tune: the GPFS configuration per node class (Redpaper 3.3: the
 * [dgx] stanza with verbs RDMA over the four HCAs, and [common] with the
 * two attributes the Scale CSI driver requires). Runs once on a manager.
 * The desired values are bringup's defaults (verbsRdma enable,
 * verbsRdmaSend yes, verbsPorts from the class's InfiniBand compute ports,
 * enforceFilesetQuotaOnRoot and controlSetxattrImmutableSELinux yes) under
 * the inventory's gpfs_config (per class) and gpfs_common_config, which
 * override them. check reads mmlsconfig and records, per class, the
 * difference as a diff; apply sends only that difference, one mmchconfig
 * per class, with -i when every changed attribute takes effect at once.
 * Otherwise the class's active daemons must restart. This stage does not
 * restart them: the playbook's scale_restart stages do, planned like an
 * upgrade batch (scale_node owed records in the journal which daemons run
 * with other values than their configuration, kube_node drains those nodes
 * when there is a Kubernetes layer, scale_node restart moves their manager
 * roles away and restarts them one at a time through the quorum guard,
 * engine/deploy/scale-quorum.c). What is owed is found again from running
 * against configured values (mmdiag --config, mmlsconfig), so that a run
 * cut between mmchconfig and a restart, or one on another manager, still
 * owes it; nothing is kept on a node.
 */
#include "../engine/deploy/module.h"
#include "scale-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/facts/parse.h"
#include "../engine/base/strlist.h"
#include "../engine/base/xalloc.h"

static const struct param_spec params[] = {
	{ NULL },
};

/*
 * Attributes mmchconfig changes at once with -i (IBM's mmchconfig page);
 * any other change reaches a daemon when it starts.
 */
static const char *const immediate[] = {
	"pagepool", "maxMBpS", "ignorePrefetchLUNCount", "verbsRdmasPerNode",
	"enforceFilesetQuotaOnRoot", "controlSetxattrImmutableSELinux", NULL,
};

static bool is_immediate(const char *attr)
{
	for (size_t i = 0; immediate[i]; i++)
		if (!strcmp(immediate[i], attr))
			return true;
	return false;
}

/* Values compare with their blanks collapsed ("mlx5_0/1  mlx5_1/1"). */
static bool same_value(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ' && (a[1] == ' ' || !a[1]))
			a++;
		while (*b == ' ' && (b[1] == ' ' || !b[1]))
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

/*
 * One class's difference: into `set` the mmchconfig argument
 * ("a=v,b=w"), into `diff` the lines that change. Returns whether every
 * changed attribute is immediate (true when nothing changes).
 */
static bool class_diff(const json_t *want, const json_t *have, const json_t *common,
		       const char *label, struct strbuf *set, struct strbuf *diff,
		       struct strbuf *summary)
{
	const char *attr;
	json_t *v;
	bool all_immediate = true;

	json_object_foreach((json_t *)want, attr, v) {
		const char *w = json_string_value(v);
		const char *h = json_string_value(json_object_get(have, attr));
		const char *c = json_string_value(json_object_get(common, attr));

		/* What the class's nodes run with: the class's value, else [common]'s. */
		if ((h && same_value(h, w)) || (!h && c && same_value(c, w)))
			continue;
		if (!diff->len)
			strbuf_addf(diff, "--- mmlsconfig [%s]\n+++ inventory [%s]\n", label, label);
		if (h)
			strbuf_addf(diff, "-%s %s\n", attr, h);
		strbuf_addf(diff, "+%s %s\n", attr, w);
		strbuf_addf(set, "%s%s=%s", set->len ? "," : "", attr, w);
		strbuf_addf(summary, "%s%s %s -> %s", summary->len ? ", " : "", attr,
			    h ? h : "(unset)", w);
		all_immediate &= is_immediate(attr);
	}
	return all_immediate;
}

/* Nodes of `cls` (NULL: every wanted node) whose daemon is active now. */
static void active_members(const struct scale_nodes *ns, const char *cls, const json_t *st,
			   struct strlist *out)
{
	for (size_t i = 0; i < ns->n; i++) {
		const struct scale_node *n = &ns->v[i];
		size_t k;
		json_t *row;

		if (n->failed || (cls && (!n->nodeclass || strcmp(n->nodeclass, cls))))
			continue;
		json_array_foreach(json_object_get(st, "nodes"), k, row)
			if (scale_same_node(json_string_value(json_object_get(row, "name")), n->name) &&
			    !strcmp(json_string_value(json_object_get(row, "state")), "active") &&
			    strlist_index(out, n->name) < 0)
				strlist_push(out, n->name);
	}
}

/* The configuration of one label (a class, or NULL for [common]). */
static void plan_label(struct mod_ctx *mc, const struct scale_nodes *ns, const char *cls,
		       const json_t *lsconfig, const json_t *st, struct strlist *restart)
{
	const char *label = cls ? cls : "common";
	json_t *want = scale_desired_config(ns, cls);
	const json_t *classes = json_object_get(lsconfig, "nodeclasses");
	const json_t *have = json_object_get(classes, label);
	struct strbuf set = STRBUF_INIT, diff = STRBUF_INIT, summary = STRBUF_INIT;
	struct strlist active = STRLIST_INIT;
	bool now = class_diff(want, have, cls ? json_object_get(classes, "common") : NULL, label,
			      &set, &diff, &summary);
	char *k_set = xasprintf("cfg:%s", label), *k_i = xasprintf("cfg_i:%s", label);

	mod_set(mc, k_set, set.buf);
	mod_set(mc, k_i, now ? "yes" : "no");
	if (set.len) {
		struct strbuf who = STRBUF_INIT;

		if (!now) {
			active_members(ns, cls, st, &active);
			for (size_t i = 0; i < active.n; i++)
				if (strlist_index(restart, active.v[i]) < 0)
					strlist_push(restart, active.v[i]);
			scale_join(&active, ",", &who);
		}
		mod_change(mc, diff.buf, "mmchconfig%s%s%s [%s]: %s%s%s", cls ? " -N " : "",
			   cls ? cls : "", now ? " -i" : "", label, summary.buf,
			   who.len ? "; then restart (stage scale_restart, one at a time through the "
			   "quorum guard): " :
			   now ? "" : "; takes effect when the daemons start",
			   who.buf);
		strbuf_release(&who);
	}
	free(k_set);
	free(k_i);
	json_decref(want);
	strlist_clear(&active);
	strbuf_release(&set);
	strbuf_release(&diff);
	strbuf_release(&summary);
}

/*
 * A node's own stanza ([dgx03], from `mmchconfig attr=value -N dgx03`)
 * overrides its class for the attributes bringup manages: such a value
 * goes back to DEFAULT, so that the class's value applies again.
 */
static void plan_overrides(struct mod_ctx *mc, const struct scale_nodes *ns,
			   const json_t *lsconfig, const json_t *st, struct strlist *restart,
			   struct strlist *nodes)
{
	const char *label;
	json_t *have;

	json_object_foreach(json_object_get(lsconfig, "nodeclasses"), label, have) {
		const struct scale_node *n = NULL;
		struct strbuf set = STRBUF_INIT, diff = STRBUF_INIT, summary = STRBUF_INIT;
		json_t *want, *common;
		const char *attr;
		json_t *v;
		bool now = true;

		for (size_t i = 0; i < ns->n && !n; i++)
			if (!ns->v[i].failed && !strcmp(ns->v[i].name, label))
				n = &ns->v[i];
		if (!n)
			continue;
		want = scale_desired_config(ns, n->nodeclass);
		common = scale_desired_config(ns, NULL);
		json_object_update_missing(want, common);
		json_object_foreach(have, attr, v) {
			const char *w = json_string_value(json_object_get(want, attr));

			if (!w || same_value(w, json_string_value(v)))
				continue;
			if (!diff.len)
				strbuf_addf(&diff, "--- mmlsconfig [%s]\n+++ inventory [%s]\n", label,
					    label);
			strbuf_addf(&diff, "-%s %s\n", attr, json_string_value(v));
			strbuf_addf(&set, "%s%s=DEFAULT", set.len ? "," : "", attr);
			strbuf_addf(&summary, "%s%s %s (the class's %s applies again)",
				    summary.len ? ", " : "", attr, json_string_value(v), w);
			now &= is_immediate(attr);
		}
		if (set.len) {
			char *k = xasprintf("ovr:%s", label), *ki = xasprintf("ovr_i:%s", label);
			struct strlist active = STRLIST_INIT;

			mod_set(mc, k, set.buf);
			mod_set(mc, ki, now ? "yes" : "no");
			strlist_push(nodes, label);
			if (!now) {
				active_members(ns, n->nodeclass, st, &active);
				if (strlist_index(&active, label) >= 0 && strlist_index(restart, label) < 0)
					strlist_push(restart, label);
			}
			mod_change(mc, diff.buf, "mmchconfig -N %s%s: node override %s removed%s",
				   label, now ? " -i" : "", summary.buf, now ? "" :
				   "; then restart it (stage scale_restart, through the quorum guard)");
			free(k);
			free(ki);
			strlist_clear(&active);
		}
		json_decref(want);
		json_decref(common);
		strbuf_release(&set);
		strbuf_release(&diff);
		strbuf_release(&summary);
	}
}

static int st_check(struct mod_ctx *mc)
{
	static const char *const lsconfig[] = { "mmlsconfig", NULL };
	static const char *const getstate[] = { "mmgetstate", "-a", NULL };
	struct scale_nodes ns;
	struct strlist classes = STRLIST_INIT, restart = STRLIST_INIT;
	struct strlist ovr = STRLIST_INIT;
	struct strbuf list = STRBUF_INIT;
	struct cmd_result res;
	struct err perr = ERR_INIT;
	json_t *cfg = NULL, *st = NULL;
	bool bare = false;
	int rc;

	scale_nodes_get(mc, &ns);
	scale_classes(&ns, &classes);
	if ((rc = scale_mm(mc, lsconfig, &res)))
		goto out;
	if (res.exit_status) {
		/* --check on a bare cluster: the stages before this one create it. */
		bare = mod_checking(mc) && (scale_not_installed(&res) ||
			strstr(res.err.buf, "does not belong to a GPFS cluster"));
		if (!bare)
			rc = mod_fail(mc, ERR_REMOTE, "mmlsconfig on %s exited %d: %s", mod_host(mc),
				      res.exit_status, res.err.len ? res.err.buf : res.out.buf);
	} else if (parse_mmlsconfig(res.out.buf, res.out.len, &cfg, &perr)) {
		rc = mod_fail(mc, ERR_PARSE, "mmlsconfig on %s: %s", mod_host(mc), err_msg(&perr));
	}
	cmd_result_release(&res);
	if (rc)
		goto out;
	if (!bare && (rc = scale_mm_parsed(mc, getstate, parse_mmgetstate, &st)))
		goto out;
	plan_label(mc, &ns, NULL, cfg, st, &restart);
	for (size_t c = 0; c < classes.n; c++)
		plan_label(mc, &ns, classes.v[c], cfg, st, &restart);
	plan_overrides(mc, &ns, cfg, st, &restart, &ovr);
	strbuf_reset(&list);
	scale_join(&ovr, "\n", &list);
	mod_set(mc, "ovr_nodes", list.buf);
out:
	json_decref(cfg);
	json_decref(st);
	err_clear(&perr);
	strlist_clear(&classes);
	strlist_clear(&restart);
	strlist_clear(&ovr);
	strbuf_release(&list);
	scale_nodes_release(&ns);
	return rc;
}

static int chconfig(struct mod_ctx *mc, const char *cls)
{
	const char *label = cls ? cls : "common";
	char *k_set = xasprintf("cfg:%s", label), *k_i = xasprintf("cfg_i:%s", label);
	const char *argv[6] = { "mmchconfig", mod_get(mc, k_set) };
	size_t n = 2;
	struct cmd_result res;
	int rc = 0;

	if (cls) {
		argv[n++] = "-N";
		argv[n++] = cls;
	}
	if (!strcmp(mod_get(mc, k_i), "yes"))
		argv[n++] = "-i";
	if (*argv[1]) {
		rc = scale_mm_ok(mc, argv, &res);
		cmd_result_release(&res);
	}
	free(k_set);
	free(k_i);
	return rc;
}

static int st_apply(struct mod_ctx *mc)
{
	struct scale_nodes ns;
	struct strlist classes = STRLIST_INIT;
	int rc;

	scale_nodes_get(mc, &ns);
	scale_classes(&ns, &classes);
	rc = chconfig(mc, NULL);
	for (size_t c = 0; !rc && c < classes.n; c++)
		rc = chconfig(mc, classes.v[c]);
	if (!rc && *mod_get(mc, "ovr_nodes")) {
		char *nodes = xstrdup(mod_get(mc, "ovr_nodes"));

		for (char *save = NULL, *n = strtok_r(nodes, "\n", &save); !rc && n;
		     n = strtok_r(NULL, "\n", &save)) {
			char *k = xasprintf("ovr:%s", n), *ki = xasprintf("ovr_i:%s", n);
			const char *argv[] = { "mmchconfig", mod_get(mc, k), "-N", n,
					       !strcmp(mod_get(mc, ki), "yes") ? "-i" : NULL, NULL };

			rc = scale_run(mc, argv);
			free(k);
			free(ki);
		}
		free(nodes);
	}
	strlist_clear(&classes);
	scale_nodes_release(&ns);
	return rc;
}

const struct stage_module mod_scale_tune = {
	.name = "scale_tune",
	.summary = "GPFS configuration per node class (verbs RDMA from the HCAs, the CSI "
		   "attributes, gpfs_config): one mmchconfig per class; restarts owed go to "
		   "scale_restart",
	.version = 2,
	.flags = MOD_ONCE,
	.params = params,
	.check = st_check,
	.apply = st_apply,
};

/*
 * scale_cluster: the Spectrum Scale client cluster that the GPU nodes join
 * (Redpaper 3.3: scale00 as quorum-manager, the DGX nodes as clients). It
 * runs once, on a manager node, for every GPFS node of the run: GPFS
 * administration commands take the cluster configuration lock, so one call
 * for all nodes is the only shape that scales. check reads mmlscluster,
 * mmlsnodeclass and mmgetstate; apply creates the cluster when there is
 * none (mmcrcluster with quorum and manager designations from scale_quorum
 * and scale_manager, ssh/scp, autoload), or adds only the missing nodes
 * with one mmaddnode, accepts the licences by role (server for quorum and
 * manager nodes, client for the others) for the nodes it adds and, read
 * from mmlslicense -Y every run, for any node whose licence is missing or
 * below its role, creates or completes the node
 * classes of gpfs_nodeclass, and with `start` starts the daemons that are
 * down (one mmstartup -N) and waits, bounded, until mmgetstate says active
 * (arbitrating is on its way there). Nodes that failed an earlier stage are
 * left out. The playbook runs it twice: without `start` before scale_tune,
 * so that a new cluster gets its configuration before its daemons first
 * start (no restarts), and with `start` after it.
 */
#include "../engine/deploy/module.h"
#include "scale-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/facts/parse.h"
#include "../engine/deploy/scale-quorum.h"
#include "../engine/base/strlist.h"
#include "../engine/base/xalloc.h"

static const struct param_spec params[] = {
	{ "cluster_name", PARAM_STRING, "", "gpfs_cluster_name",
	  "the client cluster's name (mmcrcluster -C); empty: GPFS names it after the first node",
	  NULL },
	{ "join", PARAM_BOOL, "true", NULL,
	  "create the cluster or add the missing nodes, licences and node classes (false: "
	  "only start the daemons)", NULL },
	{ "remote_copy", PARAM_STRING, "/usr/bin/scp", "gpfs_remote_copy",
	  "the cluster's remote file copy command (mmcrcluster -R)", NULL },
	{ "remote_shell", PARAM_STRING, "/usr/bin/ssh", "gpfs_remote_shell",
	  "the cluster's remote shell command (mmcrcluster -r)", NULL },
	{ "start", PARAM_BOOL, "true", NULL,
	  "start the GPFS daemons that are down and wait until they are active", NULL },
	{ "startup_timeout", PARAM_UINT, "180", "gpfs_startup_timeout",
	  "seconds the started daemons have to become active", NULL },
	{ NULL },
};

static bool in_rows(const json_t *rows, const char *key, const char *node)
{
	size_t i;
	json_t *r;

	json_array_foreach(rows, i, r)
		if (scale_same_node(json_string_value(json_object_get(r, key)), node))
			return true;
	return false;
}

static bool in_list(const json_t *arr, const char *node)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (scale_same_node(json_string_value(v), node))
			return true;
	return false;
}

/* The node descriptors "name:designation,..." of nodes[]. */
static void descriptors(const struct scale_nodes *ns, const struct strlist *names,
			struct strbuf *out)
{
	for (size_t i = 0; i < ns->n; i++)
		if (strlist_index(names, ns->v[i].name) >= 0)
			strbuf_addf(out, "%s%s:%s", out->len ? "," : "", ns->v[i].name,
				    scale_designation(&ns->v[i]));
}

/*
 * Licences by role (IBM's mmchlicense page: a client licence does not
 * authorise the quorum, manager, configuration manager or NSD server roles;
 * those need a server licence). The nodes the cluster gains get theirs
 * with it; every other node of the run is audited against `mmlslicense
 * -Y` (lic, NULL for a new cluster), every run: a licence removed or
 * downgraded behind bringup's back is a change, one per node. A node needs
 * a server licence when the inventory makes it a quorum or manager node,
 * or when GPFS itself says so (requiredLicense: roles bringup does not
 * set, such as NSD server). A licence above the need is left alone:
 * downgrading is a purchasing decision, not drift.
 */
static bool lic_is_server(const char *d)
{
	/* "fpo-server" was seen in designatedLicense for a server-licensed node
	 * (github.com/idiv-biodiversity/ansible-role-mmmodules pull 2) */
	return d && strstr(d, "server");
}

static bool lic_is_any(const char *d)
{
	return d && (lic_is_server(d) || !strcmp(d, "client") || !strcmp(d, "fpo"));
}

static const json_t *lic_row(const json_t *lic, const char *node)
{
	size_t i;
	json_t *r;

	json_array_foreach(json_object_get(lic, "nodes"), i, r)
		if (scale_same_node(json_string_value(json_object_get(r, "name")), node))
			return r;
	return NULL;
}

static void plan_licences(struct mod_ctx *mc, const struct scale_nodes *ns,
			  const struct strlist *wanted, const struct strlist *added,
			  const json_t *lic)
{
	struct strlist server = STRLIST_INIT, client = STRLIST_INIT;
	struct strlist new_server = STRLIST_INIT, new_client = STRLIST_INIT;
	struct strbuf s = STRBUF_INIT, c = STRBUF_INIT;

	for (size_t i = 0; i < ns->n; i++) {
		const struct scale_node *n = &ns->v[i];
		const json_t *row;
		const char *req, *have;
		bool role = n->quorum || n->manager, need_server;

		if (strlist_index(added, n->name) >= 0) {
			strlist_push(role ? &new_server : &new_client, n->name);
			continue;
		}
		if (strlist_index(wanted, n->name) < 0 || !(row = lic_row(lic, n->name)))
			continue;
		req = json_string_value(json_object_get(row, "required"));
		have = json_string_value(json_object_get(row, "designated"));
		need_server = role || (req && !strcmp(req, "server"));
		if (need_server ? lic_is_server(have) : lic_is_any(have))
			continue;
		strlist_push(need_server ? &server : &client, n->name);
		mod_change(mc, NULL, "licence of %s: %s (mmlslicense), %s needs a %s licence: "
			   "mmchlicense %s --accept -N %s", n->name,
			   have && *have ? have : "none",
			   role ? (n->quorum && n->manager ? "a quorum-manager node" :
				   n->quorum ? "a quorum node" : "a manager node") :
			   need_server ? "what GPFS runs there (requiredLicense server)" :
			   "a client node", need_server ? "server" : "client",
			   need_server ? "server" : "client", n->name);
	}
	scale_join(&new_server, ",", &s);
	scale_join(&new_client, ",", &c);
	if (s.len)
		mod_change(mc, NULL, "accept server licences (mmchlicense server --accept): %s", s.buf);
	if (c.len)
		mod_change(mc, NULL, "accept client licences (mmchlicense client --accept): %s", c.buf);
	/* one mmchlicense per licence type for new and audited nodes alike */
	for (size_t i = 0; i < server.n; i++)
		strlist_push(&new_server, server.v[i]);
	for (size_t i = 0; i < client.n; i++)
		strlist_push(&new_client, client.v[i]);
	strbuf_reset(&s);
	strbuf_reset(&c);
	scale_join(&new_server, ",", &s);
	scale_join(&new_client, ",", &c);
	mod_set(mc, "lic_server", s.buf);
	mod_set(mc, "lic_client", c.buf);
	strlist_clear(&server);
	strlist_clear(&client);
	strlist_clear(&new_server);
	strlist_clear(&new_client);
	strbuf_release(&s);
	strbuf_release(&c);
}

/* Node classes: created when absent, completed with their missing members. */
static void plan_classes(struct mod_ctx *mc, const struct scale_nodes *ns,
			 const struct strlist *wanted, const json_t *lsnc)
{
	struct strlist classes = STRLIST_INIT;

	scale_classes(ns, &classes);
	for (size_t c = 0; c < classes.n; c++) {
		const json_t *have = NULL, *cls;
		struct strbuf missing = STRBUF_INIT;
		char *key;
		size_t i;

		json_array_foreach(json_object_get(lsnc, "classes"), i, cls)
			if (!strcmp(json_string_value(json_object_get(cls, "name")), classes.v[c]))
				have = json_object_get(cls, "members");
		for (size_t k = 0; k < ns->n; k++)
			if (ns->v[k].nodeclass && !strcmp(ns->v[k].nodeclass, classes.v[c]) &&
			    strlist_index(wanted, ns->v[k].name) >= 0 && !in_list(have, ns->v[k].name))
				strbuf_addf(&missing, "%s%s", missing.len ? "," : "", ns->v[k].name);
		key = xasprintf("%s:%s", have ? "nc_add" : "nc_create", classes.v[c]);
		mod_set(mc, key, missing.buf);
		if (missing.len)
			mod_change(mc, NULL, have ? "add to node class %s (mmchnodeclass %s add): %s" :
				   "create node class %s (mmcrnodeclass): %s", classes.v[c],
				   have ? classes.v[c] : missing.buf, missing.buf);
		free(key);
		strbuf_release(&missing);
	}
	strlist_clear(&classes);
}

/* Daemons of wanted nodes that are not active; all of them on a new cluster. */
static int plan_start(struct mod_ctx *mc, const struct strlist *wanted, bool have_cluster)
{
	static const char *const argv[] = { "mmgetstate", "-a", NULL };
	struct strbuf start = STRBUF_INIT, states = STRBUF_INIT;
	json_t *st = NULL;
	int rc = 0;

	if (have_cluster && (rc = scale_mm_parsed(mc, argv, parse_mmgetstate, &st)))
		return rc;
	for (size_t i = 0; i < wanted->n; i++) {
		const char *state = "new";
		size_t k;
		json_t *row;

		json_array_foreach(json_object_get(st, "nodes"), k, row)
			if (scale_same_node(json_string_value(json_object_get(row, "name")), wanted->v[i]))
				state = json_string_value(json_object_get(row, "state"));
		if (state && !strcmp(state, "active"))
			continue;
		strbuf_addf(&start, "%s%s", start.len ? "," : "", wanted->v[i]);
		strbuf_addf(&states, "%s%s (%s)", states.len ? ", " : "", wanted->v[i],
			    state ? state : "unknown");
	}
	mod_set(mc, "start", start.len ? start.buf : "");
	if (start.len)
		mod_change(mc, NULL, "start GPFS (mmstartup -N) and wait until active: %s",
			   states.buf);
	json_decref(st);
	strbuf_release(&start);
	strbuf_release(&states);
	return rc;
}

static int sc_check(struct mod_ctx *mc)
{
	static const char *const lscluster[] = { "mmlscluster", NULL };
	static const char *const lsnodeclass[] = { "mmlsnodeclass", NULL };
	static const char *const lslicense[] = { "mmlslicense", "-Y", NULL };
	const char *name = mod_param_str(mc, "cluster_name");
	struct scale_nodes ns;
	struct strlist wanted = STRLIST_INIT, added = STRLIST_INIT;
	struct strbuf desc = STRBUF_INIT, left = STRBUF_INIT;
	struct cmd_result res;
	struct err perr = ERR_INIT;
	json_t *cl = NULL, *nc = NULL, *lic = NULL;
	bool have_cluster = false, join = mod_param_bool(mc, "join");
	int rc;

	/* verify checks again: what the first check planned is done now */
	mod_set(mc, "create", "");
	mod_set(mc, "add", "");
	scale_nodes_get(mc, &ns);
	for (size_t i = 0; i < ns.n; i++) {
		if (ns.v[i].failed)
			strbuf_addf(&left, "%s%s (%s)", left.len ? ", " : "", ns.v[i].name,
				    ns.v[i].failed);
		else
			strlist_push(&wanted, ns.v[i].name);
	}
	if (left.len)
		mod_note(mc, "left out of the cluster: %s", left.buf);
	if (!wanted.n) {
		rc = mod_skip(mc, "no Spectrum Scale node to act for");
		goto out;
	}
	if ((rc = scale_mm(mc, lscluster, &res)))
		goto out_res;
	if (scale_not_installed(&res)) {
		/* --check on a bare cluster: scale_install of this run brings GPFS. */
		if (!mod_checking(mc)) {
			rc = mod_fail(mc, ERR_STATE, "Spectrum Scale is not installed on the manager "
				      "node %s (stage scale_install)", mod_host(mc));
			goto out_res;
		}
	} else if (res.exit_status == 0) {
		if (parse_mmlscluster(res.out.buf, res.out.len, &cl, &perr)) {
			rc = mod_fail(mc, ERR_PARSE, "mmlscluster on %s: %s", mod_host(mc),
				      err_msg(&perr));
			goto out_res;
		}
		have_cluster = true;
	} else if (!strstr(res.err.buf, "does not belong to a GPFS cluster") &&
		   !strstr(res.out.buf, "does not belong to a GPFS cluster")) {
		rc = mod_fail(mc, ERR_REMOTE, "mmlscluster on %s exited %d: %s", mod_host(mc),
			      res.exit_status, res.err.len ? res.err.buf : res.out.buf);
		goto out_res;
	}
	if (have_cluster) {
		const char *is = json_string_value(json_object_get(json_object_get(cl, "cluster"),
								   "gpfs_cluster_name"));

		if (*name && is && strcmp(is, name)) {
			rc = mod_fail(mc, ERR_STATE, "%s belongs to GPFS cluster %s, not to %s "
				      "(gpfs_cluster_name): fix the inventory or remove the node from "
				      "that cluster", mod_host(mc), is, name);
			goto out_res;
		}
		mod_set(mc, "cluster", is ? is : "");
		cmd_result_release(&res);
		if (!join)
			goto start;
		for (size_t i = 0; i < wanted.n; i++)
			if (!in_rows(json_object_get(cl, "nodes"), "daemon_node_name", wanted.v[i]))
				strlist_push(&added, wanted.v[i]);
		descriptors(&ns, &added, &desc);
		mod_set(mc, "add", desc.buf);
		if (added.n)
			mod_change(mc, NULL, "add %zu nodes to GPFS cluster %s in one call "
				   "(mmaddnode -N): %s", added.n, is ? is : "", desc.buf);
		if ((rc = scale_mm_parsed(mc, lsnodeclass, parse_mmlsnodeclass, &nc)) ||
		    (rc = scale_mm_parsed(mc, lslicense, parse_mmlslicense, &lic)))
			goto out;
	} else if (!join) {
		cmd_result_release(&res);
		if (!mod_checking(mc)) {
			rc = mod_fail(mc, ERR_STATE, "%s is not in a GPFS cluster: stage scale_cluster "
				      "creates it", mod_host(mc));
			goto out;
		}
		goto start;
	} else {
		for (size_t i = 0; i < wanted.n; i++)
			strlist_push(&added, wanted.v[i]);
		descriptors(&ns, &added, &desc);
		mod_set(mc, "create", desc.buf);
		mod_change(mc, NULL, "create GPFS cluster %s (mmcrcluster, remote shell %s, copy %s, "
			   "autoload) with %zu nodes: %s", *name ? name : "(named after the first node)",
			   mod_param_str(mc, "remote_shell"), mod_param_str(mc, "remote_copy"),
			   added.n, desc.buf);
		cmd_result_release(&res);
	}
	plan_licences(mc, &ns, &wanted, &added, lic);
	plan_classes(mc, &ns, &wanted, nc);
start:
	if (mod_param_bool(mc, "start"))
		rc = plan_start(mc, &wanted, have_cluster);
	goto out;
out_res:
	cmd_result_release(&res);
out:
	json_decref(cl);
	json_decref(nc);
	json_decref(lic);
	err_clear(&perr);
	strlist_clear(&wanted);
	strlist_clear(&added);
	strbuf_release(&desc);
	strbuf_release(&left);
	scale_nodes_release(&ns);
	return rc;
}

/*
 * Waits for the started daemons. Those that stay down fail alone (the
 * others go on), unless quorum itself is lost or the manager this runs on
 * is among them: then nothing can go on and the stage fails.
 */
static int wait_started(struct mod_ctx *mc, const char *list)
{
	static const char *const quorum[] = { "mmgetstate", "-N", "quorumnodes", NULL };
	unsigned limit = mod_param_uint(mc, "startup_timeout");
	struct strbuf why = STRBUF_INIT;
	json_t *down = NULL, *q = NULL, *row;
	bool fatal;
	size_t i;
	int rc = scale_wait_active(mc, list, limit, &down);

	if (rc != ERR_TIMEOUT || !down)
		return rc;
	rc = scale_mm_parsed(mc, quorum, parse_mmgetstate, &q);
	fatal = rc || !scale_quorum_may_stop(q, "", &why);
	json_array_foreach(down, i, row)
		fatal |= scale_same_node(json_string_value(json_object_get(row, "name")),
					 mod_host(mc));
	if (!rc && fatal) {
		struct strbuf names = STRBUF_INIT;

		json_array_foreach(down, i, row)
			strbuf_addf(&names, "%s%s (%s)", names.len ? ", " : "",
				    json_string_value(json_object_get(row, "name")),
				    json_string_value(json_object_get(row, "state")));
		rc = mod_fail(mc, ERR_TIMEOUT, "GPFS did not become active within %u s on: %s; "
			      "quorum: %s", limit, names.buf, why.len ? why.buf :
			      "the manager node itself is down; see /var/adm/ras/mmfs.log.latest");
		strbuf_release(&names);
	} else if (!rc) {
		json_array_foreach(down, i, row)
			mod_fail_host(mc, json_string_value(json_object_get(row, "name")),
				      "GPFS did not become active within %u s after mmstartup (state "
				      "%s): see /var/adm/ras/mmfs.log.latest on it; a portability "
				      "layer that does not match the running kernel keeps the daemon "
				      "down (stage scale_install)", limit,
				      json_string_value(json_object_get(row, "state")));
	}
	json_decref(down);
	json_decref(q);
	strbuf_release(&why);
	return rc;
}

/* list ("a,b,c") without the names in drop, back under key. */
static void drop_nodes(struct mod_ctx *mc, const char *key, const struct strlist *drop)
{
	struct strlist keep = STRLIST_INIT;
	struct strbuf out = STRBUF_INIT;
	char *list = xstrdup(mod_get(mc, key)), *save = NULL, *n;

	for (n = strtok_r(list, ",", &save); n; n = strtok_r(NULL, ",", &save))
		if (strlist_index(drop, n) < 0)
			strlist_push(&keep, n);
	scale_join(&keep, ",", &out);
	mod_set(mc, key, out.buf);
	free(list);
	strlist_clear(&keep);
	strbuf_release(&out);
}

/*
 * One mmaddnode for the missing nodes. GPFS carries on past a node it
 * cannot reach and still exits 0, listing it as not added (the real capture
 * in tests/fixtures/other-tools/mmaddnode/): that node fails alone, named
 * with mmaddnode's reason, the others have joined, and the licences, node
 * classes and starts planned for it are left out (they would fail the
 * whole command for a node GPFS does not know).
 */
static int add_nodes(struct mod_ctx *mc, const struct scale_nodes *ns)
{
	const char *argv[] = { "mmaddnode", "-N", mod_get(mc, "add"), NULL };
	struct strlist gone = STRLIST_INIT, why = STRLIST_INIT, drop = STRLIST_INIT;
	struct strlist classes = STRLIST_INIT;
	struct cmd_result res;
	int rc = scale_mm_ok(mc, argv, &res);

	if (!rc)
		scale_addnode_not_added(res.out.buf, res.err.buf, &gone, &why);
	for (size_t i = 0; i < gone.n; i++) {
		const char *host = NULL;

		/* GPFS may print the name with its domain: fail the inventory's host */
		for (size_t k = 0; k < ns->n && !host; k++)
			if (scale_same_node(gone.v[i], ns->v[k].name))
				host = ns->v[k].name;
		if (!host) {
			rc = mod_fail(mc, ERR_REMOTE, "mmaddnode on %s did not add %s, a node "
				      "bringup did not ask for: %s", mod_host(mc), gone.v[i],
				      res.err.len ? res.err.buf : res.out.buf);
			break;
		}
		strlist_push(&drop, host);
		mod_fail_host(mc, host, "mmaddnode on %s could not add it to GPFS cluster %s: %s; "
			      "the other nodes joined. Correct it (the cluster's remote shell %s must "
			      "reach it from %s) and deploy again", mod_host(mc), mod_get(mc, "cluster"),
			      *why.v[i] ? why.v[i] : "listed as not added",
			      mod_param_str(mc, "remote_shell"), mod_host(mc));
	}
	if (!rc && drop.n) {
		drop_nodes(mc, "lic_server", &drop);
		drop_nodes(mc, "lic_client", &drop);
		drop_nodes(mc, "start", &drop);
		scale_classes(ns, &classes);
		for (size_t c = 0; c < classes.n; c++) {
			char *ck = xasprintf("nc_create:%s", classes.v[c]);
			char *ak = xasprintf("nc_add:%s", classes.v[c]);

			drop_nodes(mc, ck, &drop);
			drop_nodes(mc, ak, &drop);
			free(ck);
			free(ak);
		}
	}
	cmd_result_release(&res);
	strlist_clear(&gone);
	strlist_clear(&why);
	strlist_clear(&drop);
	strlist_clear(&classes);
	return rc;
}

static int sc_apply(struct mod_ctx *mc)
{
	struct scale_nodes ns;
	struct strlist classes = STRLIST_INIT;
	int rc = 0;

	scale_nodes_get(mc, &ns);
	if (*mod_get(mc, "create")) {
		const char *argv[] = { "mmcrcluster", "-N", mod_get(mc, "create"), "-r",
				       mod_param_str(mc, "remote_shell"), "-R",
				       mod_param_str(mc, "remote_copy"), "-A", NULL, NULL, NULL };

		if (*mod_param_str(mc, "cluster_name")) {
			argv[8] = "-C";
			argv[9] = mod_param_str(mc, "cluster_name");
		}
		mod_note(mc, "creating GPFS cluster %s", mod_param_str(mc, "cluster_name"));
		rc = scale_run(mc, argv);
	}
	if (!rc && *mod_get(mc, "add"))
		rc = add_nodes(mc, &ns);
	if (!rc && *mod_get(mc, "lic_server")) {
		const char *argv[] = { "mmchlicense", "server", "--accept", "-N",
				       mod_get(mc, "lic_server"), NULL };

		rc = scale_run(mc, argv);
	}
	if (!rc && *mod_get(mc, "lic_client")) {
		const char *argv[] = { "mmchlicense", "client", "--accept", "-N",
				       mod_get(mc, "lic_client"), NULL };

		rc = scale_run(mc, argv);
	}
	scale_classes(&ns, &classes);
	for (size_t c = 0; !rc && c < classes.n; c++) {
		char *ck = xasprintf("nc_create:%s", classes.v[c]);
		char *ak = xasprintf("nc_add:%s", classes.v[c]);

		if (*mod_get(mc, ck)) {
			const char *argv[] = { "mmcrnodeclass", classes.v[c], "-N", mod_get(mc, ck),
					       NULL };

			rc = scale_run(mc, argv);
		} else if (*mod_get(mc, ak)) {
			const char *argv[] = { "mmchnodeclass", classes.v[c], "add", "-N",
					       mod_get(mc, ak), NULL };

			rc = scale_run(mc, argv);
		}
		free(ck);
		free(ak);
	}
	if (!rc && *mod_get(mc, "start")) {
		const char *argv[] = { "mmstartup", "-N", mod_get(mc, "start"), NULL };

		mod_note(mc, "starting GPFS on %s", mod_get(mc, "start"));
		rc = scale_run(mc, argv);
		if (!rc)
			rc = wait_started(mc, mod_get(mc, "start"));
	}
	strlist_clear(&classes);
	scale_nodes_release(&ns);
	return rc;
}

const struct stage_module mod_scale_cluster = {
	.name = "scale_cluster",
	.summary = "the Spectrum Scale client cluster: mmcrcluster or one mmaddnode for the "
		   "missing nodes, licences (audited every run), node classes, mmstartup (run once on a "
		   "manager)",
	.version = 1,
	.flags = MOD_ONCE,
	.params = params,
	.check = sc_check,
	.apply = sc_apply,
};

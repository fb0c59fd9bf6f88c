/*
 * What the Spectrum Scale modules share; see scale-common.h.
 */
#include "scale-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../engine/deploy/scale-quorum.h"
#include "../engine/facts/parse.h"
#include "../engine/base/strlist.h"
#include "../engine/base/xalloc.h"

static bool has_role(const json_t *roles, const char *role)
{
	size_t i;
	json_t *r;

	json_array_foreach(roles, i, r)
		if (json_is_string(r) && !strcmp(json_string_value(r), role))
			return true;
	return false;
}

void scale_nodes_get(const struct mod_ctx *mc, struct scale_nodes *out)
{
	const json_t *hosts = mod_run_hosts(mc);
	size_t i;
	json_t *h;

	out->v = xcalloc(json_array_size(hosts) + 1, sizeof(*out->v));
	out->n = 0;
	json_array_foreach(hosts, i, h) {
		const json_t *roles = json_object_get(h, "roles");
		struct scale_node *n = &out->v[out->n];
		const json_t *cls;

		n->quorum = has_role(roles, "scale_quorum");
		n->manager = has_role(roles, "scale_manager");
		n->client = has_role(roles, "scale_client");
		if (!n->quorum && !n->manager && !n->client)
			continue;
		n->name = json_string_value(json_object_get(h, "name"));
		n->vars = json_object_get(h, "vars");
		n->hcas = json_object_get(h, "hcas");
		cls = json_object_get(n->vars, "gpfs_nodeclass");
		n->nodeclass = json_is_string(cls) && *json_string_value(cls) ?
			json_string_value(cls) : NULL;
		n->failed = json_string_value(json_object_get(h, "failed"));
		out->n++;
	}
}

void scale_nodes_release(struct scale_nodes *ns)
{
	free(ns->v);
	ns->v = NULL;
	ns->n = 0;
}

const char *scale_designation(const struct scale_node *n)
{
	if (n->quorum && n->manager)
		return "quorum-manager";
	if (n->quorum)
		return "quorum";
	return n->manager ? "manager" : "client";
}

void scale_classes(const struct scale_nodes *ns, struct strlist *out)
{
	for (size_t i = 0; i < ns->n; i++)
		if (ns->v[i].nodeclass && strlist_index(out, ns->v[i].nodeclass) < 0)
			strlist_push(out, ns->v[i].nodeclass);
}

static bool name_in(const json_t *list, const char *name)
{
	size_t k;
	json_t *c;

	json_array_foreach(list, k, c)
		if (json_is_string(c) && !strcmp(json_string_value(c), name))
			return true;
	return false;
}

void scale_verbs_ports(const json_t *vars, const json_t *hcas, struct strbuf *out,
		       bool *ret_roce)
{
	const json_t *storage = json_object_get(vars, "storage_hcas");
	const json_t *compute = json_object_get(vars, "compute_hcas");
	bool by_storage = json_is_array(storage) && json_array_size(storage);
	size_t i;
	json_t *h;

	*ret_roce = false;
	json_array_foreach(hcas, i, h) {
		const char *name = json_string_value(json_object_get(h, "name"));
		bool ib = !strcmp(json_string_value(json_object_get(h, "link_layer")), "infiniband");
		bool take;

		if (!name)
			continue;
		/*
		 * GPFS moves data to the NSD servers: the ports that reach
		 * them are the storage HCAs where the inventory names them
		 * (InfiniBand or RoCE), else the InfiniBand compute ports.
		 */
		if (by_storage)
			take = name_in(storage, name);
		else
			take = ib && (!json_is_array(compute) || !json_array_size(compute) ||
				      name_in(compute, name));
		if (!take)
			continue;
		*ret_roce |= !ib;
		strbuf_addf(out, "%s%s/%d", out->len ? " " : "", name,
			    (int)json_integer_value(json_object_get(h, "port")));
	}
}

/* A YAML value as mmchconfig takes it: strings as they are, numbers in decimal. */
static json_t *config_value(const json_t *v)
{
	char buf[32];

	if (json_is_string(v))
		return json_string(json_string_value(v));
	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		return json_string(buf);
	}
	if (json_is_boolean(v))
		return json_string(json_is_true(v) ? "yes" : "no");
	return NULL;
}

static void merge_config(json_t *into, const json_t *cfg)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)cfg, k, v) {
		json_t *s = config_value(v);

		if (s)
			json_object_set_new(into, k, s);
	}
}

json_t *scale_desired_config(const struct scale_nodes *ns, const char *cls)
{
	json_t *want = json_object();
	const struct scale_node *first = NULL;

	for (size_t i = 0; i < ns->n && !first; i++)
		if (!cls || (ns->v[i].nodeclass && !strcmp(ns->v[i].nodeclass, cls)))
			first = &ns->v[i];
	if (!first)
		return want;
	if (!cls) {
		/* Both required by the Spectrum Scale CSI driver (Redpaper 3.3). */
		json_object_set_new(want, "enforceFilesetQuotaOnRoot", json_string("yes"));
		json_object_set_new(want, "controlSetxattrImmutableSELinux", json_string("yes"));
		merge_config(want, json_object_get(first->vars, "gpfs_common_config"));
		return want;
	}
	{
		struct strbuf ports = STRBUF_INIT;
		bool roce;

		scale_verbs_ports(first->vars, first->hcas, &ports, &roce);
		if (ports.len) {
			json_object_set_new(want, "verbsRdma", json_string("enable"));
			json_object_set_new(want, "verbsRdmaSend", json_string("yes"));
			json_object_set_new(want, "verbsPorts", json_string(ports.buf));
		}
		/* RoCE connections are set up by the RDMA connection manager:
		 * GPFS opens RDMA on a RoCE port only with verbsRdmaCm enable
		 * (mmchconfig's verbsRdmaCm; RHEL 9 "Configuring RoCE":
		 * RDMA_CM sets up the RoCE connection). */
		if (roce)
			json_object_set_new(want, "verbsRdmaCm", json_string("enable"));
		strbuf_release(&ports);
	}
	merge_config(want, json_object_get(first->vars, "gpfs_config"));
	return want;
}

static int mm(struct mod_ctx *mc, const char *const *argv, struct cmd_result *res)
{
	size_t n = 0;
	const char **v;
	char *path;
	int rc;

	while (argv[n])
		n++;
	v = xcalloc(n + 1, sizeof(*v));
	path = xasprintf(MMBIN "%s", argv[0]);
	v[0] = path;
	for (size_t i = 1; i < n; i++)
		v[i] = argv[i];
	rc = mod_exec(mc, v, NULL, res);
	free(path);
	free(v);
	return rc;
}

int scale_mm(struct mod_ctx *mc, const char *const *argv, struct cmd_result *res)
{
	return mm(mc, argv, res);
}

int scale_mm_ok(struct mod_ctx *mc, const char *const *argv, struct cmd_result *res)
{
	int rc = mm(mc, argv, res);

	if (rc || !res->exit_status)
		return rc;
	{
		struct strbuf msg = STRBUF_INIT;

		strbuf_addstr(&msg, res->err.len ? res->err.buf : res->out.buf);
		strbuf_rtrim(&msg);
		rc = mod_fail(mc, ERR_REMOTE, "%s on %s exited %d: %s", argv[0], mod_host(mc),
			      res->exit_status, msg.buf);
		strbuf_release(&msg);
	}
	return rc;
}

static void addnode_scan(const char *text, struct strlist *nodes, bool *in_list)
{
	const char *line = text;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char *l = xstrndup(line, n), *t = l;

		while (*t == ' ' || *t == '\t')
			t++;
		if (strstr(t, "could not be added to the GPFS cluster:"))
			*in_list = true;
		else if (*in_list && *t && !strpbrk(t, " \t"))
			strlist_push(nodes, t);
		else if (*in_list && *t)
			*in_list = false;   /* "Correct the problems ..." ends the list */
		free(l);
		line = end ? end + 1 : NULL;
	}
}

/* mmaddnode's own line about node ("mmaddnode: client05 cannot be reached."). */
static void addnode_why(const char *text, const char *node, struct strbuf *out)
{
	char *key = xasprintf("mmaddnode: %s ", node);
	const char *p = text ? strstr(text, key) : NULL;

	if (p && !out->len) {
		p += strlen("mmaddnode: ");
		strbuf_add(out, p, strcspn(p, "\n"));
	}
	free(key);
}

void scale_addnode_not_added(const char *out, const char *err, struct strlist *ret_nodes,
			     struct strlist *ret_why)
{
	bool in_list = false;

	addnode_scan(err, ret_nodes, &in_list);
	in_list = false;
	addnode_scan(out, ret_nodes, &in_list);
	for (size_t i = 0; i < ret_nodes->n; i++) {
		struct strbuf why = STRBUF_INIT;

		addnode_why(err, ret_nodes->v[i], &why);
		addnode_why(out, ret_nodes->v[i], &why);
		strlist_push(ret_why, why.buf);
		strbuf_release(&why);
	}
}

int scale_run(struct mod_ctx *mc, const char *const *argv)
{
	struct cmd_result res;
	int rc = scale_mm_ok(mc, argv, &res);

	cmd_result_release(&res);
	return rc;
}

bool scale_not_installed(const struct cmd_result *res)
{
	return res->exit_status == 127 || res->exit_status == 126;
}

void scale_join(const struct strlist *names, const char *sep, struct strbuf *out)
{
	for (size_t i = 0; i < names->n; i++)
		strbuf_addf(out, "%s%s", i ? sep : "", names->v[i]);
}

/* GPFS may show a node with its domain: dgx01 is dgx01.cluster.local. */
bool scale_same_node(const char *gpfs_name, const char *node)
{
	size_t n = strlen(node);

	return gpfs_name && !strncmp(gpfs_name, node, n) &&
	       (gpfs_name[n] == '\0' || gpfs_name[n] == '.');
}

/* Runs an mm command and parses its output; rc != 0 fails the module. */
int scale_mm_parsed(struct mod_ctx *mc, const char *const *argv, parse_fn *parse,
		     json_t **ret)
{
	struct cmd_result res;
	struct err perr = ERR_INIT;
	int rc = scale_mm_ok(mc, argv, &res);

	*ret = NULL;
	if (!rc && parse(res.out.buf, res.out.len, ret, &perr))
		rc = mod_fail(mc, ERR_PARSE, "%s on %s: %s", argv[0], mod_host(mc), err_msg(&perr));
	err_clear(&perr);
	cmd_result_release(&res);
	return rc;
}

/*
 * mmgetstate -a: its table even when it exits non-zero (a node it could
 * not reach is listed after the table, and the rest still counts).
 */
static int all_states(struct mod_ctx *mc, json_t **ret)
{
	static const char *const argv[] = { "mmgetstate", "-a", NULL };
	struct cmd_result res;
	struct err perr = ERR_INIT;
	int rc = scale_mm(mc, argv, &res);

	*ret = NULL;
	if (!rc && parse_mmgetstate(res.out.buf, res.out.len, ret, &perr))
		rc = mod_fail(mc, ERR_PARSE, "mmgetstate -a on %s (exit %d): %s", mod_host(mc),
			      res.exit_status, err_msg(&perr));
	err_clear(&perr);
	cmd_result_release(&res);
	return rc;
}

int scale_quorum_guard(struct mod_ctx *mc, const char *const *set, size_t n)
{
	static const char *const lscluster[] = { "mmlscluster", NULL };
	static const char *const tb[] = { "mmlsconfig", "tiebreakerDisks", NULL };
	struct strbuf why = STRBUF_INIT;
	struct cmd_result res;
	json_t *cluster = NULL, *states = NULL;
	bool tiebreaker = false;
	int rc = scale_mm_parsed(mc, lscluster, parse_mmlscluster, &cluster);

	if (!rc)
		rc = all_states(mc, &states);
	if (!rc) {
		/* unreadable: judged without tiebreaker disks, the stricter rule */
		rc = scale_mm(mc, tb, &res);
		tiebreaker = !rc && !res.exit_status &&
			     scale_quorum_tiebreaker(res.out.buf, res.out.len);
		cmd_result_release(&res);
	}
	if (!rc && !scale_quorum_set_may_stop(states, cluster, tiebreaker, set, n, &why))
		rc = mod_fail(mc, ERR_STATE, "%s", why.buf);
	json_decref(cluster);
	json_decref(states);
	strbuf_release(&why);
	return rc;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Waits until every node of `list` is active; see scale-common.h.
 */
int scale_wait_active(struct mod_ctx *mc, const char *list, unsigned limit, json_t **ret_down)
{
	const char *argv[] = { "mmgetstate", "-N", list, NULL };
	time_t end = time(NULL) + limit;
	struct strbuf down = STRBUF_INIT;
	json_t *rows = NULL;
	int rc;

	for (;;) {
		json_t *st = NULL;
		size_t i;
		json_t *row;

		if ((rc = scale_mm_parsed(mc, argv, parse_mmgetstate, &st)))
			break;
		strbuf_reset(&down);
		json_decref(rows);
		rows = json_array();
		json_array_foreach(json_object_get(st, "nodes"), i, row) {
			const char *s = json_string_value(json_object_get(row, "state"));
			const char *name = json_string_value(json_object_get(row, "name"));

			if (s && !strcmp(s, "active"))
				continue;
			strbuf_addf(&down, "%s%s (%s)", down.len ? ", " : "", name, s ? s : "?");
			json_array_append_new(rows, json_pack("{s:s, s:s}", "name", name ? name : "?",
							      "state", s ? s : "?"));
		}
		json_decref(st);
		if (!down.len)
			break;
		if (time(NULL) >= end) {
			rc = ERR_TIMEOUT;
			if (ret_down) {
				*ret_down = rows;
				rows = NULL;
				break;
			}
			mod_fail(mc, ERR_TIMEOUT, "GPFS did not become active within %u s on: %s; "
				 "see /var/adm/ras/mmfs.log.latest there (a node whose portability "
				 "layer does not match its kernel cannot start: stage scale_install; "
				 "arbitrating for long means quorum nodes are down)", limit, down.buf);
			break;
		}
		sleep_ms(1000);
	}
	json_decref(rows);
	strbuf_release(&down);
	return rc;
}

/*
 * Playbook loading and checking (see playbook.h): YAML through yamltree,
 * module names and parameters against the module table, hosts against the
 * inventory. The engine only knows modules through the table it is given.
 */
#include "playbook.h"
#include "../base/nodeset.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"
#include "../base/yamltree.h"
#include "module.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAYBOOK_MAX_BYTES (4u << 20)

enum { K_NAME, K_MODULE, K_HOSTS, K_PARAMS, K_SERIAL, K_MAXFAIL, K_DEPENDS,
       K_TAGS, K_RUN_ONCE, K_LOCAL, K_DESCRIPTION, K_OPTIONAL };

static const struct ykey stage_keys[] = {
	[K_NAME] = { "name", Y_SCALAR, false },
	[K_MODULE] = { "module", Y_SCALAR, true },
	[K_HOSTS] = { "hosts", Y_SCALAR_OR_SEQ, false },
	[K_PARAMS] = { "params", Y_MAP, false },
	[K_SERIAL] = { "serial", Y_SCALAR, false },
	[K_MAXFAIL] = { "max_fail_percent", Y_SCALAR, false },
	[K_DEPENDS] = { "depends", Y_SCALAR_OR_SEQ, false },
	[K_TAGS] = { "tags", Y_SCALAR_OR_SEQ, false },
	[K_RUN_ONCE] = { "run_once", Y_SCALAR, false },
	[K_LOCAL] = { "local", Y_SCALAR, false },
	[K_DESCRIPTION] = { "description", Y_SCALAR, false },
	[K_OPTIONAL] = { "optional", Y_SCALAR, false },
	{ NULL, 0, false },
};

static const struct ykey top_keys[] = {
	{ "name", Y_SCALAR, false },
	{ "description", Y_SCALAR, false },
	{ "stages", Y_SEQ, true },
	{ NULL, 0, false },
};

static void stage_release(struct stage *s)
{
	free(s->name);
	free(s->hosts);
	for (size_t i = 0; i < s->nparams; i++) {
		free(s->params[i].name);
		json_decref(s->params[i].value);
	}
	free(s->params);
	free(s->depends);
	strlist_clear(&s->tags);
	free(s->host_idx);
}

void playbook_free(struct playbook *pb)
{
	if (!pb)
		return;
	for (size_t i = 0; i < pb->nstages; i++)
		stage_release(&pb->stages[i]);
	free(pb->stages);
	free(pb->path);
	free(pb->name);
	free(pb);
}

int playbook_stage_index(const struct playbook *pb, const char *name)
{
	for (size_t i = 0; i < pb->nstages; i++)
		if (!strcmp(pb->stages[i].name, name))
			return (int)i;
	return -1;
}

static int parse_bool(struct ytree *t, yaml_node_t *n, const char *what, bool *ret)
{
	const char *s = ytree_str(n);

	if (!strcmp(s, "true") || !strcmp(s, "yes")) {
		*ret = true;
		return 0;
	}
	if (!strcmp(s, "false") || !strcmp(s, "no")) {
		*ret = false;
		return 0;
	}
	return ytree_fail(t, n, ytree_text_col(n), "found '%s' for %s, expected true or false",
			  s, what);
}

/* "4" or "25%". */
static int parse_serial(struct ytree *t, yaml_node_t *n, struct stage *s)
{
	const char *v = ytree_str(n);
	size_t len = strlen(v);
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	s->serial_percent = len && v[len - 1] == '%';
	if (end == v || errno || x == 0 || (s->serial_percent ? end != v + len - 1 : *end) ||
	    (s->serial_percent && x > 100) || x > 1000000)
		return ytree_fail(t, n, ytree_text_col(n), "found '%s' for 'serial' of stage '%s', "
				  "expected a number of hosts (1 or more) or a percentage (1%%-100%%)",
				  v, s->name);
	s->serial = (unsigned)x;
	return 0;
}

static const char *const *module_names(const struct stage_module *const *mods, size_t n)
{
	const char **v = xcalloc(n + 1, sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = mods[i]->name;
	return v;
}

static int find_module(struct ytree *t, yaml_node_t *n, const char *where,
		       const struct stage_module *const *mods, size_t nmods,
		       const struct stage_module **ret)
{
	const char *const *names;
	int rc;

	for (size_t i = 0; i < nmods; i++)
		if (!strcmp(mods[i]->name, ytree_str(n))) {
			*ret = mods[i];
			return 0;
		}
	names = module_names(mods, nmods);
	rc = ytree_fail_choice(t, n, "module", where, names, nmods);
	free((void *)names);
	return rc;
}

/* True when a string value is "{{ name }}"; *ret_var gets the name (caller frees). */
static bool var_ref(const json_t *v, char **ret_var)
{
	const char *s, *a, *b;

	if (!json_is_string(v))
		return false;
	s = json_string_value(v);
	if (strncmp(s, "{{", 2) || strlen(s) < 4 || strcmp(s + strlen(s) - 2, "}}"))
		return false;
	a = s + 2;
	b = s + strlen(s) - 2;
	while (a < b && *a == ' ')
		a++;
	while (b > a && b[-1] == ' ')
		b--;
	if (ret_var)
		*ret_var = xstrndup(a, (size_t)(b - a));
	return true;
}

static int parse_params(struct ytree *t, yaml_node_t *n, struct stage *s)
{
	size_t len = ytree_map_len(n);
	char *where = xasprintf("'params' of stage '%s'", s->name);
	int rc = ytree_check_keys(t, n, where);

	for (size_t i = 0; i < len && !rc; i++) {
		yaml_node_t *k = ytree_map_key(t, n, i), *v = ytree_map_value(t, n, i);
		const struct param_spec *p = module_param(s->module, ytree_str(k));
		struct stage_param *sp;
		const char *bad;
		json_t *val;

		if (!p) {
			const char *names[64];
			size_t nn = 0;

			for (; s->module->params && s->module->params[nn].name && nn < 64; nn++)
				names[nn] = s->module->params[nn].name;
			rc = ytree_fail_choice(t, k, "parameter", where, names, nn);
			break;
		}
		val = ytree_to_json(t, v, where);
		if (!val) {
			rc = ERR_INVENTORY;
			break;
		}
		bad = var_ref(val, NULL) ? NULL : param_check(p, val);
		if (bad) {
			char *found = ytree_describe(v);

			rc = ytree_fail(t, v, ytree_text_col(v), "found %s for parameter '%s' "
					"of module '%s', expected %s", found, p->name,
					s->module->name, bad);
			free(found);
			json_decref(val);
			break;
		}
		s->params = xrealloc(s->params, (s->nparams + 1) * sizeof(*s->params));
		sp = &s->params[s->nparams++];
		sp->name = xstrdup(p->name);
		sp->value = val;
		sp->line = ytree_line(v);
		sp->col = ytree_col(v);
	}
	free(where);
	return rc;
}

static int parse_list(struct ytree *t, yaml_node_t *n, const char *what, struct strlist *out)
{
	for (size_t i = 0; i < ytree_seq_len(n); i++) {
		yaml_node_t *it = ytree_seq_item(t, n, i);
		char *s;

		if (ytree_string(t, it, what, &s))
			return ERR_INVENTORY;
		strlist_push_owned(out, s);
	}
	return 0;
}

static int parse_depends(struct ytree *t, yaml_node_t *n, struct playbook *pb,
			 struct stage *s)
{
	for (size_t i = 0; i < ytree_seq_len(n); i++) {
		yaml_node_t *it = ytree_seq_item(t, n, i);
		int k = playbook_stage_index(pb, ytree_str(it));

		if (k < 0 || (size_t)k >= pb->nstages - 1)
			return ytree_fail(t, it, ytree_text_col(it), "stage '%s' depends on '%s', "
					  "expected the name of an earlier stage", s->name,
					  ytree_str(it));
		s->depends = xrealloc(s->depends, (s->ndepends + 1) * sizeof(*s->depends));
		s->depends[s->ndepends++] = (size_t)k;
	}
	return 0;
}

static int parse_hosts(struct ytree *t, yaml_node_t *n, struct stage *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < ytree_seq_len(n); i++) {
		yaml_node_t *it = ytree_seq_item(t, n, i);

		if (it->type != YAML_SCALAR_NODE || ytree_is_empty(it)) {
			strbuf_release(&sb);
			return ytree_expect(t, it, Y_SCALAR, "an item of 'hosts'") ?
			       ERR_INVENTORY : ytree_fail(t, it, 0, "found an empty host selector, "
							  "expected a group or a node set");
		}
		if (sb.len)
			strbuf_addch(&sb, ',');
		strbuf_addstr(&sb, ytree_str(it));
	}
	s->hosts = strbuf_detach(&sb, NULL);
	return 0;
}

static int parse_stage(struct ytree *t, yaml_node_t *n, struct playbook *pb,
		       const struct stage_module *const *mods, size_t nmods)
{
	yaml_node_t *v[sizeof(stage_keys) / sizeof(stage_keys[0])];
	struct stage *s = &pb->stages[pb->nstages - 1];
	char *where = xasprintf("stage %zu", pb->nstages);
	int rc;

	s->max_fail_percent = -1;
	s->line = ytree_line(n);
	s->col = ytree_col(n);
	rc = ytree_check_map(t, n, stage_keys, where, v);
	if (!rc)
		rc = find_module(t, v[K_MODULE], where, mods, nmods, &s->module);
	if (rc)
		goto out;
	s->name = xstrdup(v[K_NAME] ? ytree_str(v[K_NAME]) : s->module->name);
	if (playbook_stage_index(pb, s->name) != (int)pb->nstages - 1) {
		rc = ytree_fail(t, v[K_NAME] ? v[K_NAME] : n, 0, "duplicate stage name '%s', "
				"expected each stage once (give it a 'name')", s->name);
		goto out;
	}
	if ((rc = v[K_LOCAL] ? parse_bool(t, v[K_LOCAL], "'local'", &s->local) : 0) ||
	    (rc = v[K_RUN_ONCE] ? parse_bool(t, v[K_RUN_ONCE], "'run_once'", &s->run_once) : 0) ||
	    (rc = v[K_OPTIONAL] ? parse_bool(t, v[K_OPTIONAL], "'optional'", &s->optional) : 0))
		goto out;
	s->local |= !!(s->module->flags & MOD_LOCAL);
	s->run_once |= !!(s->module->flags & MOD_ONCE);
	if (s->local && v[K_HOSTS]) {
		rc = ytree_fail(t, v[K_HOSTS], 0, "found 'hosts' in local stage '%s', expected "
				"none (a local stage runs on the admin host)", s->name);
		goto out;
	}
	if (!s->local && !v[K_HOSTS]) {
		rc = ytree_fail(t, n, 0, "found no key 'hosts' in stage '%s', expected the "
				"groups or node sets it runs on", s->name);
		goto out;
	}
	if ((v[K_HOSTS] && (rc = parse_hosts(t, v[K_HOSTS], s))) ||
	    (v[K_PARAMS] && (rc = parse_params(t, v[K_PARAMS], s))) ||
	    (v[K_SERIAL] && (rc = parse_serial(t, v[K_SERIAL], s))) ||
	    (v[K_DEPENDS] && (rc = parse_depends(t, v[K_DEPENDS], pb, s))) ||
	    (v[K_TAGS] && (rc = parse_list(t, v[K_TAGS], "a tag", &s->tags))))
		goto out;
	if (v[K_MAXFAIL]) {
		unsigned x;

		if ((rc = ytree_uint(t, v[K_MAXFAIL], 0, 100, "'max_fail_percent'", &x)))
			goto out;
		s->max_fail_percent = (int)x;
	}
out:
	free(where);
	return rc;
}

int playbook_load_buf(const char *name, const char *buf, size_t len,
		      const struct stage_module *const *mods, size_t nmods,
		      struct playbook **ret, struct err *err)
{
	struct playbook *pb = xcalloc(1, sizeof(*pb));
	yaml_node_t *root, *v[4], *stages;
	struct ytree t;
	int rc;

	pb->path = xstrdup(name);
	rc = ytree_load(&t, pb->path, buf, len, err);
	if (rc)
		goto out;
	root = ytree_root(&t);
	if (!root) {
		rc = err_set(err, ERR_INVENTORY, "%s:1:1: found an empty playbook, expected "
			     "a mapping with 'stages'", name);
		goto out;
	}
	if ((rc = ytree_check_map(&t, root, top_keys, "the playbook", v)))
		goto out;
	pb->name = xstrdup(v[0] ? ytree_str(v[0]) : "playbook");
	stages = v[2];
	if (!ytree_seq_len(stages)) {
		rc = ytree_fail(&t, stages, 0, "found no stages, expected at least one");
		goto out;
	}
	pb->stages = xcalloc(ytree_seq_len(stages), sizeof(*pb->stages));
	for (size_t i = 0; i < ytree_seq_len(stages) && !rc; i++) {
		pb->nstages++;
		rc = parse_stage(&t, ytree_seq_item(&t, stages, i), pb, mods, nmods);
	}
out:
	ytree_release(&t);
	if (rc) {
		playbook_free(pb);
		return rc;
	}
	*ret = pb;
	return 0;
}

int playbook_load(const char *path, const struct stage_module *const *mods,
		  size_t nmods, struct playbook **ret, struct err *err)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *f = fopen(path, "r");
	char chunk[8192];
	size_t n;
	int rc;

	if (!f)
		return err_set(err, ERR_IO, "cannot open playbook %s: %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && sb.len < PLAYBOOK_MAX_BYTES)
		strbuf_add(&sb, chunk, n);
	if (ferror(f) || sb.len >= PLAYBOOK_MAX_BYTES) {
		fclose(f);
		strbuf_release(&sb);
		return err_set(err, ERR_IO, "cannot read playbook %s: %s", path,
			       sb.len ? "larger than 4 MiB" : strerror(errno));
	}
	fclose(f);
	rc = playbook_load_buf(path, sb.buf, sb.len, mods, nmods, ret, err);
	strbuf_release(&sb);
	return rc;
}

/* Splits "a,b[1,2],c" at commas outside brackets. */
static void split_selector(const char *s, struct strlist *out)
{
	const char *start = s;
	int depth = 0;

	for (;; s++) {
		if (*s == '[')
			depth++;
		else if (*s == ']' && depth)
			depth--;
		if (*s && (*s != ',' || depth))
			continue;
		if (s > start)
			strlist_push_owned(out, xstrndup(start, (size_t)(s - start)));
		if (!*s)
			break;
		start = s + 1;
	}
}

static int resolve_hosts(const struct playbook *pb, struct stage *s,
			 const struct inventory *inv, struct err *err)
{
	struct strlist items = STRLIST_INIT;
	struct strbuf sel = STRBUF_INIT;
	int rc = 0;

	split_selector(s->hosts, &items);
	for (size_t i = 0; i < items.n && !rc; i++) {
		int role = role_from_name(items.v[i]);

		/* An optional stage's empty group is a part of the cluster the
		 * inventory does not have (no Spectrum Scale): nothing to do. */
		if (role >= 0 && !inv->groups[role].hosts.n && s->optional)
			continue;
		if (role >= 0 && !inv->groups[role].hosts.n)
			rc = err_set(err, ERR_INVENTORY, "%s:%u:%u: stage '%s' runs on group '%s', "
				     "which has no hosts in %s; expected a group with hosts",
				     pb->path, s->line, s->col, s->name, items.v[i], inv->path);
		strbuf_addf(&sel, "%s%s", sel.len ? "," : "", items.v[i]);
	}
	strlist_clear(&items);
	if (!rc && !sel.len) {
		s->host_idx = xcalloc(1, sizeof(*s->host_idx));
		s->nhosts = 0;
	} else if (!rc && inventory_select(inv, sel.buf, &s->host_idx, &s->nhosts, err)) {
		rc = err_prefix(err, "%s:%u:%u: hosts of stage '%s': ", pb->path, s->line,
				s->col, s->name);
	}
	strbuf_release(&sel);
	return rc;
}

static json_t *param_default(const struct param_spec *p)
{
	if (p->type == PARAM_BOOL)
		return json_boolean(!strcmp(p->def ? p->def : "false", "true"));
	if (p->type == PARAM_UINT)
		return json_integer(p->def ? strtoll(p->def, NULL, 10) : 0);
	return p->def ? json_string(p->def) : json_null();
}

static const struct stage_param *find_param(const struct stage *s, const char *name)
{
	for (size_t i = 0; i < s->nparams; i++)
		if (!strcmp(s->params[i].name, name))
			return &s->params[i];
	return NULL;
}

size_t playbook_default_param(struct playbook *pb, const char *module, const char *name,
			      const char *value)
{
	size_t n = 0;

	for (size_t i = 0; i < pb->nstages; i++) {
		struct stage *s = &pb->stages[i];
		struct stage_param *sp;

		if (strcmp(s->module->name, module) || !module_param(s->module, name) ||
		    find_param(s, name))
			continue;
		s->params = xrealloc(s->params, (s->nparams + 1) * sizeof(*s->params));
		sp = &s->params[s->nparams++];
		*sp = (struct stage_param){ xstrdup(name), json_string(value), s->line, s->col };
		n++;
	}
	return n;
}

/* One parameter for one host; returns a new reference or NULL with err set. */
static json_t *param_for_host(const struct playbook *pb, const struct stage *s,
			      const struct param_spec *p, const struct host *h,
			      struct err *err)
{
	const struct stage_param *sp = find_param(s, p->name);
	json_t *v = NULL;
	const char *bad;
	char *var = NULL;

	if (sp && var_ref(sp->value, &var)) {
		v = json_object_get(h->vars, var);
		if (!v) {
			err_set(err, ERR_INVENTORY, "%s:%u:%u: parameter '%s' of stage '%s' "
				"refers to variable '%s', which host %s does not have",
				pb->path, sp->line, sp->col, p->name, s->name, var, h->name);
			free(var);
			return NULL;
		}
	} else if (sp) {
		v = sp->value;
	} else if (p->var && json_object_get(h->vars, p->var)) {
		var = xstrdup(p->var);
		v = json_object_get(h->vars, var);
	}
	v = v ? json_incref(v) : param_default(p);
	bad = param_check(p, v);
	if (bad) {
		if (var)
			err_set(err, ERR_INVENTORY, "%s:%u:%u: stage '%s': inventory variable "
				"'%s' of host %s (parameter '%s' of module '%s') is not %s",
				pb->path, s->line, s->col, s->name, var, h->name, p->name,
				s->module->name, bad);
		else
			err_set(err, ERR_INTERNAL, "module '%s': default of '%s' is not %s",
				s->module->name, p->name, bad);
		json_decref(v);
		v = NULL;
	}
	free(var);
	return v;
}

json_t *stage_params(const struct playbook *pb, const struct stage *s,
		     const struct host *h, struct err *err)
{
	json_t *obj = json_object();

	for (const struct param_spec *p = s->module->params; p && p->name; p++) {
		json_t *v = param_for_host(pb, s, p, h, err);

		if (!v) {
			json_decref(obj);
			return NULL;
		}
		json_object_set_new(obj, p->name, v);
	}
	return obj;
}

int playbook_resolve(struct playbook *pb, const struct inventory *inv, struct err *err)
{
	static const struct host local_host = { .name = "localhost" };

	for (size_t i = 0; i < pb->nstages; i++) {
		struct stage *s = &pb->stages[i];

		free(s->host_idx);
		s->host_idx = NULL;
		s->nhosts = 0;
		if (!s->local && resolve_hosts(pb, s, inv, err))
			return ERR_INVENTORY;
		s->absent = s->local && s->optional && s->module->applies &&
			    !s->module->applies(inv);
		if (s->absent)
			continue;
		for (size_t k = 0; k < (s->local ? 1 : s->nhosts); k++) {
			const struct host *h = s->local ? &local_host : &inv->hosts[s->host_idx[k]];
			json_t *obj;

			if (s->local) {
				/* A local stage sees the cluster's variables. */
				struct host lh = local_host;

				lh.vars = inv->vars;
				obj = stage_params(pb, s, &lh, err);
			} else {
				obj = stage_params(pb, s, h, err);
			}
			if (!obj)
				return err->code ? err->code : ERR_INVENTORY;
			json_decref(obj);
		}
	}
	return 0;
}

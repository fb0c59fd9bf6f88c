/*
 * kubectl's text views of nodes: `kubectl get nodes` (plain and -o wide)
 * and `kubectl describe node` (allocatable, conditions, taints). Both are
 * tables aligned by kubectl's tabwriter (printers/tablegenerator, describe's
 * tabbed writer): a cell starts at its header's column, so cells with
 * blanks in them ("CentOS Linux 7 (Core)", a condition's message) are cut
 * by the header's positions, never by words. `oc` prints the same.
 * `kubectl get nodes -o yaml` (or -o json, or one node's) is a document
 * instead, read with the project's YAML reader at the end of this file.
 */
#include "parse.h"
#include "parse-util.h"
#include "../base/xalloc.h"
#include "../base/yamltree.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define KUBE_MAX_COLS 16

/* A header's column names and where each starts (runs of 2+ blanks part
 * them); names are copies, owned. */
struct kube_cols {
	char *name[KUBE_MAX_COLS];
	size_t at[KUBE_MAX_COLS];
	size_t n;
};

static void kube_cols_release(struct kube_cols *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->name[i]);
	c->n = 0;
}

static void kube_cols_set(struct kube_cols *c, const char *s)
{
	size_t i = 0, len = strlen(s);

	kube_cols_release(c);
	while (i < len && c->n < KUBE_MAX_COLS) {
		size_t start = i, end;

		while (i < len && !(s[i] == ' ' && (i + 1 >= len || s[i + 1] == ' ')))
			i++;
		end = i;
		c->name[c->n] = xstrndup(s + start, end - start);
		c->at[c->n++] = start;
		while (i < len && s[i] == ' ')
			i++;
	}
}

/* Cell i of row s (trimmed; the last one takes the rest of the line); the
 * caller frees. A row shorter than the column gives "". */
static char *kube_cell(const struct kube_cols *c, const char *s, size_t i)
{
	size_t len = strlen(s), a = c->at[i], b = i + 1 < c->n ? c->at[i + 1] : len;
	char *v;

	if (a >= len)
		return xstrdup("");
	if (b > len)
		b = len;
	v = xstrndup(s + a, b - a);
	memmove(v, trim(v), strlen(trim(v)) + 1);
	return v;
}

/* A row's cells must begin where their columns do: the cell before each
 * column ends in a blank (or the row is shorter). */
static bool kube_row_aligned(const struct kube_cols *c, const char *s)
{
	size_t len = strlen(s);

	for (size_t i = 1; i < c->n; i++)
		if (c->at[i] < len && s[c->at[i] - 1] != ' ')
			return false;
	return true;
}

/* kubectl's own failures (cmd/util/helpers.go CheckErr: "error: ...";
 * client-go: "The connection to the server ... was refused", "Unable to
 * connect to the server: ...", "Error from server (...)"). */
static const char *const kubectl_failures[] = {
	"error: ", "Error from server", "The connection to the server ",
	"Unable to connect to the server", "error dialing backend",
};

/* ---- kubectl get nodes [-o wide] ---- */

static const char *const getnodes_required[] = { "NAME", "STATUS", "ROLES", "AGE", "VERSION" };

struct getnodes_state {
	json_t *root, *nodes;
	struct kube_cols cols;
};

static void getnodes_row(struct getnodes_state *st, const char *s)
{
	json_t *node = jarray_new_object(st->nodes);

	for (size_t i = 0; i < st->cols.n; i++) {
		char *v = kube_cell(&st->cols, s, i), *key = slug(st->cols.name[i]);

		for (char *p = key; *p; p++)
			if (*p == '-')
				*p = '_';
		if (!strcmp(key, "roles")) {
			json_t *roles = jarray_at(node, "roles");
			char *save = NULL;

			if (strcmp(v, "<none>"))
				for (char *r = strtok_r(v, ",", &save); r; r = strtok_r(NULL, ",", &save))
					json_array_append_new(roles, json_string(r));
		} else if (!strcmp(v, "<none>")) {
			json_object_set_new(node, key, json_null());
		} else {
			jset_str(node, key, v);
		}
		free(key);
		free(v);
	}
	/* "Ready", "NotReady", "Ready,SchedulingDisabled", "Unknown" */
	{
		const char *status = json_string_value(json_object_get(node, "status"));
		char *w;

		jset_bool(node, "ready", status && (!strcmp(status, "Ready") ||
						     skip_prefix(status, "Ready,")));
		jset_bool(node, "schedulable", status && !strstr(status, "SchedulingDisabled"));
		if (status && json_is_false(json_object_get(node, "ready"))) {
			w = xasprintf("%s: %s", json_string_value(json_object_get(node, "name")),
				      status);
			parse_warning(st->root, w);
			free(w);
		}
	}
}

static int getnodes_line(void *state, struct pline *ln, struct err *err)
{
	struct getnodes_state *st = state;
	const char *s = ln->text;

	if (!*s || parse_tool_line(st->root, "kubectl", s, kubectl_failures,
				   ARRAY_SIZE(kubectl_failures), "Warning: "))
		return 0;
	if (!strcmp(s, "No resources found") || skip_prefix(s, "No resources found ")) {
		jset_bool(st->root, "empty", 1);
		return 0;
	}
	if (!st->cols.n) {
		kube_cols_set(&st->cols, s);
		if (st->cols.n < ARRAY_SIZE(getnodes_required))
			goto not_kubectl;
		for (size_t i = 0; i < ARRAY_SIZE(getnodes_required); i++)
			if (strcmp(st->cols.name[i], getnodes_required[i]))
				goto not_kubectl;
		jset_str(st->root, "format", st->cols.n > 5 && !strcmp(st->cols.name[5],
								       "INTERNAL-IP") ? "wide" : "plain");
		return 0;
	}
	if (ln->indent || !kube_row_aligned(&st->cols, s))
		return pline_error(ln, err, "row not aligned with the NAME STATUS ... header");
	getnodes_row(st, s);
	return 0;
not_kubectl:
	/* -o yaml or -o json of the same command: say which parser reads it */
	if (skip_prefix(s, "apiVersion:") || !strcmp(s, "{"))
		return parse_not_tool(ln->tool, err, "a document: kubectl-get-nodes-yaml reads it");
	return parse_not_tool(ln->tool, err, "no 'NAME STATUS ROLES AGE VERSION' header");
}

int parse_kubectl_get_nodes(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct getnodes_state st = { json_object(), NULL, { { 0 }, { 0 }, 0 } };
	int rc;

	st.nodes = jarray_at(st.root, "nodes");
	rc = parse_lines("kubectl-get-nodes", buf, len, getnodes_line, &st, err);
	kube_cols_release(&st.cols);
	if (!rc && !json_object_get(st.root, "format") && !parse_failed(st.root) &&
	    !json_object_get(st.root, "empty"))
		rc = parse_not_tool("kubectl-get-nodes", err, "no header");
	return parse_done(rc, st.root, ret);
}

/* ---- kubectl describe node ---- */

enum dn_section { DN_NONE, DN_LABELS, DN_TAINTS, DN_CONDITIONS, DN_CAPACITY, DN_ALLOCATABLE,
		  DN_ALLOCATED, DN_SKIP };

struct dn_state {
	json_t *root;
	enum dn_section sec;
	struct kube_cols cols;
	bool node_field;          /* a field only a node's description has */
};

/* Top-level fields of a node's description (k8s.io/kubectl describe.go,
 * describeNode); what is not read is skipped with its indented lines. */
static const struct {
	const char *key;
	enum dn_section sec;
	bool node_only;
} dn_fields[] = {
	{ "Name", DN_NONE, false }, { "Roles", DN_NONE, true }, { "Labels", DN_LABELS, false },
	{ "Annotations", DN_SKIP, false }, { "CreationTimestamp", DN_NONE, false },
	{ "Taints", DN_TAINTS, true }, { "Unschedulable", DN_NONE, true },
	{ "Lease", DN_SKIP, true }, { "Conditions", DN_CONDITIONS, false },
	{ "Addresses", DN_SKIP, true }, { "Capacity", DN_CAPACITY, true },
	{ "Allocatable", DN_ALLOCATABLE, true }, { "System Info", DN_SKIP, true },
	{ "PodCIDR", DN_NONE, true }, { "PodCIDRs", DN_NONE, true },
	{ "ProviderID", DN_NONE, true }, { "Non-terminated Pods", DN_SKIP, true },
	{ "Allocated resources", DN_ALLOCATED, true }, { "Events", DN_SKIP, false },
};

/* "nvidia.com/gpu=present:NoSchedule" or "node-role.kubernetes.io/master:NoSchedule" */
static void dn_taint(json_t *root, char *s)
{
	char *effect = strrchr(s, ':'), *eq;
	json_t *t;

	if (!strcmp(s, "<none>")) {
		jarray_at(root, "taints");
		return;
	}
	t = jarray_new_object(jarray_at(root, "taints"));
	if (effect)
		*effect++ = '\0';
	if ((eq = strchr(s, '=')))
		*eq++ = '\0';
	jset_str(t, "key", s);
	jset_str(t, "value", eq);
	jset_str(t, "effect", effect);
}

static void dn_label(json_t *root, char *s)
{
	char *eq = strchr(s, '=');

	if (!strcmp(s, "<none>"))
		return;
	if (eq)
		*eq++ = '\0';
	jset_str(jobject_at(root, "labels"), s, eq ? eq : "");
}

/* A row of the Conditions or Allocated resources table. */
static void dn_table_row(struct dn_state *st, const char *s)
{
	char *first = kube_cell(&st->cols, s, 0);

	if (st->sec == DN_CONDITIONS) {
		json_t *c = jarray_new_object(jarray_at(st->root, "conditions"));

		for (size_t i = 0; i < st->cols.n; i++) {
			char *v = kube_cell(&st->cols, s, i), *key = slug(st->cols.name[i]);

			jset_str(c, key, v);
			free(key);
			free(v);
		}
	} else {
		json_t *r = jobject_at(jobject_at(st->root, "allocated"), first);

		for (size_t i = 1; i < st->cols.n; i++) {
			char *v = kube_cell(&st->cols, s, i), *key = slug(st->cols.name[i]);

			jset_str(r, key, v);
			free(key);
			free(v);
		}
	}
	free(first);
}

static int dn_indented(struct dn_state *st, struct pline *ln, struct err *err)
{
	char *s = ln->text, *k, *v;

	switch (st->sec) {
	case DN_LABELS:
		dn_label(st->root, s);
		return 0;
	case DN_TAINTS:
		dn_taint(st->root, s);
		return 0;
	case DN_CAPACITY:
	case DN_ALLOCATABLE:
		if (!split_kv(s, ':', &k, &v))
			return pline_error(ln, err, "expected 'resource: quantity'");
		jset_str(jobject_at(st->root, st->sec == DN_CAPACITY ? "capacity" : "allocatable"),
			 k, v);
		return 0;
	case DN_CONDITIONS:
	case DN_ALLOCATED:
		if (*s == '(' || all_of(s, '-') || (st->cols.n && s[0] == '-'))
			return 0; /* "(Total limits may be over 100 percent...)", rules */
		if (!st->cols.n) {
			kube_cols_set(&st->cols, s);
			return 0;
		}
		if (!kube_row_aligned(&st->cols, s))
			return pline_error(ln, err, "row not aligned with its header");
		dn_table_row(st, s);
		return 0;
	case DN_SKIP:
		return 0;
	case DN_NONE:
	default:
		return pline_error(ln, err, "an indented line under no section");
	}
}

static int dn_line(void *state, struct pline *ln, struct err *err)
{
	struct dn_state *st = state;
	char *s = ln->text, *colon, *val;

	if (!*s)
		return 0;
	if (!ln->indent && parse_tool_line(st->root, "kubectl", s, kubectl_failures,
					   ARRAY_SIZE(kubectl_failures), NULL))
		return 0;
	if (ln->indent)
		return dn_indented(st, ln, err);
	colon = strchr(s, ':');
	if (!colon)
		return parse_not_tool(ln->tool, err, "a line that is no 'Field: value'");
	*colon = '\0';
	val = trim(colon + 1);
	kube_cols_release(&st->cols);
	for (size_t i = 0; i < ARRAY_SIZE(dn_fields); i++) {
		if (strcmp(dn_fields[i].key, s))
			continue;
		st->sec = dn_fields[i].sec;
		st->node_field |= dn_fields[i].node_only;
		/* a table or list section has its lines below it, never a
		 * value on its own line */
		if (*val && (st->sec == DN_CONDITIONS || st->sec == DN_CAPACITY ||
			     st->sec == DN_ALLOCATABLE || st->sec == DN_ALLOCATED))
			return pline_error(ln, err, "a section with a value on its own line");
		if (!strcmp(s, "Name"))
			jset_str(st->root, "name", val);
		else if (!strcmp(s, "Roles") && strcmp(val, "<none>"))
			jset_str(st->root, "roles", val);
		else if (!strcmp(s, "Unschedulable"))
			jset_bool(st->root, "unschedulable", !strcmp(val, "true"));
		else if (!strcmp(s, "CreationTimestamp"))
			jset_str(st->root, "creation_timestamp", val);
		else if (st->sec == DN_LABELS && *val)
			dn_label(st->root, val);
		else if (st->sec == DN_TAINTS && *val)
			dn_taint(st->root, val);
		return 0;
	}
	/* a pod's or another object's description ("Namespace:", "Node:") */
	return parse_not_tool(ln->tool, err, "a field a node's description does not have");
}

/* Ready not True, or a pressure condition True, is worth a warning. */
static void dn_warnings(json_t *root)
{
	json_t *c;
	size_t i;

	json_array_foreach(json_object_get(root, "conditions"), i, c) {
		const char *type = json_string_value(json_object_get(c, "type"));
		const char *status = json_string_value(json_object_get(c, "status"));
		char *w;

		if (!type || !status)
			continue;
		if (!strcmp(type, "Ready"))
			jset_bool(root, "ready", !strcmp(status, "True"));
		if (!strcmp(type, "Ready") ? !strcmp(status, "True") : !strcmp(status, "False"))
			continue;
		w = xasprintf("%s is %s: %s", type, status,
			      json_string_value(json_object_get(c, "message")) ?
			      json_string_value(json_object_get(c, "message")) : "");
		parse_warning(root, w);
		free(w);
	}
}

int parse_kubectl_describe_node(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct dn_state st = { json_object(), DN_NONE, { { 0 }, { 0 }, 0 }, false };
	int rc = parse_lines("kubectl-describe-node", buf, len, dn_line, &st, err);

	kube_cols_release(&st.cols);
	if (!rc && !st.node_field && !parse_failed(st.root))
		rc = parse_not_tool("kubectl-describe-node", err,
				    "no Capacity, Allocatable, Taints or Allocated resources");
	if (!rc)
		dn_warnings(st.root);
	return parse_done(rc, st.root, ret);
}

/* ---- kubectl get nodes -o yaml, kubectl get node NAME -o yaml ---- */

/*
 * kubectl's YAML printer (printers.YAMLPrinter) writes the API objects as
 * the server returns them: one `kind: Node`, or for more than one name or
 * none a `kind: List` whose `items:` are Nodes (keys sorted, so a List's
 * `kind:` comes after its items: a capture cut short has none). The
 * document is read with the project's YAML reader (alias, depth and size
 * limits included) and walked as JSON; the fields the table views show are
 * computed as kubectl's printers compute them (printers/internalversion
 * printNode: roles from node-role.kubernetes.io/ROLE labels and
 * kubernetes.io/role, status from the Ready condition, SchedulingDisabled
 * from spec.unschedulable), so the three forms give the same keys.
 */

#define GNY "kubectl-get-nodes-yaml"

/* A scalar of the document as text: kubectl quotes the quantities and
 * label values that would read as numbers or booleans, a hand-written one
 * may not; either way the value is the text. NULL for maps and lists. */
static char *gny_text(json_t *v)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v) || json_is_real(v) || json_is_boolean(v) || json_is_null(v))
		return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	return NULL;
}

/* Copies a map of scalars (labels, capacity, allocatable) as strings. */
static int gny_string_map(json_t *node, const char *key, json_t *from)
{
	json_t *to = jobject_at(node, key), *v;
	const char *k;

	if (!from || json_is_null(from))
		return 0;
	if (!json_is_object(from))
		return -1;
	json_object_foreach(from, k, v) {
		char *s = gny_text(v);

		if (!s)
			return -1;
		jset_str(to, k, s);
		free(s);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* kubectl's ROLES: the ROLE of each node-role.kubernetes.io/ROLE label and
 * the value of kubernetes.io/role, sorted, each once. */
static void gny_roles(json_t *node, json_t *labels)
{
	json_t *roles = jarray_at(node, "roles"), *v;
	const char *k, *r, *list[64];
	size_t n = 0;

	json_object_foreach(labels, k, v) {
		r = skip_prefix(k, "node-role.kubernetes.io/");
		if (!r && !strcmp(k, "kubernetes.io/role"))
			r = json_string_value(v);
		if (r && *r && n < ARRAY_SIZE(list))
			list[n++] = r;
	}
	qsort(list, n, sizeof(list[0]), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(list[i], list[i - 1]))
			json_array_append_new(roles, json_string(list[i]));
}

static void gny_addresses(json_t *node, json_t *addresses)
{
	json_t *a;
	size_t i;

	/* -o wide prints <none> for a missing address */
	json_object_set_new(node, "internal_ip", json_null());
	json_object_set_new(node, "external_ip", json_null());
	json_array_foreach(addresses, i, a) {
		const char *type = json_string_value(json_object_get(a, "type"));
		const char *addr = json_string_value(json_object_get(a, "address"));

		/* the first of each type, as kubectl's getNodeExternalIP/InternalIP */
		if (type && addr && !strcmp(type, "InternalIP") &&
		    json_is_null(json_object_get(node, "internal_ip")))
			jset_str(node, "internal_ip", addr);
		else if (type && addr && !strcmp(type, "ExternalIP") &&
			 json_is_null(json_object_get(node, "external_ip")))
			jset_str(node, "external_ip", addr);
	}
}

/* The Ready condition's status, or NULL when the node has none. */
static const char *gny_ready(json_t *conditions)
{
	const char *ready = NULL, *type;
	json_t *c;
	size_t i;

	json_array_foreach(conditions, i, c)
		if ((type = json_string_value(json_object_get(c, "type"))) && !strcmp(type, "Ready"))
			ready = json_string_value(json_object_get(c, "status"));
	return ready;
}

/* Conditions as describe-node gives them, and its warnings with the node's
 * name: Ready not True, any other condition not False (pressure, network
 * unavailable). */
static void gny_conditions(json_t *root, json_t *node, const char *name, json_t *conditions)
{
	json_t *out = jarray_at(node, "conditions"), *c;
	size_t i;

	json_array_foreach(conditions, i, c) {
		const char *type = json_string_value(json_object_get(c, "type"));
		const char *status = json_string_value(json_object_get(c, "status"));
		const char *msg = json_string_value(json_object_get(c, "message"));
		json_t *o;
		char *w;

		if (!type || !status)
			continue;
		o = jarray_new_object(out);
		jset_str(o, "type", type);
		jset_str(o, "status", status);
		jset_str(o, "reason", json_string_value(json_object_get(c, "reason")));
		jset_str(o, "message", msg);
		if (!strcmp(type, "Ready") ? !strcmp(status, "True") : !strcmp(status, "False"))
			continue;
		w = xasprintf("%s: %s is %s: %s", name, type, status, msg ? msg : "");
		parse_warning(root, w);
		free(w);
	}
}

static void gny_taints(json_t *node, json_t *taints)
{
	json_t *arr = jarray_at(node, "taints"), *t;
	size_t i;

	json_array_foreach(taints, i, t) {
		json_t *o = jarray_new_object(arr);

		jset_str(o, "key", json_string_value(json_object_get(t, "key")));
		jset_str(o, "value", json_string_value(json_object_get(t, "value")));
		jset_str(o, "effect", json_string_value(json_object_get(t, "effect")));
	}
}

/* One Node object into nodes[]; what a Node always has (a name, its
 * kubelet's nodeInfo, conditions) missing says the document is not whole. */
static int gny_node(json_t *root, json_t *obj, const char *where, struct err *err)
{
	json_t *meta = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec");
	json_t *status = json_object_get(obj, "status");
	json_t *info = json_object_get(status, "nodeInfo"), *labels, *node;
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	const char *name = json_string_value(json_object_get(meta, "name"));
	const char *ready, *version = json_string_value(json_object_get(info, "kubeletVersion"));
	bool unsched = json_is_true(json_object_get(spec, "unschedulable"));
	char *st;

	if (!kind || strcmp(kind, "Node"))
		return parse_not_tool(GNY, err, kind ? "a List of objects that are not Nodes" :
				      "a List item without a kind");
	if (!name)
		return err_set(err, ERR_PARSE, "%s: %s: a Node without metadata.name", GNY, where);
	if (!version || !json_is_array(json_object_get(status, "conditions")))
		return err_set(err, ERR_PARSE, "%s: %s: Node '%s' has no status.nodeInfo or "
			       "status.conditions (cut short?)", GNY, where, name);
	node = jarray_new_object(jarray_at(root, "nodes"));
	jset_str(node, "name", name);
	labels = json_object_get(meta, "labels");
	ready = gny_ready(json_object_get(status, "conditions"));
	/* kubectl: Ready, NotReady, or Unknown without a Ready condition */
	st = xasprintf("%s%s", !ready ? "Unknown" : !strcmp(ready, "True") ? "Ready" : "NotReady",
		       unsched ? ",SchedulingDisabled" : "");
	jset_str(node, "status", st);
	free(st);
	jset_bool(node, "ready", ready && !strcmp(ready, "True"));
	jset_bool(node, "schedulable", !unsched);
	jset_bool(node, "unschedulable", unsched);
	gny_roles(node, labels);
	jset_str(node, "version", version);
	gny_addresses(node, json_object_get(status, "addresses"));
	jset_str(node, "os_image", json_string_value(json_object_get(info, "osImage")));
	jset_str(node, "kernel_version", json_string_value(json_object_get(info, "kernelVersion")));
	jset_str(node, "container_runtime",
		 json_string_value(json_object_get(info, "containerRuntimeVersion")));
	jset_str(node, "architecture", json_string_value(json_object_get(info, "architecture")));
	jset_str(node, "creation_timestamp",
		 json_string_value(json_object_get(meta, "creationTimestamp")));
	if (gny_string_map(node, "labels", labels) ||
	    gny_string_map(node, "capacity", json_object_get(status, "capacity")) ||
	    gny_string_map(node, "allocatable", json_object_get(status, "allocatable")))
		return err_set(err, ERR_PARSE, "%s: %s: Node '%s': labels, capacity or "
			       "allocatable that is not a map of values", GNY, where, name);
	gny_taints(node, json_object_get(spec, "taints"));
	gny_conditions(root, node, name, json_object_get(status, "conditions"));
	if (!ready) {
		char *w = xasprintf("%s: no Ready condition", name);

		parse_warning(root, w);
		free(w);
	}
	return 0;
}

/* The document as JSON: a Node, or a List of Nodes. */
static int gny_document(json_t *root, json_t *doc, struct err *err)
{
	const char *kind = json_string_value(json_object_get(doc, "kind"));
	json_t *items = json_object_get(doc, "items"), *it;
	size_t i;

	if (!json_is_object(doc) || !json_is_string(json_object_get(doc, "apiVersion")))
		return parse_not_tool(GNY, err, "no Kubernetes object (apiVersion, kind)");
	if (!kind && json_is_array(items))
		return err_set(err, ERR_PARSE, "%s: a List cut short: no 'kind' after its items",
			       GNY);
	if (kind && !strcmp(kind, "Node")) {
		jset_str(root, "kind", "Node");
		return gny_node(root, doc, "the Node", err);
	}
	if (!kind || strcmp(kind, "List") || !json_is_array(items)) {
		char why[96];

		snprintf(why, sizeof(why), "a %.40s, neither a Node nor a List of Nodes",
			 kind ? kind : "List without items");
		return parse_not_tool(GNY, err, why);
	}
	jset_str(root, "kind", "List");
	json_array_foreach(items, i, it) {
		char where[32];
		int rc;

		snprintf(where, sizeof(where), "item %zu", i);
		if ((rc = gny_node(root, it, where, err)))
			return rc;
	}
	jarray_at(root, "nodes");
	if (!json_array_size(items))
		jset_bool(root, "empty", 1);
	return 0;
}

int parse_kubectl_get_nodes_yaml(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object(), *doc;
	struct ytree t;
	size_t at = 0;
	bool json;
	int rc;

	/* kubectl's own failure or warning lines (stderr captured too) come
	 * before any YAML; what follows them is the document */
	while (at < len) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - buf) : len;
		char *line = xstrndup(buf + at, end - at), *s = trim(line);
		bool data = *s && !parse_tool_line(root, "kubectl", s, kubectl_failures,
						   ARRAY_SIZE(kubectl_failures), "Warning: ");

		free(line);
		if (data)
			break;
		at = nl ? end + 1 : len;
	}
	if (at == len) {
		if (json_is_false(json_object_get(root, "ok")))
			rc = 0;
		else if (json_object_get(root, "warnings"))
			rc = parse_not_tool(GNY, err, "only kubectl's warnings");
		else
			rc = err_set(err, ERR_PARSE, "%s: no %s output", GNY, GNY);
		return parse_done(rc, root, ret);
	}
	/* not a YAML mapping at its first line: another tool's text */
	json = buf[at] == '{';
	if (!json && len - at >= 5 && !memcmp(buf + at, "NAME ", 5))
		return parse_done(parse_not_tool(GNY, err, "a table: kubectl-get-nodes reads it"),
				  root, ret);
	if (!json && (len - at < 11 || memcmp(buf + at, "apiVersion:", 11)))
		return parse_done(parse_not_tool(GNY, err, "no 'apiVersion:' first"), root, ret);
	rc = ytree_load(&t, GNY, buf + at, len - at, err);
	if (!rc && !ytree_root(&t))
		rc = parse_not_tool(GNY, err, "an empty document");
	if (!rc) {
		doc = ytree_to_json(&t, ytree_root(&t), "the document");
		rc = doc ? gny_document(root, doc, err) : ERR_PARSE;
		json_decref(doc);
	}
	ytree_release(&t);
	if (!rc) {
		/* -o json reads the same: JSON is YAML's flow style */
		jset_str(root, "format", json ? "json" : "yaml");
		parse_failed(root);
	}
	return parse_done(rc, root, ret);
}

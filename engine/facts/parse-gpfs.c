/*
 * IBM Spectrum Scale (GPFS) administration commands: mmgetstate,
 * mmlscluster, mmlsconfig, mmlsmount, mmremotecluster show, mmremotefs show,
 * mmlsnodeclass, mmlsmgr, mmlsfileset, mmlslicense -Y.
 */
#include "parse.h"
#include "parse-util.h"
#include "../base/xalloc.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Underlines ("-----", "=====") carry nothing. */
static int is_rule(const char *s)
{
	return all_of(s, '-') || all_of(s, '=');
}

/* Rows of a table under a header line; keys name the columns. */
struct table_state {
	json_t *root, *rows;
	const char *header;        /* how the header line starts */
	const char *const *keys;
	size_t nkeys, min_cols;
	int seen_header;
};

static int table_line(void *state, struct pline *ln, struct err *err)
{
	struct table_state *st = state;
	char *tok[16];
	size_t n;

	if (!*ln->text || is_rule(ln->text))
		return 0;
	if (!st->seen_header) {
		if (!skip_prefix(ln->text, st->header))
			return pline_error(ln, err, "expected the column header");
		st->seen_header = 1;
		return 0;
	}
	n = split_ws(ln->text, tok, st->nkeys);
	if (n < st->min_cols)
		return pline_error(ln, err, "too few columns");
	jarray_add_row(st->rows, st->keys, st->nkeys, tok, n);
	return 0;
}

static int table_parse(struct table_state *st, const char *tool,
		       const char *rows_key, const char *buf, size_t len,
		       json_t **ret, struct err *err)
{
	int rc;

	st->root = json_object();
	st->rows = jarray_at(st->root, rows_key);
	rc = parse_lines(tool, buf, len, table_line, st, err);
	if (!rc && !json_array_size(st->rows))
		rc = parse_error_end(tool, err, "no rows");
	return parse_done(rc, st->root, ret);
}

/* mmgetstate -a; with -L the quorum columns come before the state. */
static const char *const getstate_keys[] = { "number", "name", "state" };
static const char *const getstate_l_keys[] = {
	"number", "name", "quorum", "nodes_up", "total_nodes", "state", "remarks",
};

/*
 * After the table mmgetstate may say "mmgetstate: The following nodes could
 * not be reached:" and list them, one a line: each becomes a row with the
 * state "unreachable" (so that a quorum count sees it as not active) and
 * goes to "unreachable". Its other "mmgetstate: ..." lines are its own
 * failure (parse.h).
 */
struct getstate_state {
	struct table_state table;
	bool unreachable;    /* in the list of nodes it could not reach */
};

static const char *const getstate_failures[] = { "mmgetstate: " };

static int getstate_line(void *state, struct pline *ln, struct err *err)
{
	struct getstate_state *st = state;
	json_t *row;

	if (skip_prefix(ln->text, "mmgetstate: The following nodes could not be reached")) {
		st->unreachable = true;
		parse_warning(st->table.root, ln->text);
		return 0;
	}
	if (st->unreachable && *ln->text && !strchr(ln->text, ' ') &&
	    !skip_prefix(ln->text, "mmgetstate:")) {
		row = jarray_new_object(st->table.rows);
		jset_str(row, "name", ln->text);
		jset_str(row, "state", "unreachable");
		json_array_append_new(jarray_at(st->table.root, "unreachable"),
				      json_string(ln->text));
		return 0;
	}
	if (parse_tool_line(st->table.root, ln->tool, ln->text, getstate_failures,
			    ARRAY_SIZE(getstate_failures), NULL))
		return 0;
	if (st->unreachable && *ln->text)
		return pline_error(ln, err, "expected a node name");
	return table_line(&st->table, ln, err);
}

int parse_mmgetstate(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct getstate_state st = { 0 };
	const char *nl = memchr(buf, '\n', len);
	size_t first = nl ? (size_t)(nl - buf) : len;
	int long_form = memmem(buf, first, "Quorum", 6) != NULL, rc;

	st.table.header = "Node number";
	st.table.keys = long_form ? getstate_l_keys : getstate_keys;
	st.table.nkeys = long_form ? ARRAY_SIZE(getstate_l_keys) : ARRAY_SIZE(getstate_keys);
	st.table.min_cols = long_form ? 6 : 3;
	st.table.root = json_object();
	st.table.rows = jarray_at(st.table.root, "nodes");
	rc = parse_lines("mmgetstate", buf, len, getstate_line, &st, err);
	if (!rc && !json_array_size(st.table.rows) && !parse_failed(st.table.root))
		rc = parse_error_end("mmgetstate", err, "no rows");
	if (!rc)
		parse_failed(st.table.root);
	return parse_done(rc, st.table.root, ret);
}

static const char *const remotefs_keys[] = {
	"local_name", "remote_name", "cluster", "mount_point", "mount_options",
	"automount", "drive", "priority",
};

int parse_mmremotefs(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct table_state st = { 0 };

	st.header = "Local Name";
	st.keys = remotefs_keys;
	st.nkeys = st.min_cols = ARRAY_SIZE(remotefs_keys);
	return table_parse(&st, "mmremotefs", "filesystems", buf, len, ret, err);
}

/* mmlscluster: "key: value" cluster facts, then the node table. */
static const char *const lscluster_keys[] = {
	"number", "daemon_node_name", "ip_address", "admin_node_name", "designation",
};

static int lscluster_line(void *state, struct pline *ln, struct err *err)
{
	struct table_state *st = state;
	char *key, *val, *name;

	if (st->seen_header)
		return table_line(st, ln, err);
	if (!*ln->text || is_rule(ln->text))
		return 0;
	if (skip_prefix(ln->text, "Node ") && strstr(ln->text, "Daemon node name"))
		return table_line(st, ln, err);
	if (!strcmp(ln->text, "GPFS cluster information")) {
		jobject_at(st->root, "cluster");
		return 0;
	}
	if (!strcmp(ln->text, "GPFS cluster configuration servers:"))
		return 0;
	if (!json_object_get(st->root, "cluster"))
		return pline_error(ln, err, "expected 'GPFS cluster information'");
	if (!split_kv(ln->text, ':', &key, &val))
		return pline_error(ln, err, "expected 'key: value'");
	name = slug(key);
	jset_str(jobject_at(st->root, "cluster"), name, val);
	free(name);
	return 0;
}

int parse_mmlscluster(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct table_state st = { 0 };
	int rc;

	st.header = "Node ";
	st.keys = lscluster_keys;
	st.nkeys = ARRAY_SIZE(lscluster_keys);
	st.min_cols = 4; /* nodes without a designation leave it blank */
	st.root = json_object();
	st.rows = jarray_at(st.root, "nodes");
	rc = parse_lines("mmlscluster", buf, len, lscluster_line, &st, err);
	if (!rc && !json_object_get(st.root, "cluster"))
		rc = parse_error_end("mmlscluster", err, "no cluster information");
	return parse_done(rc, st.root, ret);
}

/* mmlsconfig: "name value" settings grouped by [node class] stanza. */

/* Attribute names are identifiers: pagepool, verbsRdma, maxMBpS. */
static int is_attribute(const char *s)
{
	if (!isalpha((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}
struct lsconfig_state {
	json_t *root;
	/* the current stanza's objects (borrowed): one per name of it, since
	 * mmlsconfig folds the nodes and classes that share a value into one
	 * stanza, "[dgx01,dgx02]" */
	json_t *settings;
	int in_filesystems;
};

/* A stanza's names, each an entry of "nodeclasses" that its lines set. */
static int lsconfig_stanza(struct lsconfig_state *st, char *names)
{
	json_t *classes = jobject_at(st->root, "nodeclasses");
	char *save = NULL;

	json_decref(st->settings);
	st->settings = json_array();
	for (char *n = strtok_r(names, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		n = trim(n);
		if (!*n)
			return -1;
		json_array_append(st->settings, jobject_at(classes, n));
	}
	return json_array_size(st->settings) ? 0 : -1;
}

static int lsconfig_line(void *state, struct pline *ln, struct err *err)
{
	struct lsconfig_state *st = state;
	char *s = ln->text, *tok[2], *p;

	if (!*s || is_rule(s))
		return 0;
	if ((p = skip_prefix(s, "Configuration data for cluster "))) {
		size_t n = strlen(p);

		if (n && p[n - 1] == ':')
			p[n - 1] = '\0';
		jset_str(st->root, "cluster", p);
		return 0;
	}
	if (skip_prefix(s, "File systems in cluster ")) {
		st->in_filesystems = 1;
		jarray_at(st->root, "filesystems");
		return 0;
	}
	if (st->in_filesystems) {
		if (strcmp(s, "(none)"))
			json_array_append_new(jarray_at(st->root, "filesystems"),
					      json_string(s));
		return 0;
	}
	if (*s == '[') {
		if (s[strlen(s) - 1] != ']' || strlen(s) < 3)
			return pline_error(ln, err, "bad [node class] line");
		s[strlen(s) - 1] = '\0';
		if (strstr(s, ",,") || s[1] == ',' || s[strlen(s) - 1] == ',')
			return pline_error(ln, err, "bad [node class] line");
		if (lsconfig_stanza(st, s + 1))
			return pline_error(ln, err, "bad [node class] line");
		return 0;
	}
	if (ln->indent || split_ws(s, tok, 2) != 2 || !is_attribute(tok[0]))
		return pline_error(ln, err, "expected 'attribute value'");
	if (!st->settings && !json_object_get(st->root, "cluster"))
		return pline_error(ln, err, "expected 'Configuration data for cluster' or '[node class]' first");
	if (!st->settings) { /* before any stanza: applies to all nodes */
		char common[] = "common";

		lsconfig_stanza(st, common);
	}
	{
		size_t i;
		json_t *o;

		json_array_foreach(st->settings, i, o)
			jset_str(o, tok[0], tok[1]);
	}
	return 0;
}

int parse_mmlsconfig(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct lsconfig_state st = { 0 };
	int rc;

	st.root = json_object();
	rc = parse_lines("mmlsconfig", buf, len, lsconfig_line, &st, err);
	json_decref(st.settings);
	return parse_done(rc, st.root, ret);
}

/* mmlsmount: "File system fs1 (cluster:remote) is mounted on 7 nodes:" and
 * with -L one "ip node cluster" line per node. */
static int lsmount_header(json_t *fss, char *p)
{
	char *rest = strchr(p, ' '), *close;
	json_t *fs;
	long long nodes;

	if (!rest)
		return -1;
	*rest++ = '\0';
	fs = jarray_new_object(fss);
	jset_str(fs, "name", p);
	jarray_at(fs, "nodes");
	if (*rest == '(' && (close = strchr(rest, ')'))) {
		*close = '\0';
		jset_str(fs, "remote", rest + 1);
		rest = trim(close + 1);
	}
	if (!strcmp(rest, "is not mounted.")) {
		jset_int(fs, "mounted_on", 0);
		return 0;
	}
	if (sscanf(rest, "is mounted on %lld node", &nodes) != 1)
		return -1;
	jset_int(fs, "mounted_on", nodes);
	return 0;
}

static const char *const lsmount_keys[] = { "ip", "node", "cluster" };

static int lsmount_line(void *state, struct pline *ln, struct err *err)
{
	json_t *fss = state, *fs;
	char *tok[3], *p;
	size_t n;

	if (!*ln->text)
		return 0;
	if ((p = skip_prefix(ln->text, "File system "))) {
		if (lsmount_header(fss, p))
			return pline_error(ln, err, "bad 'File system' line");
		return 0;
	}
	fs = json_array_get(fss, json_array_size(fss) - 1);
	if (!fs || ln->indent == 0)
		return pline_error(ln, err, "expected 'File system ... is mounted on N nodes'");
	n = split_ws(ln->text, tok, 3);
	if (n < 2)
		return pline_error(ln, err, "expected 'address node [cluster]'");
	jarray_add_row(json_object_get(fs, "nodes"), lsmount_keys, 3, tok, n);
	return 0;
}

/* With -L the nodes are listed under the count; a count that differs from
 * the nodes listed (mmlsmount counts a node twice, or an excerpt lost one)
 * is said, never guessed at: "fs1: mounted on 7 nodes, 6 listed". */
static void lsmount_check_counts(json_t *root)
{
	json_t *fs;
	size_t i;

	json_array_foreach(json_object_get(root, "filesystems"), i, fs) {
		size_t listed = json_array_size(json_object_get(fs, "nodes"));
		long long count = json_integer_value(json_object_get(fs, "mounted_on"));
		char *w;

		if (!listed || (long long)listed == count)
			continue;
		w = xasprintf("%s: mounted on %lld nodes, %zu listed",
			      json_string_value(json_object_get(fs, "name")), count, listed);
		parse_warning(root, w);
		free(w);
	}
}

int parse_mmlsmount(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();
	int rc = parse_lines("mmlsmount", buf, len, lsmount_line,
			     jarray_at(root, "filesystems"), err);

	if (!rc)
		lsmount_check_counts(root);
	return parse_done(rc, root, ret);
}

/* mmremotecluster show: one "Key: value" stanza per remote cluster. */
static void remotecluster_fs(json_t *c, char *val)
{
	json_t *fss = jarray_at(c, "file_systems");
	char *tok[2];

	/* "fs1 (ess3k_fs1)": local name, then the remote name in brackets */
	while (*val && split_ws(val, tok, 2) == 2 && *tok[1] == '(') {
		char *close = strchr(tok[1], ')');
		json_t *fs;

		if (!close)
			break;
		*close = '\0';
		fs = jarray_new_object(fss);
		jset_str(fs, "local", tok[0]);
		jset_str(fs, "remote", tok[1] + 1);
		val = trim(close + 1);
		if (*val == ',')
			val = trim(val + 1);
	}
}

static int remotecluster_line(void *state, struct pline *ln, struct err *err)
{
	json_t *clusters = state, *c;
	char *key, *val, *name, *node, *save = NULL;

	if (!*ln->text)
		return 0;
	if (!split_kv(ln->text, ':', &key, &val))
		return pline_error(ln, err, "expected 'key: value'");
	if (!strcmp(key, "Cluster name"))
		jarray_new_object(clusters);
	c = json_array_get(clusters, json_array_size(clusters) - 1);
	if (!c)
		return pline_error(ln, err, "expected 'Cluster name:' first");
	if (!strcmp(key, "Contact nodes")) {
		json_t *nodes = jarray_at(c, "contact_nodes");

		for (node = strtok_r(val, ",", &save); node;
		     node = strtok_r(NULL, ",", &save))
			json_array_append_new(nodes, json_string(trim(node)));
		return 0;
	}
	if (!strcmp(key, "File systems")) {
		remotecluster_fs(c, val);
		return 0;
	}
	name = slug(key);
	jset_str(c, name, val);
	free(name);
	return 0;
}

int parse_mmremotecluster(const char *buf, size_t len, json_t **ret,
			  struct err *err)
{
	json_t *root = json_object(), *c;
	int rc = parse_lines("mmremotecluster", buf, len, remotecluster_line,
			     jarray_at(root, "clusters"), err);
	size_t i;

	/* every stanza of mmremotecluster show names its contact nodes;
	 * mmauth show's stanzas (Cipher list, File system access) do not */
	json_array_foreach(json_object_get(root, "clusters"), i, c)
		if (!rc && !json_object_get(c, "contact_nodes"))
			rc = parse_not_tool("mmremotecluster", err,
					    "a 'Cluster name:' stanza without 'Contact nodes:'");
	return parse_done(rc, root, ret);
}

/*
 * mmlsmgr: the file system managers this cluster appointed, under a two-line
 * header ("file system      manager node", optionally "[from ADDR (NAME)]",
 * the node that answered), then "Cluster manager node: ADDR (NAME)". With
 * -c only that last line; with devices only the table. A remote-mounted file
 * system's manager belongs to its owning cluster and is not listed. {"ok",
 * "file_systems": [{"device", "ip", "node"}], "cluster_manager": {"ip",
 * "node"}, "from": {"ip", "node"}}.
 */
static const char *const mmlsmgr_failures[] = { "mmlsmgr: " };

struct lsmgr_state {
	json_t *root;
	bool header, manager;
};

/* "ADDR (NAME)" (what is left of the line at s) into o's "ip" and "node". */
static int lsmgr_node(json_t *o, char *s)
{
	char *tok[3], *close;

	if (split_ws(s, tok, 3) != 2 || *tok[1] != '(' || !(close = strchr(tok[1], ')')) ||
	    close[1])
		return -1;
	*close = '\0';
	jset_str(o, "ip", tok[0]);
	jset_str(o, "node", tok[1] + 1);
	return 0;
}

/* The header's optional "[from ADDR (NAME)]": the node that answered. */
static int lsmgr_from(json_t *root, char *header)
{
	char *from = strstr(header, "[from "), *close;

	if (!from)
		return 0;
	close = strchr(from, ']');
	if (!close || close[1])
		return -1;
	*close = '\0';
	return lsmgr_node(jobject_at(root, "from"), from + 6);
}

static int lsmgr_line(void *state, struct pline *ln, struct err *err)
{
	struct lsmgr_state *st = state;
	char *s = ln->text, *p, *tok[2];
	json_t *fs;

	if (!*s || strspn(s, "- ") == strlen(s) ||
	    parse_tool_line(st->root, ln->tool, s, mmlsmgr_failures, ARRAY_SIZE(mmlsmgr_failures), NULL))
		return 0;
	if ((p = skip_prefix(s, "Cluster manager node:"))) {
		if (st->manager || lsmgr_node(jobject_at(st->root, "cluster_manager"), trim(p)))
			return pline_error(ln, err, "expected one 'Cluster manager node: ADDRESS "
					   "(NAME)'");
		st->manager = true;
		return 0;
	}
	if (st->manager)
		return pline_error(ln, err, "text after the cluster manager line");
	if (skip_prefix(s, "file system") && strstr(s, "manager node")) {
		if (st->header || lsmgr_from(st->root, s))
			return pline_error(ln, err, "expected one header 'file system  manager "
					   "node [from ADDRESS (NAME)]'");
		st->header = true;
		return 0;
	}
	if (!st->header)
		return pline_error(ln, err, "expected the header 'file system  manager node'");
	fs = jarray_new_object(jarray_at(st->root, "file_systems"));
	if (split_ws(s, tok, 2) != 2 || lsmgr_node(fs, tok[1]))
		return pline_error(ln, err, "expected 'DEVICE ADDRESS (NAME)'");
	jset_str(fs, "device", tok[0]);
	return 0;
}

int parse_mmlsmgr(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct lsmgr_state st = { .root = json_object() };
	int rc;

	jarray_at(st.root, "file_systems");
	rc = parse_lines("mmlsmgr", buf, len, lsmgr_line, &st, err);
	if (!rc && !st.header && !st.manager && !parse_failed(st.root))
		rc = parse_error_end("mmlsmgr", err, "neither the file system table nor "
				     "'Cluster manager node:'");
	if (!rc)
		parse_failed(st.root);
	return parse_done(rc, st.root, ret);
}

/*
 * mmlsnodeclass: "Node Class Name  Members" then one row per class, its
 * members comma-separated; a long member list goes on over indented lines.
 */
static int lsnodeclass_line(void *state, struct pline *ln, struct err *err)
{
	struct table_state *st = state;
	char *members, *save = NULL, *m;
	json_t *cls;

	/* the rule under the header is two runs of dashes */
	if (!*ln->text || strspn(ln->text, "- ") == strlen(ln->text))
		return 0;
	if (!st->seen_header) {
		if (!skip_prefix(ln->text, "Node Class Name"))
			return pline_error(ln, err, "expected the column header");
		st->seen_header = 1;
		return 0;
	}
	if (ln->indent) {
		cls = json_array_get(st->rows, json_array_size(st->rows) - 1);
		if (!cls)
			return pline_error(ln, err, "member list before any node class");
		members = ln->text;
	} else {
		size_t n = strcspn(ln->text, " \t");

		cls = jarray_new_object(st->rows);
		members = ln->text[n] ? trim(ln->text + n + 1) : ln->text + n;
		ln->text[n] = '\0';
		jset_str(cls, "name", ln->text);
	}
	for (m = strtok_r(members, ",", &save); m; m = strtok_r(NULL, ",", &save))
		if (*trim(m))
			json_array_append_new(jarray_at(cls, "members"), json_string(trim(m)));
	jarray_at(cls, "members");
	return 0;
}

int parse_mmlsnodeclass(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct table_state st = { 0 };
	int rc;

	st.root = json_object();
	st.rows = jarray_at(st.root, "classes");
	rc = parse_lines("mmlsnodeclass", buf, len, lsnodeclass_line, &st, err);
	if (!rc && !st.seen_header)
		rc = parse_error_end("mmlsnodeclass", err, "no column header");
	return parse_done(rc, st.root, ret);
}

/* mmdiag's own failure ("mmdiag: Connection failed to the GPFS daemon"):
 * ok:false with its words (parse.h's contract). */
static const char *const mmdiag_failures[] = { "mmdiag: " };

/*
 * mmdiag --config: "=== mmdiag: config ===" then "attribute value" lines,
 * those changed from the default marked with a leading "!". What the
 * running daemon uses: {"attrs": {name: value}, "changed": [name...]}.
 */
static int diagconfig_line(void *state, struct pline *ln, struct err *err)
{
	json_t *root = state;
	char *s = ln->text, *tok[2];
	bool changed = false;
	size_t n;

	if (!*s || parse_tool_line(root, ln->tool, s, mmdiag_failures,
				   ARRAY_SIZE(mmdiag_failures), NULL))
		return 0;
	/* mmdiag always heads its report "=== mmdiag: config ==="; without
	 * it any "word rest" line would pass for an attribute */
	if (skip_prefix(s, "===")) {
		if (strcmp(s, "=== mmdiag: config ==="))
			return parse_not_tool(ln->tool, err, "a section other than "
					      "'=== mmdiag: config ==='");
		jset_bool(root, "header", 1);
		return 0;
	}
	if (!json_object_get(root, "header"))
		return parse_not_tool(ln->tool, err, "no '=== mmdiag: config ===' header");
	if (*s == '!') {
		changed = true;
		s = trim(s + 1);
	}
	n = split_ws(s, tok, 2);
	if (!n || !is_attribute(tok[0])) {
		/* kept, not guessed at (parse.h): an attribute needs a name */
		parse_warning(root, ln->orig);
		return 0;
	}
	jset_str(jobject_at(root, "attrs"), tok[0], n == 2 ? tok[1] : "");
	if (changed)
		json_array_append_new(jarray_at(root, "changed"), json_string(tok[0]));
	return 0;
}

int parse_mmdiag_config(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();
	int rc;

	jobject_at(root, "attrs");
	jarray_at(root, "changed");
	rc = parse_lines("mmdiag-config", buf, len, diagconfig_line, root, err);
	json_object_del(root, "header");
	if (!rc && !json_object_size(json_object_get(root, "attrs")) && !parse_failed(root))
		rc = parse_error_end("mmdiag-config", err, "no 'attribute value' line");
	if (!rc)
		parse_failed(root);
	return parse_done(rc, root, ret);
}

/*
 * mmdiag --network: of its sections, what proves verbs RDMA. Under "RDMA
 * Connections between nodes:" each "Fabric F - Device D Port P ..." line
 * is a port RDMA runs on, and the indented rows below it (after the
 * "hostname ..." header) the nodes connected through it. No port there
 * ("(none)"), or a "VERBS RDMA ... not ..." line, means RDMA did not start. {"rdma_started", "rdma_status",
 * "ports": [{"device", "port", "fabric"}], "connections": [{"node",
 * "device", "port"}]}.
 */
struct diagnet_state {
	json_t *root, *port;  /* port: the current Device line's object */
	int in_rdma;
};

static int diagnet_line(void *state, struct pline *ln, struct err *err)
{
	struct diagnet_state *st = state;
	char *s = ln->text, *p, *tok[2];

	(void)err;
	if (!*s || parse_tool_line(st->root, ln->tool, s, mmdiag_failures, ARRAY_SIZE(mmdiag_failures), NULL))
		return 0;
	if (strstr(s, "VERBS RDMA") && (strstr(s, " not ") || strstr(s, "failed"))) {
		jset_str(st->root, "rdma_status", s);
		json_object_set_new(st->root, "rdma_started", json_false());
		return 0;
	}
	if (!ln->indent) {
		st->in_rdma = skip_prefix(s, "RDMA Connections between nodes") != NULL;
		st->port = NULL;
		return 0;
	}
	if (!st->in_rdma)
		return 0;
	if ((p = strstr(s, "Device ")) && strstr(p, " Port ")) {
		char dev[64] = "";
		int port = 0, fabric = 0;

		if (sscanf(p, "Device %63s Port %d", dev, &port) != 2)
			return 0;
		sscanf(s, "Fabric %d", &fabric);
		st->port = jarray_new_object(jarray_at(st->root, "ports"));
		if (!json_is_false(json_object_get(st->root, "rdma_started")))
			json_object_set_new(st->root, "rdma_started", json_true());
		jset_str(st->port, "device", dev);
		jset_int(st->port, "port", port);
		jset_int(st->port, "fabric", fabric);
		return 0;
	}
	if (skip_prefix(s, "hostname") || !st->port || !split_ws(s, tok, 2))
		return 0;
	{
		json_t *c = jarray_new_object(jarray_at(st->root, "connections"));

		jset_str(c, "node", tok[0]);
		jset_str(c, "device", json_string_value(json_object_get(st->port, "device")));
		jset_int(c, "port", json_integer_value(json_object_get(st->port, "port")));
	}
	return 0;
}

int parse_mmdiag_network(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct diagnet_state st = { json_object(), NULL, 0 };
	int rc;

	jset_str(st.root, "rdma_status", "");
	jarray_at(st.root, "ports");
	jarray_at(st.root, "connections");
	rc = parse_lines("mmdiag-network", buf, len, diagnet_line, &st, err);
	/* buf is len bytes, not a C string. */
	if (!rc && !memmem(buf, len, "=== mmdiag: network ===", 23) && !parse_failed(st.root))
		rc = parse_error_end("mmdiag-network", err, "no '=== mmdiag: network ===' header");
	/* started once a port of the RDMA section was seen (and nothing said "not") */
	if (!json_object_get(st.root, "rdma_started"))
		json_object_set_new(st.root, "rdma_started", json_false());
	if (!rc)
		parse_failed(st.root);
	return parse_done(rc, st.root, ret);
}

/*
 * mmhealth node show: "Node name:", "Node status:" and "Status Change:"
 * lines, then the component table, whose "Status Change" column holds
 * blanks ("2 hours ago"): columns are cut where the header's titles start
 * (sub-components such as CES's are indented under their parent). When
 * something is not healthy an event table follows ("Event  Parameter
 * Severity  Active Since  Event Message"), cut the same way. A row whose
 * status is not one mmhealth prints is an error naming the line; a line
 * "mmhealth: ..." (the tool's own failure) is ok:false with its message.
 * {"ok", "node", "status", "change", "components": [{"name", "status",
 * "change", "reasons", "parent"?}], "events": [{"event", "parameter",
 * "severity", "since", "message"}]}.
 */
enum { HEALTH_NONE, HEALTH_COMPONENTS, HEALTH_EVENTS };

struct health_state {
	json_t *root;
	size_t col[5];   /* where the current table's columns start */
	size_t ncol;
	int table;       /* HEALTH_*: the table the rows belong to */
	const char *parent; /* the last top-level component (borrowed from root) */
};

static bool is_health_state(const char *s)
{
	static const char *const states[] = {
		"HEALTHY", "DEGRADED", "FAILED", "TIPS", "DISABLED", "DEPEND", "CHECKING",
		"STARTING", "STOPPED", "SUSPENDED", "UNKNOWN",
	};

	for (size_t i = 0; i < ARRAY_SIZE(states); i++)
		if (!strcmp(s, states[i]))
			return true;
	return false;
}

/* Cuts text (indent columns in from the line's start) at the header's
 * column starts; cells are trimmed, the caller frees them. */
static void health_cells(const struct health_state *st, const struct pline *ln, char **cell)
{
	size_t n = strlen(ln->text);

	for (size_t i = 0; i < st->ncol; i++) {
		size_t from = st->col[i] > ln->indent ? st->col[i] - ln->indent : 0;
		size_t to = n;
		char *v;

		if (i + 1 < st->ncol)
			to = st->col[i + 1] > ln->indent ? st->col[i + 1] - ln->indent : 0;

		if (i == 0)
			from = 0;
		if (to > n)
			to = n;
		v = from < to ? xstrndup(ln->text + from, to - from) : xstrdup("");
		cell[i] = v;
		memmove(v, trim(v), strlen(trim(v)) + 1);
	}
}

/* Records where each title starts in the header line; -1 if one is missing. */
static int health_header(struct health_state *st, const struct pline *ln,
			 const char *const *titles, size_t n)
{
	const char *p = ln->text;

	for (size_t i = 0; i < n; i++) {
		const char *at = strstr(p, titles[i]);

		if (!at)
			return -1;
		st->col[i] = ln->indent + (size_t)(at - ln->text);
		p = at + strlen(titles[i]);
	}
	st->ncol = n;
	return 0;
}

/* A row of the current table: the first cell (a name) and the state or
 * severity cell are one word each, the state one mmhealth prints. */
static int health_row(struct health_state *st, const struct pline *ln, struct err *err)
{
	static const char *const comp_keys[] = { "name", "status", "change", "reasons" };
	static const char *const event_keys[] = { "event", "parameter", "severity", "since",
						  "message" };
	bool events = st->table == HEALTH_EVENTS;
	const char *const *keys = events ? event_keys : comp_keys;
	size_t word = events ? 2 : 1;
	char *cell[5] = { NULL, NULL, NULL, NULL, NULL };
	json_t *row = NULL;
	bool ok;

	health_cells(st, ln, cell);
	ok = st->ncol > word && *cell[0] && !strchr(cell[0], ' ') && *cell[word] &&
	     !strchr(cell[word], ' ') && (events || is_health_state(cell[word]));
	if (ok)
		row = jarray_new_object(jarray_at(st->root, events ? "events" : "components"));
	for (size_t i = 0; i < st->ncol; i++) {
		if (row)
			jset_str(row, keys[i], cell[i]);
		free(cell[i]);
	}
	if (!ok)
		return pline_error(ln, err, events ? "not an event row" : "not a component row");
	if (events)
		return 0;
	if (ln->indent && st->parent)
		jset_str(row, "parent", st->parent);
	else
		st->parent = json_string_value(json_object_get(row, "name"));
	return 0;
}

static int health_line(void *state, struct pline *ln, struct err *err)
{
	struct health_state *st = state;
	static const char *const comp_titles[] = { "Component", "Status", "Status Change",
						   "Reasons" };
	static const char *const event_titles[] = { "Event", "Parameter", "Severity",
						    "Active Since", "Event Message" };
	static const char *const failures[] = { "mmhealth: " };
	char *key, *val;

	if (!*ln->text || is_rule(ln->text))
		return 0;
	if (parse_tool_line(st->root, ln->tool, ln->text, failures, ARRAY_SIZE(failures), NULL))
		return 0;
	if (!ln->indent && skip_prefix(ln->text, "Component") && strstr(ln->text, "Status")) {
		if (health_header(st, ln, comp_titles, ARRAY_SIZE(comp_titles)))
			return pline_error(ln, err, "expected the column header");
		st->table = HEALTH_COMPONENTS;
		return 0;
	}
	if (!ln->indent && skip_prefix(ln->text, "Event") && strstr(ln->text, "Severity")) {
		if (health_header(st, ln, event_titles, ARRAY_SIZE(event_titles)))
			return pline_error(ln, err, "expected the event table's header");
		st->table = HEALTH_EVENTS;
		return 0;
	}
	if (st->table != HEALTH_NONE)
		return health_row(st, ln, err);
	if (!split_kv(ln->text, ':', &key, &val))
		return pline_error(ln, err, "expected 'key: value'");
	if (!strcmp(key, "Node name"))
		jset_str(st->root, "node", val);
	else if (!strcmp(key, "Node status"))
		jset_str(st->root, "status", val);
	else if (!strcmp(key, "Status Change"))
		jset_str(st->root, "change", val);
	else
		return pline_error(ln, err, "unknown key before the component table");
	return 0;
}

int parse_mmhealth(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct health_state st = { .root = json_object() };
	int rc;

	jarray_at(st.root, "components");
	jarray_at(st.root, "events");
	rc = parse_lines("mmhealth", buf, len, health_line, &st, err);
	if (!rc && st.table == HEALTH_NONE && !json_object_get(st.root, "ok"))
		rc = parse_error_end("mmhealth", err, "no component table");
	if (!rc)
		parse_failed(st.root);
	return parse_done(rc, st.root, ret);
}

/*
 * mmlsfileset DEVICE [-L]: "Filesets in file system 'fs1':", a header, one
 * row a fileset. Plain: "Name Status Path" (Path "--" when unlinked). -L:
 * "Name Id RootInode ParentId Created InodeSpace MaxInodes AllocInodes
 * Comment", Created being ctime's five words; a name longer than its
 * column pushes the rest of its row right (IBM's CSI filesets), so rows
 * are read by words, not columns. {"file_system", "filesets": [...]}; an
 * "mmlsfileset: ..." line is ok:false.
 */
struct lsfileset_state {
	json_t *root;
	int layout;           /* 0: before the header; 1 plain; 2 -L */
};

static int lsfileset_long_row(json_t *fs, char *s)
{
	/* the words that are whole numbers, by position */
	static const char *const ints[12] = { [1] = "id", [2] = "root_inode", [9] = "inode_space",
					      [10] = "max_inodes", [11] = "alloc_inodes" };
	char *tok[13];
	size_t n = split_ws(s, tok, 13);
	long long v;

	if (n < 12)
		return -1;
	jset_str(fs, "name", tok[0]);
	for (size_t i = 1; i < 12; i++) {
		if (!ints[i])
			continue;
		if (parse_ll(tok[i], 10, &v))
			return -1;
		jset_int(fs, ints[i], v);
	}
	if (strcmp(tok[3], "--") && !parse_ll(tok[3], 10, &v))
		jset_int(fs, "parent_id", v);
	else if (strcmp(tok[3], "--"))
		return -1;
	{
		char *created = xasprintf("%s %s %s %s %s", tok[4], tok[5], tok[6], tok[7], tok[8]);

		jset_str(fs, "created", created);
		free(created);
	}
	jset_str(fs, "comment", n == 13 ? tok[12] : "");
	return 0;
}

static int lsfileset_line(void *state, struct pline *ln, struct err *err)
{
	static const char *const failures[] = { "mmlsfileset: " };
	struct lsfileset_state *st = state;
	char *s = ln->text, *p, *tok[3];
	json_t *fs;

	if (!*s || parse_tool_line(st->root, ln->tool, s, failures, ARRAY_SIZE(failures), NULL))
		return 0;
	if ((p = skip_prefix(s, "Filesets in file system "))) {
		size_t n = strlen(p);

		if (n && p[n - 1] == ':')
			p[--n] = '\0';
		if (n >= 2 && *p == '\'' && p[n - 1] == '\'') {
			p[n - 1] = '\0';
			p++;
		}
		jset_str(st->root, "file_system", p);
		jarray_at(st->root, "filesets");
		st->layout = 0;
		return 0;
	}
	if (!json_object_get(st->root, "file_system"))
		return parse_not_tool(ln->tool, err, "no 'Filesets in file system' line first");
	if (!st->layout) {
		if (skip_prefix(s, "Name ") && strstr(s, " RootInode ") && strstr(s, " AllocInodes"))
			st->layout = 2;
		else if (skip_prefix(s, "Name ") && strstr(s, " Status ") && strstr(s, " Path"))
			st->layout = 1;
		else
			return pline_error(ln, err, "expected the 'Name ...' header");
		return 0;
	}
	fs = jarray_new_object(json_object_get(st->root, "filesets"));
	if (st->layout == 2) {
		if (lsfileset_long_row(fs, s))
			return pline_error(ln, err, "expected 'name id rootinode parentid created "
					   "inodespace maxinodes allocinodes [comment]'");
		return 0;
	}
	if (split_ws(s, tok, 3) != 3)
		return pline_error(ln, err, "expected 'name status path'");
	jset_str(fs, "name", tok[0]);
	jset_str(fs, "status", tok[1]);
	jset_bool(fs, "linked", !strcmp(tok[1], "Linked"));
	if (strcmp(trim(tok[2]), "--"))
		jset_str(fs, "path", trim(tok[2]));
	return 0;
}

int parse_mmlsfileset(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct lsfileset_state st = { json_object(), 0 };
	int rc = parse_lines("mmlsfileset", buf, len, lsfileset_line, &st, err);

	if (!rc && !json_object_get(st.root, "file_system") && !parse_failed(st.root))
		rc = parse_not_tool("mmlsfileset", err, "no 'Filesets in file system' line");
	if (!rc && st.layout)
		jset_str(st.root, "format", st.layout == 2 ? "long" : "plain");
	return parse_done(rc, st.root, ret);
}

/*
 * mmlslicense -Y: GPFS's parseable layout, fields split at ':'. The first
 * line names the columns ("mmlslicense::HEADER:version:reserved:reserved:
 * nodeName:requiredLicense:designatedLicense:totalNodes:..."), each row
 * after it is one node ("mmlslicense::0:1:::NAME:server:none:68:..."; the
 * real capture in tests/fixtures/tools/SOURCES.md). Columns are found by
 * name, not position, as IBM adds columns across releases; a field with a
 * ':' in it comes %-encoded (IBM's mmclidecode) and is decoded here.
 * {"nodes": [{"name", "required", "designated"}], "summary": {totalNodes,
 * licensedServers, ...} (the cluster's counts, repeated on every row)};
 * "mmlslicense: ..." (not in a cluster) is ok:false.
 */
struct lslicense_state {
	json_t *root;
	char **cols;
	size_t ncols;
};

/* Splits s at every ':' in place, empty fields kept; at most max. */
static size_t split_colons(char *s, char **tok, size_t max)
{
	size_t n = 0;

	while (n < max) {
		tok[n++] = s;
		if (!(s = strchr(s, ':')))
			break;
		*s++ = '\0';
	}
	return n;
}

/* mmclidecode: %XX (two hex digits) is the byte XX, in place. */
static void percent_decode(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
			char hex[3] = { s[1], s[2], '\0' };

			*w++ = (char)strtol(hex, NULL, 16);
			s += 2;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

static int lslicense_line(void *state, struct pline *ln, struct err *err)
{
	static const char *const failures[] = { "mmlslicense: " };
	static const struct { const char *col, *key; } node_keys[] = {
		{ "nodeName", "name" }, { "requiredLicense", "required" },
		{ "designatedLicense", "designated" },
	};
	struct lslicense_state *st = state;
	char *tok[64];
	size_t n;
	json_t *node, *sum;

	if (!*ln->text || parse_tool_line(st->root, ln->tool, ln->text, failures,
					  ARRAY_SIZE(failures), NULL))
		return 0;
	if (!skip_prefix(ln->text, "mmlslicense:"))
		return st->cols ? pline_error(ln, err, "expected a row 'mmlslicense:...'") :
			parse_not_tool(ln->tool, err, "no 'mmlslicense::HEADER:' line");
	n = split_colons(ln->text, tok, ARRAY_SIZE(tok));
	if (n > 2 && !strcmp(tok[2], "HEADER")) {
		if (st->cols)
			return pline_error(ln, err, "a second header");
		st->cols = xcalloc(n, sizeof(*st->cols));
		for (size_t i = 0; i < n; i++)
			st->cols[i] = xstrdup(tok[i]);
		st->ncols = n;
		for (size_t k = 0; k < ARRAY_SIZE(node_keys); k++) {
			size_t i = 0;

			while (i < n && strcmp(tok[i], node_keys[k].col))
				i++;
			if (i == n)
				return pline_error(ln, err, "a header without nodeName, "
						   "requiredLicense and designatedLicense");
		}
		return 0;
	}
	if (!st->cols)
		return parse_not_tool(ln->tool, err, "a row before the 'mmlslicense::HEADER:' line");
	if (n != st->ncols)
		return pline_error(ln, err, "a row whose fields do not match the header's");
	node = jarray_new_object(jarray_at(st->root, "nodes"));
	sum = jobject_at(st->root, "summary");
	for (size_t i = 6; i < n; i++) {
		const char *key = NULL;

		percent_decode(tok[i]);
		for (size_t k = 0; k < ARRAY_SIZE(node_keys); k++)
			if (!strcmp(st->cols[i], node_keys[k].col))
				key = node_keys[k].key;
		if (key)
			jset_str(node, key, tok[i]);
		else if (*st->cols[i])
			jset_num(sum, st->cols[i], tok[i]);
	}
	if (!*json_string_value(json_object_get(node, "name")))
		return pline_error(ln, err, "a row without a node name");
	return 0;
}

int parse_mmlslicense(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct lslicense_state st = { .root = json_object() };
	int rc;

	jarray_at(st.root, "nodes");
	rc = parse_lines("mmlslicense", buf, len, lslicense_line, &st, err);
	if (!rc && !st.cols && !parse_failed(st.root))
		rc = parse_error_end("mmlslicense", err, "no 'mmlslicense::HEADER:' line");
	if (!rc)
		parse_failed(st.root);
	for (size_t i = 0; i < st.ncols; i++)
		free(st.cols[i]);
	free(st.cols);
	return parse_done(rc, st.root, ret);
}

/*
 * A GPFS size attribute as mmchconfig takes it (pagepool=16G): digits and
 * an optional K, M, G or T (binary multiples, either case); mmlsconfig shows
 * it the same way and mmdiag --config in bytes.
 */
int gpfs_size_bytes(const char *s, unsigned long long *ret)
{
	static const char units[] = "KMGT";
	unsigned long long n = 0;
	const char *u;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		if (n > (~0ULL - 9) / 10)
			return -1;
		n = n * 10 + (unsigned)(*s - '0');
	}
	if (*s && (s[1] || !(u = strchr(units, toupper((unsigned char)*s)))))
		return -1;
	for (int k = *s ? (int)(u - units) + 1 : 0; k > 0; k--) {
		if (n > ~0ULL / 1024)
			return -1;
		n *= 1024;
	}
	*ret = n;
	return 0;
}

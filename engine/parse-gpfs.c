/*
 * IBM Spectrum Scale (GPFS) administration commands: mmgetstate,
 * mmlscluster, mmlsconfig, mmlsmount, mmremotecluster show, mmremotefs show.
 */
#include "parse.h"
#include "parse-util.h"
#include "xalloc.h"

#include <ctype.h>
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

int parse_mmgetstate(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct table_state st = { 0 };
	const char *nl = memchr(buf, '\n', len);
	size_t first = nl ? (size_t)(nl - buf) : len;
	int long_form = memmem(buf, first, "Quorum", 6) != NULL;

	st.header = "Node number";
	st.keys = long_form ? getstate_l_keys : getstate_keys;
	st.nkeys = long_form ? ARRAY_SIZE(getstate_l_keys) : ARRAY_SIZE(getstate_keys);
	st.min_cols = long_form ? 6 : 3;
	return table_parse(&st, "mmgetstate", "nodes", buf, len, ret, err);
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
	json_t *settings; /* the current stanza's object */
	int in_filesystems;
};

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
		st->settings = jobject_at(jobject_at(st->root, "nodeclasses"), s + 1);
		return 0;
	}
	if (ln->indent || split_ws(s, tok, 2) != 2 || !is_attribute(tok[0]))
		return pline_error(ln, err, "expected 'attribute value'");
	if (!st->settings && !json_object_get(st->root, "cluster"))
		return pline_error(ln, err, "expected 'Configuration data for cluster' or '[node class]' first");
	if (!st->settings) /* before any stanza: applies to all nodes */
		st->settings = jobject_at(jobject_at(st->root, "nodeclasses"), "common");
	jset_str(st->settings, tok[0], tok[1]);
	return 0;
}

int parse_mmlsconfig(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct lsconfig_state st = { 0 };

	st.root = json_object();
	return parse_done(parse_lines("mmlsconfig", buf, len, lsconfig_line, &st,
				      err),
			  st.root, ret);
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

int parse_mmlsmount(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();

	return parse_done(parse_lines("mmlsmount", buf, len, lsmount_line,
				      jarray_at(root, "filesystems"), err),
			  root, ret);
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
	json_t *root = json_object();

	return parse_done(parse_lines("mmremotecluster", buf, len,
				      remotecluster_line,
				      jarray_at(root, "clusters"), err),
			  root, ret);
}

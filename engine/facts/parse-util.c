/* Helpers shared by the tool-output parsers; see parse-util.h. */
#include "parse-util.h"
#include "../base/jsontext.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int is_blank(int c)
{
	return c == ' ' || c == '\t';
}

static int only_blanks(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char)buf[i]))
			return 0;
	return 1;
}

/* Fills ln from the raw line held in sb (which it modifies). */
static void pline_set(struct pline *ln, struct strbuf *sb)
{
	char *s = sb->buf;
	size_t col = 0;

	while (sb->len && isspace((unsigned char)sb->buf[sb->len - 1]))
		sb->buf[--sb->len] = '\0';
	for (; is_blank(*s); s++)
		col = *s == '\t' ? (col / 8 + 1) * 8 : col + 1;
	ln->text = s;
	ln->indent = col;
}

int parse_lines(const char *tool, const char *buf, size_t len, pline_fn *fn,
		void *state, struct err *err)
{
	struct strbuf sb = STRBUF_INIT, orig = STRBUF_INIT;
	struct pline ln = { tool, 0, NULL, 0, NULL };
	const char *p = buf, *end = buf + len;
	int ret = 0;

	if (only_blanks(buf, len))
		return err_set(err, ERR_PARSE, "%s: no %s output", tool, tool);
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', end - p);
		const char *eol = nl ? nl : end;

		ln.no++;
		/* The parsers work on C strings: a NUL would end a line early
		 * ("Port \0" reads as "Port "), and no tool prints one. */
		if (memchr(p, '\0', eol - p)) {
			ret = err_set(err, ERR_PARSE, "%s: line %zu: found a NUL byte, "
				      "expected text", tool, ln.no);
			break;
		}
		strbuf_reset(&sb);
		strbuf_add(&sb, p, eol - p);
		pline_set(&ln, &sb);
		strbuf_reset(&orig);
		strbuf_addstr(&orig, ln.text);
		ln.orig = orig.buf;
		ret = fn(state, &ln, err);
		p = nl ? nl + 1 : end;
	}
	strbuf_release(&sb);
	strbuf_release(&orig);
	return ret;
}

int pline_error(const struct pline *ln, struct err *err, const char *what)
{
	return err_set(err, ERR_PARSE, "%s: line %zu: %s: '%.72s'", ln->tool,
		       ln->no, what, ln->orig);
}

int parse_error_end(const char *tool, struct err *err, const char *what)
{
	return err_set(err, ERR_PARSE, "%s: %s", tool, what);
}

int parse_not_tool(const char *tool, struct err *err, const char *why)
{
	return err_set(err, ERR_PARSE, "%s: not %s output (%s)", tool, tool, why);
}

char *trim(char *s)
{
	size_t n;

	while (is_blank(*s))
		s++;
	n = strlen(s);
	while (n && is_blank(s[n - 1]))
		s[--n] = '\0';
	return s;
}

char *skip_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) ? NULL : (char *)s + n;
}

int has_prefix_in(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (skip_prefix(s, list[i]))
			return 1;
	return 0;
}

int split_kv(char *s, int sep, char **ret_key, char **ret_val)
{
	char *p = strchr(s, sep);

	if (!p)
		return 0;
	*p = '\0';
	*ret_key = trim(s);
	*ret_val = trim(p + 1);
	return 1;
}

/* The shared tokenizer: a separator is a run of blanks at least min_run
 * long, or any run containing a tab. */
static size_t split_runs(char *s, char **tok, size_t max, size_t min_run)
{
	size_t n = 0;

	s = trim(s);
	while (*s && n < max) {
		char *p = s;

		tok[n++] = s;
		if (n == max)
			break;
		for (;;) {
			size_t run = 0;
			int tab = 0;

			while (*p && !is_blank(*p))
				p++;
			if (!*p)
				return n;
			while (is_blank(p[run]))
				tab |= p[run++] == '\t';
			if (run >= min_run || tab) {
				*p = '\0';
				s = p + run;
				break;
			}
			p += run;
		}
	}
	return n;
}

size_t split_ws(char *s, char **tok, size_t max)
{
	return split_runs(s, tok, max, 1);
}

size_t split_columns(char *s, char **tok, size_t max)
{
	return split_runs(s, tok, max, 2);
}

int all_of(const char *s, int c)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s != c)
			return 0;
	return 1;
}

int parse_ll(const char *s, int base, long long *ret)
{
	char *end;

	if (!*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	*ret = strtoll(s, &end, base);
	return errno || *end ? -1 : 0;
}

int parse_dbl(const char *s, double *ret)
{
	char *end;

	/* strtod also takes "nan", "inf" and hex ("0x02c9"): tools print
	 * those as words and ids, so keep them strings */
	if (!*s || strspn(s, "0123456789+-.eE") != strlen(s))
		return -1;
	errno = 0;
	*ret = strtod(s, &end);
	return errno || *end ? -1 : 0;
}

json_t *json_number_or_string(const char *s)
{
	long long ll;
	double d;

	if (!parse_ll(s, 10, &ll))
		return json_integer(ll);
	if (!parse_dbl(s, &d))
		return json_real(d);
	return json_text(s, strlen(s), NULL);
}

char *slug(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *s; s++) {
		if (isalnum((unsigned char)*s))
			strbuf_addch(&sb, tolower((unsigned char)*s));
		else if (sb.len && sb.buf[sb.len - 1] != '_')
			strbuf_addch(&sb, '_');
	}
	if (sb.len && sb.buf[sb.len - 1] == '_')
		strbuf_setlen(&sb, sb.len - 1);
	return strbuf_detach(&sb, NULL);
}

void jset_str(json_t *o, const char *key, const char *val)
{
	if (val)
		json_object_set_new(o, key, json_text(val, strlen(val), NULL));
}

void jset_int(json_t *o, const char *key, long long val)
{
	json_object_set_new(o, key, json_integer(val));
}

void jset_real(json_t *o, const char *key, double val)
{
	json_object_set_new(o, key, json_real(val));
}

void jset_bool(json_t *o, const char *key, int val)
{
	json_object_set_new(o, key, json_boolean(val));
}

void jset_num(json_t *o, const char *key, const char *val)
{
	json_object_set_new(o, key, json_number_or_string(val));
}

json_t *jarray_at(json_t *o, const char *key)
{
	json_t *a = json_object_get(o, key);

	if (!a) {
		a = json_array();
		json_object_set_new_nocheck(o, key, a); /* as jobject_at */
	}
	return a;
}

json_t *jobject_at(json_t *o, const char *key)
{
	json_t *a = json_object_get(o, key);

	if (!a) {
		a = json_object();
		/* _nocheck: the checked call refuses a key that is not UTF-8 (a
		 * tool's garbled output) and frees the object it was given, which
		 * we would then return (fuzz-parse: mmlsconfig "[\xff...]") */
		json_object_set_new_nocheck(o, key, a);
	}
	return a;
}

json_t *jarray_new_object(json_t *arr)
{
	json_t *o = json_object();

	json_array_append_new(arr, o);
	return o;
}

json_t *json_num(double d)
{
	if (d == floor(d) && fabs(d) < 1e15)
		return json_integer((long long)d);
	return json_real(d);
}

int fset_str(json_t *o, const char *to, const char *val)
{
	jset_str(o, to, val);
	return 0;
}

int fset_int(json_t *o, const char *to, const char *val)
{
	long long v;

	if (parse_ll(val, 0, &v))
		return -1;
	jset_int(o, to, v);
	return 0;
}

int fset_num(json_t *o, const char *to, const char *val)
{
	jset_num(o, to, val);
	return 0;
}

/* "4096 (5)", "81559 MiB", "16x": the leading integer. */
int fset_lead_int(json_t *o, const char *to, const char *val)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(val, &end, 10);
	if (errno || end == val)
		return -1;
	jset_int(o, to, v);
	return 0;
}

int field_map_apply(const struct field_map *map, json_t *o, const char *key,
		    const char *val)
{
	for (; map->from; map++)
		if (!strcmp(map->from, key))
			return map->set(o, map->to, val) ? -1 : 1;
	return 0;
}

int pline_field(const struct pline *ln, struct err *err,
		const struct field_map *map, json_t *o, const char *key,
		const char *val)
{
	if (field_map_apply(map, o, key, val) < 0)
		return err_set(err, ERR_PARSE, "%s: line %zu: bad value for '%s': '%.72s'",
			       ln->tool, ln->no, key, ln->orig);
	return 0;
}

/*
 * The commands a parser's tool runs as, for the shell's "command not
 * found": a parser takes only its own tool's. Parsers not listed run as
 * their own name. A name ending in '*' is a prefix (perftest's ib_write_bw,
 * ib_read_lat...), one starting with '*' a suffix (nccl-tests' *_perf).
 */
static const struct {
	const char *parser, *cmds[4];
} tool_commands[] = {
	{ "dcgmi-diag", { "dcgmi" } },
	{ "dle-resnet50", { "python*", "multiproc.py", "torchrun", "mpirun" } },
	{ "dmesg-modules", { "dmesg" } },
	{ "mmdiag-config", { "mmdiag" } },
	{ "mmdiag-network", { "mmdiag" } },
	{ "nccl-tests", { "*_perf", "mpirun" } },
	{ "nvidia-smi-q", { "nvidia-smi" } },
	{ "nvidia-smi-topo", { "nvidia-smi" } },
	{ "perftest", { "ib_*" } },
	{ "ssh-peer", { "ssh" } },
	{ "tf_cnn_benchmarks", { "python*", "horovodrun", "mpirun" } },
};

static int command_is(const char *pat, const char *cmd, size_t n)
{
	size_t p = strlen(pat);

	if (pat[p - 1] == '*')
		return n >= p - 1 && !strncmp(cmd, pat, p - 1);
	if (pat[0] == '*')
		return n >= p - 1 && !strncmp(cmd + n - (p - 1), pat + 1, p - 1);
	return n == p && !strncmp(cmd, pat, n);
}

/* Whether cmd[0..n) (a path's last part) is one tool runs as. */
static int tool_command(const char *tool, const char *cmd, size_t n)
{
	const char *slash = memrchr(cmd, '/', n);

	if (slash) {
		n -= (size_t)(slash + 1 - cmd);
		cmd = slash + 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(tool_commands); i++) {
		if (strcmp(tool_commands[i].parser, tool))
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(tool_commands[i].cmds) &&
				   tool_commands[i].cmds[k]; k++)
			if (command_is(tool_commands[i].cmds[k], cmd, n))
				return 1;
		return 0;
	}
	return command_is(tool, cmd, n);
}

/* Shell wordings of a missing tool: dash "sh: 1: X: not found", bash
 * "bash: X: command not found", busybox "sh: X: not found"; only when X
 * is tool's own command (another tool missing is not this tool's output). */
static int command_not_found(const char *tool, const char *s)
{
	size_t n = strlen(s);
	static const char *const ends[] = { ": command not found", ": not found" };
	static const char *const shells[] = { "sh: ", "bash: ", "-bash: ", "zsh: " };

	for (size_t i = 0; i < ARRAY_SIZE(ends); i++) {
		size_t e = strlen(ends[i]);
		const char *cmd = s, *p;

		if (n <= e || strcmp(s + n - e, ends[i]))
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(shells); k++)
			if ((p = skip_prefix(s, shells[k])))
				cmd = p;
		if (cmd == s && i)
			continue;
		/* dash's line number "sh: 1: X: not found", bash -c's "bash:
		 * line 1: X: command not found" */
		if (cmd != s && (p = skip_prefix(cmd, "line ")))
			cmd = p;
		if (cmd != s && isdigit((unsigned char)*cmd) && (p = strchr(cmd, ':')) &&
		    p[1] == ' ' && (size_t)(p - cmd) == strspn(cmd, "0123456789"))
			cmd = p + 2;
		if (cmd < s + n - e && tool_command(tool, cmd, (size_t)(s + n - e - cmd)))
			return 1;
	}
	return 0;
}

int tool_failure_line(const char *tool, const char *s, const char *const *extra, size_t n)
{
	return command_not_found(tool, s) || has_prefix_in(s, extra, n);
}

void parse_failure(json_t *root, const char *msg)
{
	if (!json_object_get(root, "error"))
		jset_str(root, "error", msg);
	jset_bool(root, "ok", 0);
	json_array_append_new(jarray_at(root, "errors"), json_string(msg));
}

int parse_tool_line(json_t *root, const char *tool, const char *s,
		    const char *const *failures, size_t n, const char *warn_prefix)
{
	if (tool_failure_line(tool, s, failures, n)) {
		parse_failure(root, s);
		return 1;
	}
	if (warn_prefix && skip_prefix(s, warn_prefix)) {
		parse_warning(root, s);
		return 1;
	}
	return 0;
}

void parse_warning(json_t *root, const char *msg)
{
	json_array_append_new(jarray_at(root, "warnings"), json_string(msg));
}

int parse_failed(json_t *root)
{
	if (json_is_false(json_object_get(root, "ok")))
		return 1;
	jset_bool(root, "ok", 1);
	return 0;
}

int parse_done(int rc, json_t *root, json_t **ret)
{
	if (rc < 0) {
		json_decref(root);
		*ret = NULL;
		return rc;
	}
	/* parse.h: a result without the tool's own failure says so, whichever
	 * parser built it, so that a caller never has to guess from a
	 * missing key */
	if (!json_object_get(root, "ok"))
		jset_bool(root, "ok", 1);
	*ret = root;
	return 0;
}

int fset_yes_no(json_t *o, const char *to, const char *val)
{
	if (!strcasecmp(val, "yes") || !strcmp(val, "Active"))
		jset_bool(o, to, 1);
	else if (!strcasecmp(val, "no") || !strcmp(val, "Not Active"))
		jset_bool(o, to, 0);
	else
		jset_str(o, to, val);
	return 0;
}

json_t *jarray_add_row(json_t *arr, const char *const *keys, size_t nkeys,
		       char **tok, size_t n)
{
	json_t *o = jarray_new_object(arr);

	for (size_t i = 0; i < n && i < nkeys; i++)
		jset_num(o, keys[i], tok[i]);
	return o;
}

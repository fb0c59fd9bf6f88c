/*
 * Operating-system outputs: lsmod (also the lines `lsmod | grep` keeps),
 * /etc/os-release, getenforce, the module loader's kernel-log lines, and
 * modinfo.
 */
#include "parse.h"
#include "parse-util.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* "ib_core  363078  9 rdma_cm,ib_cm,...": module, size, count, holders. */
static int lsmod_line(void *state, struct pline *ln, struct err *err)
{
	json_t *mods = state, *m, *by;
	char *tok[4], *dep, *save = NULL;
	long long size, used;
	size_t n;

	if (!*ln->text)
		return 0;
	if (ln->no == 1 && skip_prefix(ln->text, "Module "))
		return 0;
	n = split_ws(ln->text, tok, 4);
	if (n < 3 || parse_ll(tok[1], 10, &size) || parse_ll(tok[2], 10, &used))
		return pline_error(ln, err, "expected 'module size used [by,...]'");
	/* /proc/modules' names (lower case, digits, '_'; the kernel turns '-'
	 * into '_') and a holder list without blanks: ibnetdiscover -p's "CA
	 * 45 1 0x... 4x EDR ..." has three such fields too */
	if (strspn(tok[0], "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(tok[0]) ||
	    (n == 4 && strpbrk(tok[3], " \t")))
		return parse_not_tool(ln->tool, err, "not a module line");
	m = jarray_new_object(mods);
	jset_str(m, "module", tok[0]);
	jset_int(m, "size", size);
	jset_int(m, "used", used);
	by = jarray_at(m, "used_by");
	if (n == 4)
		for (dep = strtok_r(tok[3], ", ", &save); dep;
		     dep = strtok_r(NULL, ", ", &save))
			json_array_append_new(by, json_string(dep));
	return 0;
}

int parse_lsmod(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();

	return parse_done(parse_lines("lsmod", buf, len, lsmod_line,
				      jarray_at(root, "modules"), err),
			  root, ret);
}

/* os-release(5) quoting: shell-like, "..." with \-escapes of " \ $ `,
 * '...' literal, or a bare word. Returns 0 or -1 on an unclosed quote. */
static int os_release_unquote(const char *v, struct strbuf *out)
{
	char q = 0;

	for (; *v; v++) {
		if (q && *v == q) {
			q = 0;
		} else if (!q && (*v == '"' || *v == '\'')) {
			q = *v;
		} else if (*v == '\\' && q != '\'' && v[1] &&
			   (q != '"' || strchr("\"\\$`", v[1]))) {
			strbuf_addch(out, *++v);
		} else if (!q && isspace((unsigned char)*v)) {
			return -1; /* unquoted blanks end the word */
		} else {
			strbuf_addch(out, *v);
		}
	}
	return q ? -1 : 0;
}

static int os_release_line(void *state, struct pline *ln, struct err *err)
{
	struct strbuf val = STRBUF_INIT;
	char *s = ln->text, *eq = strchr(s, '=');
	int rc = 0;

	if (!*s || *s == '#')
		return 0;
	if (!eq || eq == s || strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
				    (size_t)(eq - s))
		return pline_error(ln, err, "expected KEY=VALUE");
	*eq = '\0';
	if (os_release_unquote(eq + 1, &val))
		rc = pline_error(ln, err, "bad quoting");
	else
		jset_str(state, s, val.buf);
	strbuf_release(&val);
	return rc;
}

int parse_os_release(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();

	return parse_done(parse_lines("os-release", buf, len, os_release_line,
				      root, err),
			  root, ret);
}

static int getenforce_line(void *state, struct pline *ln, struct err *err)
{
	static const char *const modes[] = { "Enforcing", "Permissive", "Disabled" };
	json_t *root = state;

	if (!*ln->text)
		return 0;
	if (json_object_get(root, "mode"))
		return pline_error(ln, err, "more than one line");
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		if (!strcmp(ln->text, modes[i])) {
			jset_str(root, "mode", modes[i]);
			jset_bool(root, "enforcing", i == 0);
			return 0;
		}
	}
	return pline_error(ln, err, "expected Enforcing, Permissive or Disabled");
}

int parse_getenforce(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();

	return parse_done(parse_lines("getenforce", buf, len, getenforce_line,
				      root, err),
			  root, ret);
}

/* Appends s to arr unless it is there already. */
static void jarray_add_unique(json_t *arr, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		if (!strcmp(json_string_value(v), s))
			return;
	json_array_append_new(arr, json_string(s));
}

/*
 * The kernel module loader's complaints, as `dmesg | grep` keeps them
 * ("[  366.264587] nv_peer_mem: Unknown symbol nvidia_p2p_get_pages (err
 * -22)", "... disagrees about version of symbol ib_register_peer_memory_client";
 * -T stamps "[Fri Feb 12 11:47:20 2021]" too): a module built against
 * another kernel, driver or ib_core. Every other line is an error naming
 * it; "dmesg: ..." (no permission to read the log) is ok:false.
 * The loader's own words may come first, as an admin pastes them
 * (Mellanox/nv_peer_memory#84): `modprobe -v`'s "insmod PATH" lines are
 * read past; "modprobe: ERROR: could not insert 'NAME': WHY" is modprobe's
 * failure (ok:false, the module's "load_error"), and so is "modprobe:
 * FATAL: ..." (no such module, kmod's other failure).
 * {"ok", "modules": {NAME: {"unknown_symbols": [...], "version_mismatch":
 * [...], "lines": N[, "load_error": WHY]}}}, symbols once each, in the
 * order first seen.
 */
static int modprobe_line(json_t *root, const char *s)
{
	static const char insert[] = "modprobe: ERROR: could not insert '";
	const char *name, *q;

	if (skip_prefix(s, "insmod /"))
		return 1;
	if (skip_prefix(s, "modprobe: FATAL: ")) {
		parse_failure(root, s);
		return 1;
	}
	if (!skip_prefix(s, insert))
		return 0;
	name = s + strlen(insert);
	if (!(q = strstr(name, "': ")) || q == name)
		return 0;
	{
		char *mod = xstrndup(name, (size_t)(q - name));
		json_t *m = jobject_at(jobject_at(root, "modules"), mod);

		jarray_at(m, "unknown_symbols");
		jarray_at(m, "version_mismatch");
		if (!json_object_get(m, "lines"))
			jset_int(m, "lines", 0);
		jset_str(m, "load_error", q + 3);
		free(mod);
	}
	parse_failure(root, s);
	return 1;
}

static int modload_line(void *state, struct pline *ln, struct err *err)
{
	static const char *const failures[] = { "dmesg: " };
	static const char unknown[] = ": Unknown symbol ", disagrees[] =
		": disagrees about version of symbol ";
	json_t *root = state, *mod;
	char *s = ln->text, *at, *sym, *end;
	const char *kind;

	if (!*s || parse_tool_line(root, ln->tool, s, failures, ARRAY_SIZE(failures), NULL) ||
	    modprobe_line(root, s))
		return 0;
	if (*s == '[') {
		if (!(end = strchr(s, ']')))
			return pline_error(ln, err, "no ']' after the time stamp");
		s = trim(end + 1);
	}
	if ((at = strstr(s, unknown))) {
		kind = "unknown_symbols";
		sym = at + strlen(unknown);
	} else if ((at = strstr(s, disagrees))) {
		kind = "version_mismatch";
		sym = at + strlen(disagrees);
	} else {
		return pline_error(ln, err, "not a module loader line");
	}
	*at = '\0';
	end = sym + strcspn(sym, " ");
	/* "SYM (err -22)" or "SYM": nothing else may follow */
	if (end == sym || !*s || strchr(s, ' ') ||
	    (*end && (!skip_prefix(end, " (err ") || end[strlen(end) - 1] != ')')))
		return pline_error(ln, err, "not a module loader line");
	*end = '\0';
	mod = jobject_at(jobject_at(root, "modules"), s);
	jarray_add_unique(jarray_at(mod, kind), sym);
	jarray_at(mod, "unknown_symbols");
	jarray_at(mod, "version_mismatch");
	jset_int(mod, "lines", json_integer_value(json_object_get(mod, "lines")) + 1);
	return 0;
}

int parse_dmesg_modules(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();
	int rc;

	jobject_at(root, "modules");
	rc = parse_lines("dmesg-modules", buf, len, modload_line, root, err);
	if (!rc)
		parse_failed(root);
	return parse_done(rc, root, ret);
}

/*
 * modinfo (kmod, "%-16s%s": "key:" padded, then the value): one object of
 * the fields, a key met twice (alias, parm, sig*) an array of its values;
 * a line that starts with blanks continues the last value (kmod prints a
 * signature over such lines); "depends" split at commas; the first word of
 * "vermagic" as "vermagic_kernel", the kernel release it was built for.
 * "modinfo: ERROR: Module X not found." is ok:false.
 */
struct modinfo_state {
	json_t *root;
	char *last;                /* the last key; owned */
};

static int modinfo_line(void *state, struct pline *ln, struct err *err)
{
	static const char *const failures[] = { "modinfo: " };
	struct modinfo_state *st = state;
	json_t *fields = jobject_at(st->root, "fields"), *old;
	char *s = ln->text, *colon;
	size_t klen;

	if (!*s || parse_tool_line(st->root, ln->tool, s, failures, ARRAY_SIZE(failures), NULL))
		return 0;
	if (ln->indent) {
		if (!st->last)
			return pline_error(ln, err, "a continued value before any field");
		old = json_object_get(fields, st->last);
		if (json_is_array(old))
			old = json_array_get(old, json_array_size(old) - 1);
		if (json_is_string(old)) {
			char *v = xasprintf("%s%s", json_string_value(old), s);

			json_string_set(old, v);
			free(v);
		}
		return 0;
	}
	colon = strchr(s, ':');
	klen = colon ? (size_t)(colon - s) : 0;
	if (!colon || !klen || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != klen ||
	    (colon[1] && colon[1] != ' ' && colon[1] != '\t'))
		return pline_error(ln, err, "expected 'field: value'");
	*colon = '\0';
	/* kmod's modinfo prints "filename:" first (after "name:" for a
	 * built-in module, kmod tools/modinfo.c); any other "word: value"
	 * text is some other tool's */
	if (!st->last && strcmp(s, "filename") && strcmp(s, "name"))
		return parse_not_tool(ln->tool, err, "the first field is not 'filename:'");
	free(st->last);
	st->last = xstrdup(s);
	s = trim(colon + 1);
	if (!strcmp(st->last, "depends")) {
		json_t *deps = jarray_at(st->root, "depends");
		char *save = NULL;

		for (char *d = strtok_r(s, ",", &save); d; d = strtok_r(NULL, ",", &save))
			if (*d)
				json_array_append_new(deps, json_string(d));
		return 0;
	}
	if (!strcmp(st->last, "vermagic")) {
		size_t n = strcspn(s, " \t");
		char *k = xstrndup(s, n);

		jset_str(st->root, "vermagic_kernel", k);
		free(k);
	}
	old = json_object_get(fields, st->last);
	if (!old) {
		jset_str(fields, st->last, s);
	} else if (json_is_array(old)) {
		json_array_append_new(old, json_string(s));
	} else {
		json_t *arr = json_pack("[O,s]", old, s);

		json_object_set_new(fields, st->last, arr);
	}
	return 0;
}

int parse_modinfo(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct modinfo_state st = { json_object(), NULL };
	int rc = parse_lines("modinfo", buf, len, modinfo_line, &st, err);

	free(st.last);
	if (!rc && !parse_failed(st.root) && !json_object_size(jobject_at(st.root, "fields")))
		rc = parse_error_end("modinfo", err, "no fields");
	return parse_done(rc, st.root, ret);
}

/*
 * /proc/meminfo: "Key:   N kB" lines (proc(5); the kernel prints every
 * size in kibibytes with the unit "kB", and counts such as HugePages_Total
 * without one). Keys as the kernel names them, values in KiB (or counts);
 * MemTotal is required: it is what makes the text meminfo's.
 */
static int meminfo_line(void *state, struct pline *ln, struct err *err)
{
	char *key, *val, *unit;
	long long n;

	if (!*ln->text)
		return 0;
	if (!split_kv(ln->text, ':', &key, &val) || !*key)
		return pline_error(ln, err, "expected 'Key: N kB'");
	unit = strchr(val, ' ');
	if (unit) {
		*unit++ = '\0';
		unit = trim(unit);
	}
	if (parse_ll(val, 10, &n) || n < 0 || (unit && *unit && strcmp(unit, "kB")))
		return pline_error(ln, err, "expected a number of kB");
	jset_int(state, key, n);
	return 0;
}

int parse_meminfo(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();
	int rc = parse_lines("meminfo", buf, len, meminfo_line, root, err);

	if (!rc && !json_object_get(root, "MemTotal"))
		rc = parse_not_tool("meminfo", err, "no MemTotal line");
	return parse_done(rc, root, ret);
}

/*
 * The generated parts of bringup(1): commands and their options from the
 * command table, exit statuses, inventory keys (inventory/README.md's
 * tables), precheck ids with their hints, stage modules with parameters.
 */
#include "doc-man.h"
#include "cmd.h"
#include "../engine/precheck/check.h"
#include "../engine/base/xalloc.h"
#include "../engine/deploy/module.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void doc_roff_escape(struct strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (i == 0 && (c == '.' || c == '\''))
			strbuf_addstr(out, "\\&");
		if (c == '\\')
			strbuf_addstr(out, "\\e");
		else if (c == '-')
			strbuf_addstr(out, "\\-");
		else
			strbuf_addch(out, c);
	}
}

static void esc(struct strbuf *out, const char *s)
{
	doc_roff_escape(out, s, strlen(s));
}

/* One line of prose: a line of its own, escaped. */
static void text_line(struct strbuf *out, const char *s)
{
	esc(out, s);
	strbuf_addch(out, '\n');
}

static void option_tag(struct strbuf *out, const struct cmd_option *o)
{
	strbuf_addstr(out, ".TP\n");
	if (o->flags & OPT_SHORT)
		strbuf_addf(out, "\\fB\\-%c\\fR, ", o->key);
	strbuf_addstr(out, "\\fB\\-\\-");
	esc(out, o->name);
	strbuf_addstr(out, "\\fR");
	if (o->arg) {
		strbuf_addstr(out, " \\fI");
		esc(out, o->arg);
		strbuf_addstr(out, "\\fR");
	}
	strbuf_addch(out, '\n');
	text_line(out, o->help);
}

/* The prose of NAME in tmpl: from its @command line to the next directive or .SH. */
static void command_prose(const char *tmpl, const char *name, struct strbuf *out)
{
	char dir[128];
	const char *p;

	snprintf(dir, sizeof(dir), ".\\\" @command %s\n", name);
	for (p = tmpl; (p = strstr(p, dir)); p++)
		if (p == tmpl || p[-1] == '\n')
			break;
	if (!p)
		return;
	p += strlen(dir);
	while (*p && strncmp(p, ".\\\" @", 5) && strncmp(p, ".SH", 3)) {
		size_t n = strcspn(p, "\n");

		strbuf_add(out, p, n);
		strbuf_addch(out, '\n');
		p += n + (p[n] == '\n');
	}
}

static void gen_synopsis(struct strbuf *out)
{
	for (unsigned i = 0; i < ncommands; i++) {
		strbuf_addf(out, ".B bringup %s\n", commands[i].name);
		if (*commands[i].usage)
			text_line(out, commands[i].usage);
		strbuf_addstr(out, ".br\n");
	}
}

static void gen_commands(struct strbuf *out, const char *tmpl)
{
	for (unsigned i = 0; i < ncommands; i++) {
		const struct cmd_entry *c = &commands[i];

		strbuf_addf(out, ".SS \"bringup %s\"\n", c->name);
		strbuf_addf(out, ".B bringup %s\n", c->name);
		if (*c->usage)
			text_line(out, c->usage);
		strbuf_addstr(out, ".PP\n");
		esc(out, c->summary);
		strbuf_addstr(out, ".\n.PP\n");
		command_prose(tmpl, c->name, out);
		if (c->options && c->options->name) {
			strbuf_addstr(out, ".PP\nOptions:\n");
			for (const struct cmd_option *o = c->options; o->name; o++)
				option_tag(out, o);
		}
	}
}

static void gen_exit_status(struct strbuf *out)
{
	for (const struct cmd_exit_doc *x = cmd_exit_docs; x->meaning; x++) {
		strbuf_addf(out, ".TP\n.B %d\n", x->status);
		text_line(out, x->meaning);
	}
}

/* A markdown table cell, trimmed, without backticks. */
static void md_cell(struct strbuf *out, const char *s, size_t n)
{
	struct strbuf t = STRBUF_INIT;

	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '`')
			strbuf_addch(&t, s[i]);
	doc_roff_escape(out, t.buf, t.len);
	strbuf_release(&t);
}

struct md_cells {
	const char *p[8];
	size_t n[8];
	size_t count;
};

/* "| a | b |" into its cells (at most 8). */
static void md_split(const char *line, size_t n, struct md_cells *c)
{
	const char *s = line + 1, *end = line + n;

	c->count = 0;
	while (s < end && c->count < 8) {
		size_t l = strcspn(s, "|");

		if (s + l > end)
			l = (size_t)(end - s);
		if (s + l >= end && !l)
			break;
		c->p[c->count] = s;
		c->n[c->count++] = l;
		s += l + 1;
	}
	/* A trailing "|" leaves an empty last cell; drop it. */
	if (c->count && c->p[c->count - 1] + c->n[c->count - 1] >= end) {
		size_t k = c->count - 1, only_space = 1;

		for (size_t i = 0; i < c->n[k]; i++)
			if (!isspace((unsigned char)c->p[k][i]))
				only_space = 0;
		if (only_space)
			c->count--;
	}
}

static bool md_cell_is(const struct md_cells *c, size_t i, const char *word)
{
	struct strbuf t = STRBUF_INIT;
	bool is;

	md_cell(&t, c->p[i], c->n[i]);
	is = !strcmp(t.buf, word);
	strbuf_release(&t);
	return is;
}

/*
 * Every markdown table of inventory/README.md whose first column is "key",
 * "variable" or "role" becomes a list under the heading above it; the
 * other columns follow the name, labelled unless they are the description.
 */
static void gen_inventory(struct strbuf *out, const char *md)
{
	const char *heading = "", *p = md;
	size_t heading_n = 0;

	while (*p) {
		size_t n = strcspn(p, "\n");
		const char *line = p;
		struct md_cells hdr, row;

		p += n + (p[n] == '\n');
		if (line[0] == '#') {
			heading = line;
			heading_n = n;
			while (heading_n && (*heading == '#' || *heading == ' '))
				heading++, heading_n--;
			continue;
		}
		if (line[0] != '|')
			continue;
		md_split(line, n, &hdr);
		/* The rest of this table: skip the |---| row, then the rows. */
		n = strcspn(p, "\n");
		p += n + (p[n] == '\n');
		if (!hdr.count || !(md_cell_is(&hdr, 0, "key") || md_cell_is(&hdr, 0, "variable") ||
				    md_cell_is(&hdr, 0, "role"))) {
			while (*p == '|') {
				n = strcspn(p, "\n");
				p += n + (p[n] == '\n');
			}
			continue;
		}
		strbuf_addstr(out, ".SS \"");
		md_cell(out, heading, heading_n);
		strbuf_addstr(out, "\"\n");
		while (*p == '|') {
			bool first = true;

			line = p;
			n = strcspn(p, "\n");
			p += n + (p[n] == '\n');
			md_split(line, n, &row);
			if (!row.count)
				continue;
			strbuf_addstr(out, ".TP\n.B ");
			md_cell(out, row.p[0], row.n[0]);
			strbuf_addch(out, '\n');
			for (size_t i = 1; i < row.count; i++) {
				struct strbuf v = STRBUF_INIT;

				md_cell(&v, row.p[i], row.n[i]);
				if (v.len) {
					if (!first)
						strbuf_addstr(out, "; ");
					if (i < hdr.count && !md_cell_is(&hdr, i, "what") &&
					    !md_cell_is(&hdr, i, "meaning") &&
					    !md_cell_is(&hdr, i, "hosts that ...")) {
						md_cell(out, hdr.p[i], hdr.n[i]);
						strbuf_addstr(out, ": ");
					}
					strbuf_add(out, v.buf, v.len);
					first = false;
				}
				strbuf_release(&v);
			}
			strbuf_addch(out, '\n');
		}
	}
}

static void gen_checks(struct strbuf *out)
{
	for (size_t i = 0; i < check_ndefs; i++) {
		const struct check_def *d = &check_defs[i];

		strbuf_addstr(out, ".TP\n.B ");
		esc(out, d->id);
		strbuf_addf(out, "\n(%s) ", d->severity == SEV_FAIL ? "fail" : "warn");
		esc(out, d->title);
		strbuf_addstr(out, ".\n");
		if (d->hint && *d->hint) {
			strbuf_addstr(out, ".br\nRemedy: ");
			text_line(out, d->hint);
		}
	}
}

static const char *param_type_name(enum param_type t)
{
	switch (t) {
	case PARAM_BOOL: return "bool";
	case PARAM_UINT: return "number";
	default: return "string";
	}
}

static void gen_modules(struct strbuf *out)
{
	for (size_t i = 0; i < stage_nmodules; i++) {
		const struct stage_module *m = stage_modules[i];

		strbuf_addstr(out, ".TP\n.B ");
		esc(out, m->name);
		strbuf_addch(out, '\n');
		esc(out, m->summary);
		strbuf_addstr(out, m->flags & MOD_LOCAL ? " (runs on the admin host)" :
				   m->flags & MOD_ONCE ? " (runs once, on one chosen host)" : "");
		strbuf_addstr(out, m->flags & MOD_MAY_REBOOT ? " (may need a reboot)\n" : "\n");
		if (!m->params || !m->params->name)
			continue;
		strbuf_addstr(out, ".RS\n");
		for (const struct param_spec *p = m->params; p->name; p++) {
			strbuf_addstr(out, ".TP\n.B ");
			esc(out, p->name);
			strbuf_addf(out, "\n(%s", param_type_name(p->type));
			if (p->def) {
				strbuf_addstr(out, ", default ");
				esc(out, p->def);
			}
			if (p->var) {
				strbuf_addstr(out, ", inventory variable \\fI");
				esc(out, p->var);
				strbuf_addstr(out, "\\fR");
			}
			strbuf_addstr(out, ") ");
			text_line(out, p->help ? p->help : "");
		}
		strbuf_addstr(out, ".RE\n");
	}
}

int doc_man(struct strbuf *out, const char *tmpl, const char *inv_md, struct err *e)
{
	unsigned lineno = 0;
	bool in_prose = false;

	for (const char *p = tmpl; *p;) {
		size_t n = strcspn(p, "\n");
		const char *line = p;

		p += n + (p[n] == '\n');
		lineno++;
		if (!strncmp(line, ".\\\" @", 5)) {
			const char *d = line + 5;
			size_t dn = n - 5;

			in_prose = false;
			if (dn == 8 && !strncmp(d, "synopsis", 8))
				gen_synopsis(out);
			else if (dn == 8 && !strncmp(d, "commands", 8))
				gen_commands(out, tmpl);
			else if (dn == 11 && !strncmp(d, "exit-status", 11))
				gen_exit_status(out);
			else if (dn == 9 && !strncmp(d, "inventory", 9))
				gen_inventory(out, inv_md);
			else if (dn == 6 && !strncmp(d, "checks", 6))
				gen_checks(out);
			else if (dn == 7 && !strncmp(d, "modules", 7))
				gen_modules(out);
			else if (dn > 8 && !strncmp(d, "command ", 8)) {
				char *name = xstrndup(d + 8, dn - 8);
				bool known = cmd_lookup(name) != NULL;

				free(name);
				if (!known)
					return err_set(e, ERR_PARSE, "man/bringup.1.in:%u: prose for "
						       "'%.*s', which is not in the command table",
						       lineno, (int)(dn - 8), d + 8);
				in_prose = true; /* gen_commands places it */
			} else
				return err_set(e, ERR_PARSE, "man/bringup.1.in:%u: unknown directive "
					       "'%.*s'", lineno, (int)n, line);
			continue;
		}
		if (!strncmp(line, ".SH", 3))
			in_prose = false;
		if (in_prose)
			continue;
		strbuf_add(out, line, n);
		strbuf_addch(out, '\n');
	}
	return 0;
}

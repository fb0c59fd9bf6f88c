/*
 * Option tables: getopt_long's arrays built from a command's cmd_option
 * table, and the option list of --help. Parsing with the same table that
 * the man page and completion are generated from is what keeps them whole.
 */
#include "cmd.h"

#include <stdlib.h>
#include <string.h>

void cmd_getopt_init(struct cmd_getopt *g, const struct cmd_option *opts, bool stop_at_operand)
{
	size_t n = 0, s = 0;

	memset(g, 0, sizeof(*g));
	if (stop_at_operand)
		g->shortopts[s++] = '+';
	for (const struct cmd_option *o = opts; o && o->name; o++, n++) {
		/* A table longer than the bound is a programming error a unit test catches. */
		if (n == CMD_MAX_OPTIONS)
			abort();
		g->longopts[n].name = o->name;
		g->longopts[n].has_arg = o->arg ? required_argument : no_argument;
		g->longopts[n].val = o->key;
		if (o->flags & OPT_SHORT) {
			g->shortopts[s++] = (char)o->key;
			if (o->arg)
				g->shortopts[s++] = ':';
		}
	}
}

int cmd_getopt(struct cmd_getopt *g, int argc, char **argv)
{
	return getopt_long(argc, argv, g->shortopts, g->longopts, NULL);
}

const struct cmd_option *cmd_option_find(const struct cmd_option *opts, const char *name)
{
	for (const struct cmd_option *o = opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

void cmd_print_options(FILE *f, const struct cmd_option *opts)
{
	for (const struct cmd_option *o = opts; o && o->name; o++) {
		char left[64];
		int n;

		if (o->flags & OPT_SHORT)
			n = snprintf(left, sizeof(left), "-%c, --%s%s%s", o->key, o->name,
				     o->arg ? " " : "", o->arg ? o->arg : "");
		else
			n = snprintf(left, sizeof(left), "    --%s%s%s", o->name,
				     o->arg ? " " : "", o->arg ? o->arg : "");
		if (n < 27)
			fprintf(f, "  %-27s %s\n", left, o->help);
		else
			fprintf(f, "  %s\n  %-27s %s\n", left, "", o->help);
	}
}

/*
 * bringup complete: shell completion from the command table. The bash and
 * zsh scripts (--shell) hand the words typed so far to `bringup complete --`
 * and offer what it prints, one candidate a line, so that completion knows
 * every option each command parses and, from the inventory named on the
 * line, its group and host names. A line "@file" or "@dir" asks the shell
 * to complete file or directory names itself.
 */
#include "cmd.h"
#include "../engine/precheck/check.h"
#include "../engine/inventory/inventory.h"
#include "../engine/facts/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct cmd_option cmd_complete_options[] = {
	{ "shell", 's', 0, "bash|zsh", "print the completion script for this shell" },
	{ "inventory", 'i', OPT_SHORT | OPT_FILE | OPT_INVENTORY, "FILE",
	  "the inventory whose groups and hosts complete --limit (default: the one on the line)" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static const char bash_script[] =
	"# bash completion for bringup(1), from `bringup complete --shell bash`.\n"
	"_bringup()\n"
	"{\n"
	"\tlocal IFS=$'\\n' cur=${COMP_WORDS[COMP_CWORD]} c out\n"
	"\tout=$(\"${COMP_WORDS[0]}\" complete -- \"${COMP_WORDS[@]:1:COMP_CWORD}\" 2>/dev/null)\n"
	"\tCOMPREPLY=()\n"
	"\tfor c in $out; do\n"
	"\t\tcase $c in\n"
	"\t\t@file) COMPREPLY+=($(compgen -f -- \"$cur\")); compopt -o filenames 2>/dev/null;;\n"
	"\t\t@dir) COMPREPLY+=($(compgen -d -- \"$cur\")); compopt -o filenames 2>/dev/null;;\n"
	"\t\t*) COMPREPLY+=(\"$c\");;\n"
	"\t\tesac\n"
	"\tdone\n"
	"}\n"
	"complete -F _bringup bringup\n";

static const char zsh_script[] =
	"#compdef bringup\n"
	"# zsh completion for bringup(1), from `bringup complete --shell zsh`.\n"
	"local -a out cands\n"
	"local c\n"
	"out=(${(f)\"$(${words[1]} complete -- ${words[2,CURRENT]} 2>/dev/null)\"})\n"
	"for c in $out; do\n"
	"\tcase $c in\n"
	"\t@file) _files;;\n"
	"\t@dir) _files -/;;\n"
	"\t*) cands+=(\"$c\");;\n"
	"\tesac\n"
	"done\n"
	"(( ${#cands} )) && compadd -Q -- $cands\n"
	"return 0\n";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup complete --shell bash|zsh\n"
		"       bringup complete [-i INVENTORY] -- WORD...\n"
		"\n"
		"With --shell, prints the completion script for that shell. Otherwise WORDs are\n"
		"the words after `bringup` up to the one being completed (possibly empty), and\n"
		"the candidates for that last word are printed one a line: commands, the\n"
		"command's options, values of an option (groups and hosts of the inventory\n"
		"for --limit, check ids for --checks, the choices of -o); \"@file\" and \"@dir\"\n"
		"ask the shell to complete names of files or directories.\n"
		"\n");
	cmd_print_options(f, cmd_complete_options);
}

static void offer(const char *prefix, const char *cand, const char *cur)
{
	size_t n = strlen(cur);

	if (!strncmp(cand, cur, n))
		printf("%s%s\n", prefix, cand);
}

/* The option a word names: "--name", "--name=...", or "-k". */
static const struct cmd_option *word_option(const struct cmd_option *opts, const char *w)
{
	if (!strncmp(w, "--", 2)) {
		size_t n = strcspn(w + 2, "=");
		for (const struct cmd_option *o = opts; o && o->name; o++)
			if (strlen(o->name) == n && !strncmp(o->name, w + 2, n))
				return o;
	} else if (w[0] == '-' && w[1] && !w[2]) {
		for (const struct cmd_option *o = opts; o && o->name; o++)
			if ((o->flags & OPT_SHORT) && o->key == w[1])
				return o;
	}
	return NULL;
}

static void offer_hosts(const char *inv_path, const char *prefix, const char *cur)
{
	struct inventory *inv = NULL;
	struct err err = ERR_INIT;

	/* No inventory yet, or a broken one: nothing to offer, and no noise. */
	if (!inv_path || inventory_load(inv_path, &inv, &err)) {
		err_clear(&err);
		return;
	}
	for (int r = 0; r < ROLE__COUNT; r++)
		if (inv->groups[r].hosts.n)
			offer(prefix, role_name((enum role)r), cur);
	for (size_t i = 0; i < inv->nhosts; i++)
		offer(prefix, inv->hosts[i].name, cur);
	inventory_free(inv);
}

/* Candidates for the value of o; cur is what was typed of it. */
static void offer_value(const struct cmd_option *o, const char *inv_path, const char *prefix,
			const char *cur)
{
	char lead[256];
	const char *last = strrchr(cur, ',');

	if (o->flags & OPT_FILE) {
		puts("@file");
		return;
	}
	if (o->flags & OPT_DIR) {
		puts("@dir");
		return;
	}
	/* Comma-separated lists complete their last item. */
	snprintf(lead, sizeof(lead), "%s%.*s", prefix, last ? (int)(last - cur + 1) : 0, cur);
	if (last)
		cur = last + 1;
	if (o->flags & OPT_HOSTS) {
		offer_hosts(inv_path, lead, cur);
	} else if (o->flags & OPT_CHECKS) {
		for (size_t i = 0; i < check_ndefs; i++)
			offer(lead, check_defs[i].id, cur);
	} else if (o->arg && strchr(o->arg, '|')) {
		char *choices = strdup(o->arg), *save = NULL;

		for (char *c = strtok_r(choices, "|", &save); c; c = strtok_r(NULL, "|", &save))
			offer(prefix, c, cur);
		free(choices);
	}
}

static void offer_operand(const struct cmd_entry *c, int nprev, const char *cur)
{
	static const char *const sim_actions[] = { "up", "down", "status", "fault", NULL };
	static const char *const inv_actions[] = { "show", "check", NULL };
	const char *const *actions = NULL;

	if (!strcmp(c->name, "sim"))
		actions = sim_actions;
	else if (!strcmp(c->name, "inventory"))
		actions = inv_actions;
	if (actions && nprev == 0) {
		for (; *actions; actions++)
			offer("", *actions, cur);
		return;
	}
	if (!strcmp(c->name, "parse") && nprev == 0) {
		size_t n;
		const struct parser *p = parser_list(&n);

		for (size_t i = 0; i < n; i++)
			offer("", p[i].name, cur);
		return;
	}
	if (!strcmp(c->name, "copy") || !strcmp(c->name, "parse"))
		puts("@file");
}

static int complete_words(const struct cmd_ctx *ctx, const char *inv_opt, int n, char **w)
{
	const char *cur = n ? w[n - 1] : "";
	const char *inv_path = inv_opt;
	const struct cmd_entry *c;
	int operands = 0;

	if (n <= 1) {
		for (unsigned i = 0; i < ctx->ncommands; i++)
			offer("", ctx->commands[i].name, cur);
		offer("", "help", cur);
		if (cur[0] == '-') {
			offer("", "--help", cur);
			offer("", "--version", cur);
		}
		return EXIT_OK;
	}
	if (!strcmp(w[0], "help")) {
		if (n == 2)
			for (unsigned i = 0; i < ctx->ncommands; i++)
				offer("", ctx->commands[i].name, cur);
		return EXIT_OK;
	}
	c = cmd_ctx_find(ctx, w[0]);
	if (!c)
		return EXIT_OK;
	/* Walk the words before cur: the inventory, operands, and whether cur is a value. */
	for (int i = 1; i < n - 1; i++) {
		const struct cmd_option *o;

		if (!strcmp(w[i], "--"))
			return EXIT_OK; /* the rest belongs to the remote command */
		o = w[i][0] == '-' ? word_option(c->options, w[i]) : NULL;
		if (o && o->arg && !strchr(w[i], '=')) {
			if ((o->flags & OPT_INVENTORY) && !inv_opt)
				inv_path = w[i + 1];
			if (i + 1 == n - 1) {
				offer_value(o, inv_path, "", cur);
				return EXIT_OK;
			}
			i++;
		} else if (o && (o->flags & OPT_INVENTORY) && !inv_opt) {
			inv_path = strchr(w[i], '=') + 1;
		} else if (!o && w[i][0] != '-') {
			operands++;
		}
	}
	if (!strncmp(cur, "--", 2) && strchr(cur, '=')) {
		const struct cmd_option *o = word_option(c->options, cur);
		size_t eq = (size_t)(strchr(cur, '=') - cur) + 1;
		char prefix[128];

		if (o && o->arg && eq < sizeof(prefix)) {
			memcpy(prefix, cur, eq);
			prefix[eq] = '\0';
			offer_value(o, inv_path, prefix, cur + eq);
		}
		return EXIT_OK;
	}
	if (cur[0] == '-') {
		for (const struct cmd_option *o = c->options; o && o->name; o++) {
			char name[64];

			snprintf(name, sizeof(name), "--%s", o->name);
			offer("", name, cur);
		}
		return EXIT_OK;
	}
	offer_operand(c, operands, cur);
	return EXIT_OK;
}

int cmd_complete(const struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *shell = NULL, *inv_path = NULL;
	struct cmd_getopt g;
	int c;

	cmd_getopt_init(&g, cmd_complete_options, true);
	optind = 1;
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 's': shell = optarg; break;
		case 'i': inv_path = optarg; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (shell) {
		if (!strcmp(shell, "bash"))
			fputs(bash_script, stdout);
		else if (!strcmp(shell, "zsh"))
			fputs(zsh_script, stdout);
		else {
			fprintf(stderr, "bringup complete: --shell is bash or zsh, not '%s'\n", shell);
			return EXIT_USAGE;
		}
		return EXIT_OK;
	}
	return complete_words(ctx, inv_path, argc - optind, argv + optind);
}

/*
 * bringup parse TOOL [FILE]: turns a supported tool's output (FILE, or stdin)
 * into pretty JSON on stdout, like `jc`. `--list` shows the tools.
 *
 * Exit: 0 parsed; 1 the text is not that tool's output (the message names the
 * line); 2 usage, unknown tool (the list follows on stderr).
 */
#include "cmd.h"
#include "../engine/facts/parse.h"
#include "../engine/base/strbuf.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* Captured tool output is small; anything bigger is not what we think. */
#define PARSE_MAX_INPUT (64u << 20)

static void list_parsers(FILE *out)
{
	size_t n, w = 0;
	const struct parser *p = parser_list(&n);

	/* one column for the summaries, as wide as the longest name
	 * (kubectl-get-nodes-yaml) so that they line up */
	for (size_t i = 0; i < n; i++)
		if (strlen(p[i].name) > w)
			w = strlen(p[i].name);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %-*s %s\n", (int)w, p[i].name, p[i].summary);
}

static int read_input(const char *path, struct strbuf *sb, struct err *err)
{
	FILE *f = path ? fopen(path, "r") : stdin;
	char chunk[65536];
	size_t got;
	int rc = 0;

	if (!f)
		return err_set(err, ERR_IO, "%s: %s", path, strerror(errno));
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (sb->len + got > PARSE_MAX_INPUT) {
			rc = err_set(err, ERR_IO, "%s: more than %u bytes",
				     path ? path : "stdin", PARSE_MAX_INPUT);
			break;
		}
		strbuf_add(sb, chunk, got);
	}
	if (!rc && ferror(f))
		rc = err_set(err, ERR_IO, "%s: read error", path ? path : "stdin");
	if (path)
		fclose(f);
	return rc;
}

const struct cmd_option cmd_parse_options[] = {
	{ "list", 'l', OPT_SHORT, NULL, "list the tools whose output can be parsed" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static int usage(FILE *out, int status)
{
	fprintf(out, "usage: bringup parse TOOL [FILE]\n"
		     "       bringup parse --list\n\n"
		     "Reads TOOL's captured output from FILE (or stdin) and prints it as JSON.\n"
		     "Tools:\n");
	list_parsers(out);
	return status;
}

int cmd_parse(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_getopt g;
	struct strbuf in = STRBUF_INIT;
	struct err err = ERR_INIT;
	const struct parser *p;
	json_t *out = NULL;
	int c, status;

	(void)ctx;
	cmd_getopt_init(&g, cmd_parse_options, false);
	optind = 1;
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 'h':
			return usage(stdout, EXIT_OK);
		case 'l':
			list_parsers(stdout);
			return EXIT_OK;
		default:
			return usage(stderr, EXIT_USAGE);
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		return usage(stderr, EXIT_USAGE);
	p = parser_lookup(argv[optind]);
	if (!p) {
		fprintf(stderr, "bringup: parse: unknown tool '%s'; known tools:\n",
			argv[optind]);
		list_parsers(stderr);
		return EXIT_USAGE;
	}
	/* a file we cannot read, or text that is not TOOL's output, is a
	 * failed check (1), not a usage error */
	if (read_input(argc - optind == 2 ? argv[optind + 1] : NULL, &in, &err) ||
	    p->fn(in.buf, in.len, &out, &err)) {
		fprintf(stderr, "bringup: %s\n", err_msg(&err));
		status = EXIT_FAILED;
		goto out;
	}
	json_dumpf(out, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	status = EXIT_OK;
out:
	json_decref(out);
	err_clear(&err);
	strbuf_release(&in);
	return status;
}

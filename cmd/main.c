/*
 * bringup's entry point: global options, then one dispatch through the
 * command table. Nothing here knows what a command does.
 */
#include "cmd.h"
#include "version.h"

#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static void print_help(FILE *f)
{
	fprintf(f,
		"usage: bringup [--help] [--version] COMMAND [ARGS]\n"
		"\n"
		"Bring up and validate GPU training clusters (InfiniBand, Spectrum Scale,\n"
		"OpenShift) from one YAML inventory, over SSH, in parallel.\n"
		"\n"
		"Commands:\n");
	for (unsigned i = 0; i < ncommands; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"Run 'bringup help COMMAND' or 'bringup COMMAND --help' for a command's options.\n"
		"\n"
		"Exit status:\n");
	for (const struct cmd_exit_doc *x = cmd_exit_docs; x->meaning; x++)
		fprintf(f, "  %d  %s\n", x->status, x->meaning);
}

int main(int argc, char **argv)
{
	const struct cmd_entry *c;

	/*
	 * Workers (--forks, 64 to 256 threads) each allocate a host's output,
	 * its split facts and parsed trees, and free them when the host is
	 * done. glibc gives threads their own arenas (up to 8 a core), and
	 * each keeps the high-water mark of what its threads freed; its
	 * mmap threshold also rises after the first large free, so a host's
	 * output moves from mmap (given back) into those arenas. Two arenas
	 * and a fixed threshold: precheck's peak at 64 sim hosts 34 MB
	 * instead of 38 (make bench, precheck-mem), same wall time; the
	 * workers mostly wait on the network, not on malloc's lock.
	 */
	mallopt(M_ARENA_MAX, 2);
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	/* A dead SSH peer must surface as an error from a write, not kill us. */
	signal(SIGPIPE, SIG_IGN);

	if (argc < 2) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_help(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		struct cmd_ctx vctx = { cmd_lookup("version"), commands, ncommands };

		return cmd_version(&vctx, 0, NULL);
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			print_help(stdout);
			return EXIT_OK;
		}
		c = cmd_lookup(argv[2]);
		if (!c) {
			fprintf(stderr, "bringup: unknown command '%s'\n", argv[2]);
			return EXIT_USAGE;
		}
		char *hargv[] = { argv[2], "--help", NULL };
		struct cmd_ctx hctx = { c, commands, ncommands };

		return c->fn(&hctx, 2, hargv);
	}
	c = cmd_lookup(argv[1]);
	if (!c) {
		fprintf(stderr, "bringup: unknown command '%s' (see 'bringup --help')\n",
			argv[1]);
		return EXIT_USAGE;
	}
	struct cmd_ctx ctx = { c, commands, ncommands };

	return c->fn(&ctx, argc - 1, argv + 1);
}

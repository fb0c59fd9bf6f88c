/*
 * What every subcommand shares: usage lines from the table, and the one
 * mapping from error codes to exit statuses. Kept out of main.c so that unit
 * tests link against it.
 */
#include "cmd.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>

int cmd_usage(const char *name)
{
	const struct cmd_entry *c = cmd_lookup(name);

	if (c)
		fprintf(stderr, "usage: bringup %s %s\n", c->name, c->usage);
	return EXIT_USAGE;
}

int cmd_exit_for(int code)
{
	switch (code) {
	case ERR_OK:
		return EXIT_OK;
	case ERR_USAGE:
	case ERR_PARSE:
	case ERR_INVENTORY:
		return EXIT_USAGE;
	case ERR_CONNECT:
	case ERR_HOSTKEY:
	case ERR_AUTH:
		return EXIT_UNREACHABLE;
	default:
		return EXIT_FAILED;
	}
}

int cmd_fail(const struct err *e)
{
	fprintf(stderr, "bringup: %s\n", err_msg(e));
	return cmd_exit_for(e->code);
}

int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("bringup %s\n", BRINGUP_VERSION);
	return EXIT_OK;
}


int cmd_parse_uint(const char *cmd, const char *opt, const char *s, unsigned *ret)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > 1000000) {
		fprintf(stderr, "bringup %s: %s must be a number, not '%s'\n", cmd, opt, s);
		return -1;
	}
	*ret = (unsigned)v;
	return 0;
}

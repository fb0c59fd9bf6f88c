/*
 * The command table and what every subcommand shares.
 *
 * cmd/ is the only place that parses argv, picks an output format and turns
 * errors into exit statuses. Each subcommand lives in cmd/cmd-<name>.c and is
 * listed once, sorted, in cmd/commands.c.
 */
#ifndef BRINGUP_CMD_H
#define BRINGUP_CMD_H

#include "../engine/err.h"

/* Exit statuses, documented in --help and bringup(1). */
enum exit_status {
	EXIT_OK = 0,
	EXIT_FAILED = 1,      /* a check, a step or a remote command failed */
	EXIT_USAGE = 2,       /* bad command line, inventory or playbook */
	EXIT_UNREACHABLE = 3, /* one or more hosts could not be reached */
};

struct cmd_entry {
	const char *name;
	const char *usage;   /* one line of synopsis after "bringup NAME" */
	const char *summary; /* one line for `bringup --help` */
	int (*fn)(int argc, char **argv); /* argv[0] is the command name */
};

extern const struct cmd_entry commands[];
extern const unsigned ncommands;

const struct cmd_entry *cmd_lookup(const char *name);

/* Prints "bringup: <msg>" to stderr and maps the error to an exit status. */
int cmd_fail(const struct err *e);
/* Maps an error code to an exit status without printing. */
int cmd_exit_for(int code);
/* An option's non-negative number; prints "bringup CMD: OPT must be a number". */
int cmd_parse_uint(const char *cmd, const char *opt, const char *s, unsigned *ret);
/* Prints usage for one command to stderr and returns EXIT_USAGE. */
int cmd_usage(const char *name);

int cmd_bundle(int argc, char **argv);
int cmd_copy(int argc, char **argv);
int cmd_deploy(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_inventory(int argc, char **argv);
int cmd_parse(int argc, char **argv);
int cmd_precheck(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_version(int argc, char **argv);

#endif

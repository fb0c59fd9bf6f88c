/*
 * The command table and what every subcommand shares.
 *
 * cmd/ is the only place that parses argv, picks an output format and turns
 * errors into exit statuses. Each subcommand lives in cmd/cmd-<name>.c and is
 * listed once, sorted, in cmd/commands.c.
 *
 * Adding a command: in cmd/cmd-NAME.c define cmd_NAME_options[] (every
 * option, "help" included, { NULL } last) and parse with cmd_getopt_init +
 * cmd_getopt; print options in --help with cmd_print_options; declare both
 * below; add the entry, options last, to commands.c; optionally a
 * `.\" @command NAME` block of prose in man/bringup.1.in; then `make man`.
 * test-doc-man fails while a cmd-*.c keeps a getopt table of its own with an
 * option the table lacks, or while man/bringup.1 is stale.
 */
#ifndef BRINGUP_CMD_H
#define BRINGUP_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include "../engine/base/err.h"

/* Exit statuses, documented in --help and bringup(1). */
enum exit_status {
	EXIT_OK = 0,
	EXIT_FAILED = 1,      /* a check, a step or a remote command failed */
	EXIT_USAGE = 2,       /* bad command line, inventory or playbook */
	EXIT_UNREACHABLE = 3, /* one or more hosts could not be reached */
};

/*
 * One option of a subcommand. The table is what the command parses with
 * (cmd_getopt_init), what its --help lists, what bringup(1) documents and
 * what completion offers, so none of them can leave an option out.
 */
enum {
	OPT_SHORT = 1 << 0,  /* key is also the short option -KEY */
	OPT_FILE = 1 << 1,   /* completion: the argument is a file */
	OPT_DIR = 1 << 2,    /* completion: the argument is a directory */
	OPT_HOSTS = 1 << 3,  /* completion: the inventory's groups and hosts */
	OPT_CHECKS = 1 << 4, /* completion: precheck ids */
	OPT_INVENTORY = 1 << 5, /* the inventory file: completion reads hosts from it */
};

struct cmd_option {
	const char *name;    /* long name, without "--" */
	int key;             /* what cmd_getopt returns; a letter, short or not */
	unsigned flags;      /* OPT_* */
	const char *arg;     /* the argument's name ("FILE", "text|json"); NULL: a flag */
	const char *help;    /* one line; --help wraps nothing, keep it short */
};

/* A number from a #define as a string literal, for help texts. */
#define CMD_STR_(x) #x
#define CMD_STR(x) CMD_STR_(x)

/* getopt_long's tables built from a NULL-terminated cmd_option table. */
#define CMD_MAX_OPTIONS 32
struct cmd_getopt {
	struct option longopts[CMD_MAX_OPTIONS + 1];
	char shortopts[3 * CMD_MAX_OPTIONS + 2];
};
/* stop_at_operand: a "+" optstring, so COMMAND's own options stay its own. */
void cmd_getopt_init(struct cmd_getopt *g, const struct cmd_option *opts, bool stop_at_operand);
/* getopt_long over g's tables; set optind = 1 before the first call. */
int cmd_getopt(struct cmd_getopt *g, int argc, char **argv);
/* The options as --help shows them, two columns. */
void cmd_print_options(FILE *f, const struct cmd_option *opts);
const struct cmd_option *cmd_option_find(const struct cmd_option *opts, const char *name);

struct cmd_ctx;

struct cmd_entry {
	const char *name;
	const char *usage;   /* one line of synopsis after "bringup NAME" */
	const char *summary; /* one line for `bringup --help` */
	/* argv[0] is the command name */
	int (*fn)(const struct cmd_ctx *ctx, int argc, char **argv);
	const struct cmd_option *options; /* NULL-terminated; every option fn parses */
};

/*
 * What main.c hands every command: its own entry and the whole table. A
 * command that lists commands (completion) or prints its own synopsis reads
 * them here, so no command depends on commands.c, which depends on them all.
 */
struct cmd_ctx {
	const struct cmd_entry *self;
	const struct cmd_entry *commands;  /* sorted by name */
	unsigned ncommands;
};
/* The entry called name in ctx's table; NULL when there is none. */
const struct cmd_entry *cmd_ctx_find(const struct cmd_ctx *ctx, const char *name);

/* Exit statuses with their meaning, for --help and bringup(1); NULL-terminated. */
struct cmd_exit_doc {
	int status;
	const char *meaning;
};
extern const struct cmd_exit_doc cmd_exit_docs[];

extern const struct cmd_entry commands[];
extern const unsigned ncommands;

/* commands.c's own lookup (main.c, bringup(1)'s generator, tests). */
const struct cmd_entry *cmd_lookup(const char *name);

/* Prints "bringup: <msg>" to stderr and maps the error to an exit status. */
int cmd_fail(const struct err *e);
/* cmd_fail with the inventory's secrets (redact.h) taken out of the message; inv may be NULL. */
struct inventory;
int cmd_fail_inv(const struct inventory *inv, struct err *e);
/*
 * inventory_load, then the inventory's sections that engine subsystems read
 * themselves (`validate:`), so that a bad one is refused at FILE:LINE:COL by
 * every command. On error *ret may still be set (for cmd_fail_inv's
 * redaction); the caller frees it either way.
 */
int cmd_inventory_load(const char *path, struct inventory **ret, struct err *e);
/*
 * The cluster lock (engine/rundir/cluster-lock.h) for deploy, upgrade and
 * validate, taken before any of them touches a node; its notes (leases
 * taken over from dead runs) go to stderr. *ret: cluster_lock_release.
 */
struct cluster_lock;
struct runner_opts;
int cmd_cluster_lock(const struct inventory *inv, const char *run_id,
		     const struct runner_opts *ro, struct cluster_lock **ret, struct err *e);
/* Maps an error code to an exit status without printing. */
int cmd_exit_for(int code);
/* An option's non-negative number; prints "bringup CMD: OPT must be a number". */
int cmd_parse_uint(const char *cmd, const char *opt, const char *s, unsigned *ret);
/* Writes a report to path, or to stdout when path is NULL; perror on failure. */
int cmd_write_out(const char *path, const char *buf, size_t len);
/* Prints the running command's usage to stderr and returns EXIT_USAGE. */
int cmd_usage(const struct cmd_ctx *ctx);

/*
 * The ^C contract of every command that works on hosts, in one place. The
 * first SIGINT (or SIGTERM) calls cancel(arg) from the signal handler (so
 * it must be async-signal-safe: runner_cancel, deploy_cancel), prints
 * "bringup: interrupted: <what>; ^C again quits at once" and puts the
 * default action back, so that a second one ends the process at once.
 * `what` must be a string literal or otherwise outlive the window.
 */
void cmd_interrupt_begin(void (*cancel)(void *), void *arg, const char *what);
/* Back to the default actions; true when the window saw a signal. */
bool cmd_interrupt_end(void);
/* A function (async-signal-safe) the second signal calls before the process
 * dies: the TUI restores the terminal. NULL: none. */
void cmd_interrupt_on_exit(void (*fn)(void));
/*
 * Where nothing can be cancelled half-way and nothing has changed a node
 * yet (a run taking its cluster lock): the first SIGINT or SIGTERM calls
 * the on-exit function, then ends the process. cmd_interrupt_begin or
 * cmd_interrupt_end ends the window.
 */
void cmd_interrupt_fatal(void);
/* The usual cancel for cmd_interrupt_begin: runner_cancel(runner). */
void cmd_cancel_runner(void *runner);

int cmd_apply(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_bundle(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_copy(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_deploy(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_upgrade(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_exec(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_inventory(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_parse(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_precheck(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_render(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_sim(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_tui(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_validate(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_version(const struct cmd_ctx *ctx, int argc, char **argv);
int cmd_complete(const struct cmd_ctx *ctx, int argc, char **argv);

extern const struct cmd_option cmd_apply_options[];
extern const struct cmd_option cmd_bundle_options[];
extern const struct cmd_option cmd_complete_options[];
extern const struct cmd_option cmd_copy_options[];
extern const struct cmd_option cmd_deploy_options[];
extern const struct cmd_option cmd_upgrade_options[];
extern const struct cmd_option cmd_exec_options[];
extern const struct cmd_option cmd_inventory_options[];
extern const struct cmd_option cmd_parse_options[];
extern const struct cmd_option cmd_precheck_options[];
extern const struct cmd_option cmd_render_options[];
extern const struct cmd_option cmd_sim_options[];
extern const struct cmd_option cmd_tui_options[];
extern const struct cmd_option cmd_validate_options[];
extern const struct cmd_option cmd_version_options[];

#endif

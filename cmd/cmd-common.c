/*
 * What every subcommand shares: usage lines from the table, the one
 * mapping from error codes to exit statuses, and what ^C does. Kept out of main.c so that unit
 * tests link against it.
 */
#include "cmd.h"
#include "../engine/ssh/runner.h"
#include "version.h"
#include "../engine/inventory/inventory.h"
#include "../engine/inventory/redact.h"
#include "../engine/rundir/cluster-lock.h"
#include "../engine/validate/validate.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct cmd_entry *cmd_ctx_find(const struct cmd_ctx *ctx, const char *name)
{
	for (unsigned i = 0; i < ctx->ncommands; i++)
		if (!strcmp(ctx->commands[i].name, name))
			return &ctx->commands[i];
	return NULL;
}

int cmd_usage(const struct cmd_ctx *ctx)
{
	fprintf(stderr, "usage: bringup %s %s\n", ctx->self->name, ctx->self->usage);
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

int cmd_fail_inv(const struct inventory *inv, struct err *e)
{
	struct redactor *r = redactor_new();
	int status;

	if (inv)
		redactor_add_inventory(r, inv);
	redact_err(r, e);
	status = cmd_fail(e);
	redactor_free(r);
	return status;
}

int cmd_inventory_load(const char *path, struct inventory **ret, struct err *err)
{
	struct validate_cfg cfg;
	int rc = inventory_load(path, ret, err);

	if (rc)
		return rc;
	/* The sections that subsystems read themselves are read once now, so
	 * that every command refuses a bad inventory alike, before any host is
	 * touched. */
	validate_cfg_defaults(&cfg);
	rc = validate_config_load(*ret, &cfg, err);
	validate_cfg_release(&cfg);
	return rc;
}

const struct cmd_option cmd_version_options[] = {
	{ NULL },
};

int cmd_version(const struct cmd_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
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

static void (*interrupt_cancel)(void *);
static void *interrupt_arg;
static const char *interrupt_what;
static volatile sig_atomic_t interrupt_seen;

static void say(const char *s)
{
	ssize_t n = write(STDERR_FILENO, s, strlen(s));

	(void)n; /* nothing to do about a closed stderr in a signal handler */
}

static void (*volatile interrupt_exit_hook)(void);

void cmd_interrupt_on_exit(void (*fn)(void))
{
	interrupt_exit_hook = fn;
}

/* The second signal: the hook (the TUI gives the terminal back), then death. */
static void on_second_interrupt(int sig)
{
	void (*hook)(void) = interrupt_exit_hook;

	if (hook)
		hook();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_interrupt(int sig)
{
	(void)sig;
	/* The next one gets the default action: the process ends at once. */
	signal(SIGINT, interrupt_exit_hook ? on_second_interrupt : SIG_DFL);
	signal(SIGTERM, interrupt_exit_hook ? on_second_interrupt : SIG_DFL);
	interrupt_seen = 1;
	if (interrupt_cancel)
		interrupt_cancel(interrupt_arg);
	say("\nbringup: interrupted: ");
	say(interrupt_what);
	say("; ^C again quits at once\n");
}

void cmd_interrupt_begin(void (*cancel)(void *), void *arg, const char *what)
{
	interrupt_cancel = cancel;
	interrupt_arg = arg;
	interrupt_what = what;
	interrupt_seen = 0;
	signal(SIGINT, on_interrupt);
	signal(SIGTERM, on_interrupt);
}

void cmd_interrupt_fatal(void)
{
	signal(SIGINT, on_second_interrupt);
	signal(SIGTERM, on_second_interrupt);
}

void cmd_cancel_runner(void *runner)
{
	runner_cancel(runner);
}

bool cmd_interrupt_end(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	interrupt_cancel = NULL;
	interrupt_arg = NULL;
	return interrupt_seen;
}

int cmd_write_out(const char *path, const char *buf, size_t len)
{
	FILE *f = path ? fopen(path, "w") : stdout;

	if (!f) {
		perror(path);
		return -1;
	}
	fwrite(buf, 1, len, f);
	if (path && fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

int cmd_cluster_lock(const struct inventory *inv, const char *run_id,
		     const struct runner_opts *ro, struct cluster_lock **ret, struct err *e)
{
	struct strbuf notes = STRBUF_INIT;
	int rc = cluster_lock_take(inv, run_id, ro, &notes, ret, e);

	fputs(notes.len ? notes.buf : "", stderr);
	strbuf_release(&notes);
	return rc;
}

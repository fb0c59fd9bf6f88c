/*
 * mod_cli_*: a module's session with a managed switch's CLI (module.h),
 * over a pty on the host's connection (runner.h task_shell) and the
 * prompt/pager layer of cli.h. Each command and its output reach the run
 * log like mod_exec's, as "cli: COMMAND".
 */
#include "../ssh/cli.h"
#include "modctx.h"
#include "../base/xalloc.h"
#include "module.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A wide terminal keeps the CLI from wrapping lines; 24 rows is what a
 * console has, so long output goes through the pager as for a person. */
#define CLI_COLS 200
#define CLI_ROWS 24
/* Where neither the stage nor the run sets a limit, a CLI still gets one. */
#define CLI_DEFAULT_TIMEOUT_S 600

struct mod_cli {
	struct mod_ctx *mc;
	struct conn_shell *sh;
	struct cli_io io;
	struct cli *cli;
};

static int io_read(void *arg, struct strbuf *out, size_t max, int timeout_ms, bool *ret_eof,
		   struct err *err)
{
	int n = conn_shell_read(arg, out, max, timeout_ms, ret_eof, err);

	return n < 0 ? n : 0;
}

static int io_write(void *arg, const char *buf, size_t len, struct err *err)
{
	return conn_shell_write(arg, buf, len, err);
}

/* The same limit as mod_exec's commands: the stage's, else the run's. */
static unsigned timeout_ms(const struct mod_ctx *mc)
{
	long long deadline = task_step_deadline(mc->task, mc->timeout_s * 1000);
	long long ms = deadline ? deadline - now_ms() : CLI_DEFAULT_TIMEOUT_S * 1000LL;

	return ms > 0 ? (unsigned)ms : 1;
}

static void log_cli(struct mod_ctx *mc, const char *command, const struct strbuf *out,
		    int rc, long long start)
{
	struct cmd_result res;
	char *line = xasprintf("cli: %s", command);

	if (!mc->log) {
		free(line);
		return;
	}
	cmd_result_init(&res);
	res.outcome = rc == ERR_TIMEOUT ? CMD_TIMED_OUT : rc == ERR_SSH ? CMD_LOST : CMD_EXITED;
	res.exit_status = rc ? 1 : 0;
	res.duration_s = (double)(now_ms() - start) / 1000.0;
	strbuf_add(&res.out, out->buf, out->len);
	if (rc)
		strbuf_addstr(&res.err, err_msg(mc->err));
	runlog_command(mc->log, mc->host, mc->stage, line, &res, NULL);
	cmd_result_release(&res);
	free(line);
}

static const char *const phase_names[] = {
	[PHASE_CHECK] = "check", [PHASE_APPLY] = "apply", [PHASE_VERIFY] = "verify",
};

int mod_cli_open(struct mod_ctx *mc, struct mod_cli **ret)
{
	const char *step = phase_names[mc->phase];
	struct mod_cli *c;
	struct strbuf banner = STRBUF_INIT;
	long long start = now_ms();
	int rc;

	*ret = NULL;
	/* deploy's prefetch planning: a CLI dialogue cannot travel in a script. */
	if (mc->capture)
		return err_set(mc->err, ERR_DEFERRED, "deferred: switch CLI login");
	if (mc->local || !mc->task)
		return mod_fail(mc, ERR_USAGE, "a switch CLI needs a remote host, not a "
				"local stage");
	if (mc->cancelled && *mc->cancelled)
		return err_set(mc->err, ERR_CANCELLED, "stopped before the CLI login");
	c = xcalloc(1, sizeof(*c));
	c->mc = mc;
	rc = task_shell(mc->task, 0, CLI_COLS, CLI_ROWS, &c->sh, mc->err);
	if (!rc) {
		c->io = (struct cli_io){ io_read, io_write, c->sh };
		rc = cli_open(&c->io, mc->host, timeout_ms(mc), &banner, &c->cli, mc->err);
	}
	/*
	 * The deploy names the phase of a module's failure, but not of a
	 * connection's (an unreachable host is just that): here the login is
	 * the step that failed, so say which phase it was in.
	 */
	if (rc == ERR_CONNECT || rc == ERR_HOSTKEY || rc == ERR_AUTH)
		err_prefix(mc->err, "%s: switch CLI login to %s failed: ", step, mc->host);
	else if (rc)
		err_prefix(mc->err, "switch CLI login to %s failed: ", mc->host);
	log_cli(mc, "(login)", &banner, rc, start);
	strbuf_release(&banner);
	if (rc) {
		mod_cli_close(c);
		return rc;
	}
	*ret = c;
	return 0;
}

int mod_cli_run(struct mod_cli *c, const char *command, struct strbuf *out)
{
	struct mod_ctx *mc = c->mc;
	long long start = now_ms();
	int rc;

	if (mc->cancelled && *mc->cancelled) {
		strbuf_reset(out);
		return err_set(mc->err, ERR_CANCELLED, "stopped before: cli: %s", command);
	}
	rc = cli_run(c->cli, command, timeout_ms(mc), out, mc->err);
	log_cli(mc, command, out, rc, start);
	return rc;
}

const char *mod_cli_devname(const struct mod_cli *c)
{
	return cli_hostname(c->cli);
}

void mod_cli_close(struct mod_cli *c)
{
	if (!c)
		return;
	/* Leaving politely lets the switch log the logout; errors do not matter. */
	if (c->cli && c->sh) {
		struct err e = ERR_INIT;

		conn_shell_write(c->sh, "exit\nexit\nexit\n", 15, &e);
		err_clear(&e);
	}
	cli_free(c->cli);
	conn_shell_close(c->sh);
	free(c);
}

/*
 * The stage-module interface: what a playbook stage runs on a host.
 *
 * A module is one struct stage_module in modules/mod-NAME.c, listed once in
 * the sorted table in modules/modules.c. It works through its mod_ctx only
 * (engine/deploy/modctx.c implements it): typed parameters, commands on the host
 * with bounded output and a timeout, files written atomically, templates
 * from templates/. It never sees the SSH session or the runner, never
 * prints and never exits.
 *
 * The engine drives every module the same way on each host:
 *   check()  read-only; records each change it would make (mod_change, or
 *            mod_put_file in check mode, which records a diff);
 *            no change recorded means "in desired state"
 *   apply()  only when check recorded changes, never with --check; makes
 *            them, and must be safe to run twice (a run may be cut anywhere)
 *   verify() after apply; proves the result (default: check again and
 *            require that it records no change)
 * A module may end early with mod_skip() (e.g. SELinux disabled: nothing to
 * do on that host) from check.
 *
 * Adding a module:
 * 1. templates/NAME/: every file it writes and every script it runs.
 * 2. modules/mod-NAME.c: params (with the inventory variable that supplies
 *    each), check (one mod_probe: its state script and the files it manages),
 *    apply (the same writes, then the commands check asked for, handed over
 *    with mod_set/mod_get), verify when re-checking does not prove enough.
 * 3. modules/modules.c: one line in the sorted table.
 * 4. playbooks/deploy.yaml: a stage, in the Redpaper's order.
 * 5. sim/tools/: stand-ins for the tools it runs, keeping state in state/.
 * 6. Tests: tests/unit/test-modules.c finds it; an integration test shows
 *    check, apply, a second run with no change, and the stand-ins' state.
 */
#ifndef BRINGUP_MODULE_H
#define BRINGUP_MODULE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"
#include "../ssh/ssh.h"
#include "../base/strbuf.h"

enum mod_flags {
	MOD_PER_HOST = 1u << 0,   /* runs on every host of the stage */
	MOD_ONCE = 1u << 1,       /* runs on one chosen host (run_once) */
	MOD_LOCAL = 1u << 2,      /* runs on the admin host */
	MOD_MAY_REBOOT = 1u << 3, /* a change may only take effect after a reboot */
};

enum param_type { PARAM_STRING, PARAM_BOOL, PARAM_UINT };

struct param_spec {
	const char *name;
	enum param_type type;
	const char *def;          /* default, as it would be written in YAML */
	const char *var;          /* inventory variable that supplies it, or NULL */
	const char *help;
	/* Extra check of a string value: NULL when fine, else what is expected. */
	const char *(*valid)(const char *value);
};

struct mod_ctx;

struct stage_module {
	const char *name;          /* the name playbooks use */
	const char *summary;       /* one line for `bringup deploy --list-modules` */
	unsigned version;          /* bumped when what the module writes changes */
	unsigned flags;
	const struct param_spec *params; /* terminated by a NULL name */
	int (*check)(struct mod_ctx *mc);
	int (*apply)(struct mod_ctx *mc);
	int (*verify)(struct mod_ctx *mc); /* NULL: check again, expect no change */
	/*
	 * NULL: always. Else whether the inventory has the part of the cluster
	 * this module sets up; an `optional` local stage whose module does not
	 * apply is left out of the run, as an optional stage's empty groups are.
	 */
	bool (*applies)(const struct inventory *inv);
};

/* The table in modules.c, sorted by name. */
extern const struct stage_module *const stage_modules[];
extern const size_t stage_nmodules;
const struct stage_module *stage_module_find(const char *name);
const struct param_spec *module_param(const struct stage_module *m, const char *name);

/*
 * Checks `value` (a parameter's YAML value as JSON) against its spec.
 * Returns NULL when it fits, else a static text saying what was expected.
 */
const char *param_check(const struct param_spec *p, const json_t *value);

/* ---- what a module may use (engine/deploy/modctx.c) ---- */

const char *mod_host(const struct mod_ctx *mc);
bool mod_checking(const struct mod_ctx *mc);          /* --check: change nothing */

/*
 * For a run_once module that acts for a whole group of hosts (GPFS
 * administration on a manager node), and local ones: every host of this run (inventory
 * order, --limit applied) as a JSON array of objects {"name", "roles":
 * [group names], "vars": {...}, "hcas": [{"name", "port", "link_layer"}],
 * "failed": "why"} ("failed" only where an earlier stage failed on the host,
 * so that it is left out). Local stages get it too (a drain or uncordon
 * of the nodes that did not fail). Borrowed; NULL in per-host stages.
 */
const json_t *mod_run_hosts(const struct mod_ctx *mc);
/*
 * A local stage acting on the cluster as a whole (the OpenShift layer,
 * through the Kubernetes API): the run's inventory, and what earlier
 * stages of this run recorded with mod_record ({KEY: VALUE}, copied when
 * the stage starts). Both borrowed; NULL in per-host and run_once stages.
 */
const struct inventory *mod_inventory(const struct mod_ctx *mc);
const json_t *mod_records(const struct mod_ctx *mc);
/*
 * "FILE:LINE:COL" of where this host's inventory variable `var` (its `key`
 * inside it, when key is not NULL) was written, into out, for an error that
 * a module finds on the host but whose cause is the inventory (a pagepool
 * the node's memory cannot hold). Returns false, out untouched, when it
 * cannot tell (the value is a default, the file changed).
 */
/* This host's inventory vars (resolved: cluster < group < host); borrowed,
 * NULL on the admin host. For a value no parameter can carry (a mapping). */
const json_t *mod_host_vars(const struct mod_ctx *mc);
bool mod_var_where(const struct mod_ctx *mc, const char *var, const char *key,
		   struct strbuf *out);
/*
 * Records KEY = VALUE in the run's state (journal.json "state"), where a
 * later stage or tool reads what this one found (a cluster ID, a mount path).
 */
void mod_record(struct mod_ctx *mc, const char *key, const char *value);
/*
 * A run_once module acting for several hosts: fails `host` alone at this
 * stage with the message (its cell shows it; later stages leave it out, and
 * mod_run_hosts marks it failed from now on), while the module goes on for
 * the others and may still succeed.
 */
void mod_fail_host(struct mod_ctx *mc, const char *host, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Typed parameters; names must be in the module's spec (else abort). */
const char *mod_param_str(const struct mod_ctx *mc, const char *name);
bool mod_param_bool(const struct mod_ctx *mc, const char *name);
unsigned mod_param_uint(const struct mod_ctx *mc, const char *name);

/*
 * A value for templates ({{name}}) that the module computes; copied. It
 * lasts from check to apply and verify on the same host, which is how a
 * module hands its findings on. mod_get returns "" for a name never set.
 */
void mod_set(struct mod_ctx *mc, const char *name, const char *value);
const char *mod_get(const struct mod_ctx *mc, const char *name);

/*
 * Runs argv (quoted for the remote shell, never pasted) on the host; `input`
 * (may be NULL) goes to its stdin. Output is capped, the command has the
 * inventory's timeout, and the command, exit status, output and duration
 * go to the run's log with secrets redacted. Returns 0 when the command ran
 * (look at res->exit_status) or an error (connection, timeout, cancel).
 * res is initialised here; the caller releases it.
 */
int mod_exec(struct mod_ctx *mc, const char *const *argv, const char *input,
	     struct cmd_result *res);
/* The same, failing with ERR_REMOTE (and the command's stderr) unless it exits 0. */
int mod_exec_ok(struct mod_ctx *mc, const char *const *argv, const char *input,
		struct cmd_result *res);
/* Runs templates/NAME with `sh -s -- args...`; args NULL-terminated, may be NULL. */
int mod_script(struct mod_ctx *mc, const char *tmpl, const char *const *args,
	       struct cmd_result *res);

/*
 * mod_exec and mod_script for one long command (an installer, a build):
 * timeout_s replaces the inventory's command timeout for it alone. A
 * command past its limit fails with ERR_TIMEOUT naming the host, the stage
 * and the command.
 */
int mod_exec_timeout(struct mod_ctx *mc, const char *const *argv, const char *input,
		     unsigned timeout_s, struct cmd_result *res);
int mod_script_timeout(struct mod_ctx *mc, const char *tmpl, const char *const *args,
		       unsigned timeout_s, struct cmd_result *res);

/*
 * Reboots the host (apply only) and waits until it answers over SSH again:
 * reads its boot id (/proc/sys/kernel/random/boot_id), asks for the reboot
 * (systemctl reboot, else shutdown -r now), drops the connection, then
 * connects again with short connect timeouts until a new boot id proves
 * the reboot happened. ERR_TIMEOUT ("did not come back over SSH within N
 * s") when timeout_s (or the run's deadline) passes first. Files cached by
 * mod_probe are forgotten: the host may have changed them while booting.
 */
int mod_reboot(struct mod_ctx *mc, unsigned timeout_s);

/*
 * One round trip for a whole check: runs templates/TMPL (may be NULL) with
 * args like mod_script (its output in res), and reads every file of `paths`
 * (NULL-terminated) into a cache that mod_read_file and mod_put_file then
 * use instead of asking the host again (until apply writes).
 */
int mod_probe(struct mod_ctx *mc, const char *tmpl, const char *const *args,
	      const char *const *paths, struct cmd_result *res);

/* Renders templates/NAME: {{name}} becomes a mod_set() value or a parameter. */
int mod_render(struct mod_ctx *mc, const char *tmpl, struct strbuf *out);

/*
 * Reads a remote file: 0 with *ret_exists false when it is absent.
 */
int mod_read_file(struct mod_ctx *mc, const char *path, struct strbuf *out,
		  bool *ret_exists);

/*
 * Makes `path` hold exactly `content` (mode as octal, e.g. 0644). When it
 * already does: nothing, *ret_changed false. Otherwise in check mode it
 * records the change with a unified diff; in apply mode it writes a
 * temporary file beside it and renames it over (atomic on the host).
 * ret_changed may be NULL.
 */
int mod_put_file(struct mod_ctx *mc, const char *path, const char *content,
		 unsigned mode, bool *ret_changed);
/*
 * Uploads a local file (a package, a tarball: too big for mod_put_file) to
 * `remote` over SFTP, under a temporary name, checked by sha256, then
 * renamed. Apply only: check decides whether it is needed.
 */
int mod_upload(struct mod_ctx *mc, const char *local, const char *remote, unsigned mode);
/*
 * Writes `content` into the run's directory on the admin host, as NAME
 * (one path component), mode 0644: something a person must carry
 * elsewhere (a cluster's public key for another site's administrator).
 * Its path is appended to ret_path. Fails the module (ERR_IO) when it
 * cannot, or ERR_STATE when the run keeps no directory.
 */
int mod_save_local(struct mod_ctx *mc, const char *name, const char *content, size_t len,
		   struct strbuf *ret_path);
/* mod_put_file of a rendered template. */
int mod_put_template(struct mod_ctx *mc, const char *tmpl, const char *path,
		     unsigned mode, bool *ret_changed);

/*
 * A managed switch's interactive CLI (engine/deploy/modctx-cli.c): a pty session
 * on the host's connection, for devices that speak no POSIX shell. Open it,
 * run commands, close it before the module returns (it holds the host).
 * mod_cli_run returns the command's output with echo, pager and terminal
 * codes removed; a "% ..." error line, a timeout or a lost session fails
 * through mod_fail's error with the host and the command named. Every
 * command and its output go to the run log (secrets redacted). A failed
 * login names the host and the phase (check, apply, verify) it was in.
 */
struct mod_cli;
int mod_cli_open(struct mod_ctx *mc, struct mod_cli **ret);
int mod_cli_run(struct mod_cli *cli, const char *command, struct strbuf *out);
/* The device's name as its prompt shows it ("ibsw01"). */
const char *mod_cli_devname(const struct mod_cli *cli);
/* Leaves the CLI (exit) and closes the session; NULL is fine. */
void mod_cli_close(struct mod_cli *cli);

/* Records one change check found (or apply made); "diff" may be NULL. */
void mod_change(struct mod_ctx *mc, const char *diff, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Number of changes recorded so far. */
size_t mod_nchanges(const struct mod_ctx *mc);
/* Ends the module on this host as "skipped" with a reason; returns 0. */
int mod_skip(struct mod_ctx *mc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A line of progress for the event stream. */
void mod_note(struct mod_ctx *mc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The message of the module's error so far ("" when none). */
const char *mod_errmsg(const struct mod_ctx *mc);
/* Fails the module: sets the error (ERR_REMOTE unless code says) and returns the code. */
int mod_fail(struct mod_ctx *mc, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

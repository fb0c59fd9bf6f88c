/*
 * bringup exec: an ad-hoc command on many hosts at once. Hosts that printed
 * the same thing are folded under one node set, as `clush -b` does; the
 * fold happens as results arrive (engine/ssh/fold.h), so memory follows the
 * number of distinct outputs, not of hosts.
 */
#include "cmd.h"
#include "../engine/ssh/fold.h"
#include "../engine/inventory/inventory.h"
#include "../engine/base/jsontext.h"
#include "../engine/base/nodeset.h"
#include "../engine/inventory/redact.h"
#include "../engine/ssh/runner.h"
#include "../engine/base/strbuf.h"
#include "../engine/base/xalloc.h"

#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct exec_job {
	struct remote_cmd cmd;
	struct cmd_result res;  /* output goes to `out`, not here (until -o json) */
	struct fold_out *out;   /* until the task is done and folded */
	bool ran;               /* res is valid */
};

static int exec_task(struct task_ctx *t, void *arg)
{
	struct exec_job *job = arg;
	int rc = task_exec(t, 0, &job->cmd, &job->res, task_err(t));

	job->ran = !rc;
	return rc;
}

enum host_status { HS_OK, HS_FAILED, HS_TIMEOUT, HS_LOST, HS_UNREACHABLE, HS_CANCELLED };

static enum host_status status_of(const struct task *t, const struct exec_job *j)
{
	if (t->rc == ERR_CANCELLED)
		return HS_CANCELLED;
	if (t->rc == ERR_TIMEOUT)
		return HS_TIMEOUT;
	if (t->rc)
		return cmd_exit_for(t->rc) == EXIT_UNREACHABLE ? HS_UNREACHABLE : HS_FAILED;
	switch (j->res.outcome) {
	case CMD_EXITED:
		return j->res.exit_status == 0 ? HS_OK : HS_FAILED;
	case CMD_TIMED_OUT:
		return HS_TIMEOUT;
	case CMD_CANCELLED:
		return HS_CANCELLED;
	default:
		return HS_LOST;
	}
}

static const char *const status_names[] = {
	[HS_OK] = "ok", [HS_FAILED] = "failed", [HS_TIMEOUT] = "timed out",
	[HS_LOST] = "connection lost", [HS_UNREACHABLE] = "unreachable",
	[HS_CANCELLED] = "cancelled",
};

/* After a stopped command: what became of its processes on the host. */
static const char *reap_note(enum cmd_reap r)
{
	switch (r) {
	case REAP_TERM: case REAP_KILL: case REAP_GONE:
		return "; remote processes killed";
	case REAP_UNKNOWN:
		return "; its remote process group is unknown: it may still run";
	case REAP_FAILED:
		return "; its remote processes could not be killed: they may still run";
	default:
		return "";
	}
}

struct exec_run {
	struct task *tasks;
	struct exec_job *jobs;
	struct fold *fold;
};

/* A finished host's output joins its group at once and its buffers go. */
static void on_event(const struct event *ev, void *arg)
{
	struct exec_run *run = arg;
	struct exec_job *j = &run->jobs[ev->task];

	if (ev->kind != EV_TASK_DONE)
		return;
	if (j->ran)
		fold_add(run->fold, j->out, ev->task);
	else
		fold_out_free(j->out);
	j->out = NULL;
}

/*
 * One stream of a group, ending its last line if the host did not. Read
 * whole (at most the 4 MiB cap) so that a secret split across the spill
 * file's pieces is still found and redacted.
 */
static int print_stream(struct fold *fold, size_t g, int stream, const struct redactor *r,
			struct err *err)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = fold_group_get(fold, g, stream, &sb, err);

	if (!rc) {
		redact_strbuf(r, &sb);
		fwrite(sb.buf, 1, sb.len, stdout);
		if (sb.len && sb.buf[sb.len - 1] != '\n')
			putchar('\n');
	}
	strbuf_release(&sb);
	return rc;
}

/* Hosts whose stdout+stderr are byte-identical print once. */
static int print_folded(const struct inventory *inv, const size_t *idx, struct fold *fold,
			const struct exec_job *jobs, const struct redactor *r, struct err *err)
{
	for (size_t g = 0; g < fold_ngroups(fold); g++) {
		struct strlist names = STRLIST_INIT;
		size_t nh;
		const size_t *hosts = fold_group_hosts(fold, g, &nh);
		char *set;
		int rc;

		if (!fold_group_len(fold, g, 0) && !fold_group_len(fold, g, 1))
			continue;
		for (size_t k = 0; k < nh; k++)
			strlist_push(&names, inv->hosts[idx[hosts[k]]].name);
		set = nodeset_fold(names.v, names.n);
		printf("---------------\n%s (%zu)\n---------------\n", set, names.n);
		free(set);
		strlist_clear(&names);
		if ((rc = print_stream(fold, g, 0, r, err)) || (rc = print_stream(fold, g, 1, r, err)))
			return rc;
		/* The hosts of a group printed the same bytes, so the first one's
		 * cut is theirs too. */
		if (jobs[hosts[0]].res.out_truncated || jobs[hosts[0]].res.err_truncated)
			printf("(output truncated at %u MiB)\n", CMD_OUTPUT_DEFAULT_MAX >> 20);
	}
	return 0;
}

/* "exit 0: dgx[01-62]" lines, one per distinct exit status / outcome. */
static void print_summary(const struct inventory *inv, const size_t *idx, size_t n,
			  const struct task *tasks, const struct exec_job *jobs,
			  unsigned timeout_s)
{
	bool *shown = xcalloc(n ? n : 1, sizeof(*shown));

	for (size_t i = 0; i < n; i++) {
		struct strlist names = STRLIST_INIT;
		enum host_status st = status_of(&tasks[i], &jobs[i]);
		char *set;

		if (shown[i] || tasks[i].rc)
			continue;
		for (size_t k = i; k < n; k++) {
			if (shown[k] || tasks[k].rc || status_of(&tasks[k], &jobs[k]) != st ||
			    reap_note(jobs[k].res.reap) != reap_note(jobs[i].res.reap) ||
			    (st == HS_OK && jobs[k].res.exit_status != jobs[i].res.exit_status) ||
			    (st == HS_FAILED && jobs[k].res.exit_status != jobs[i].res.exit_status))
				continue;
			shown[k] = true;
			strlist_push(&names, inv->hosts[idx[k]].name);
		}
		set = nodeset_fold(names.v, names.n);
		if (st == HS_TIMEOUT)
			printf("timed out (after %u s): %s%s\n", timeout_s, set,
			       reap_note(jobs[i].res.reap));
		else if (st == HS_CANCELLED)
			printf("cancelled (interrupted): %s%s\n", set, reap_note(jobs[i].res.reap));
		else if (st == HS_LOST)
			printf("connection lost: %s\n", set);
		else
			printf("exit %d: %s\n", jobs[i].res.exit_status, set);
		free(set);
		strlist_clear(&names);
	}
	for (size_t i = 0; i < n; i++)
		if (tasks[i].rc)
			printf("%s: %s: %s\n", status_names[status_of(&tasks[i], &jobs[i])],
			       inv->hosts[idx[i]].name, err_msg(&tasks[i].err));
	free(shown);
}

static json_t *results_json(const struct inventory *inv, const size_t *idx, size_t n,
			    const struct task *tasks, const struct exec_job *jobs)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++) {
		const struct exec_job *j = &jobs[i];
		json_t *o = json_pack("{s:s, s:s, s:f}", "host", inv->hosts[idx[i]].name,
				      "status", status_names[status_of(&tasks[i], j)],
				      "duration_s", tasks[i].duration_s);
		if (tasks[i].rc) {
			json_object_set_new(o, "error", json_string(err_msg(&tasks[i].err)));
		} else {
			json_object_set_new(o, "exit_status", j->res.outcome == CMD_EXITED ?
					    json_integer(j->res.exit_status) : json_null());
			/* Bytes that are not UTF-8 would make jansson drop the value. */
			json_set_bytes(o, "stdout", j->res.out.buf, j->res.out.len);
			json_set_bytes(o, "stderr", j->res.err.buf, j->res.err.len);
			json_object_set_new(o, "truncated",
					    json_boolean(j->res.out_truncated || j->res.err_truncated));
			if (j->res.reap != REAP_NONE)
				json_object_set_new(o, "remote_processes",
						    json_string(cmd_reap_text(j->res.reap)));
		}
		json_array_append_new(arr, o);
	}
	return json_pack("{s:o}", "hosts", arr);
}

const struct cmd_option cmd_exec_options[] = {
	{ "inventory", 'i', OPT_SHORT | OPT_FILE | OPT_INVENTORY, "FILE", "inventory (YAML)" },
	{ "limit", 'l', OPT_SHORT | OPT_HOSTS, "HOSTS", "node sets and/or group names, comma-separated" },
	{ "forks", 'f', OPT_SHORT, "N", "hosts worked on at once (default " CMD_STR(RUNNER_DEFAULT_FORKS) ")" },
	{ "timeout", 't', OPT_SHORT, "S", "per-command time limit (default: the inventory's command_timeout)" },
	{ "connect-timeout", 'C', 0, "S", "connect + authenticate limit (default: the inventory's)" },
	{ "run-timeout", 'R', 0, "S", "limit for the whole run" },
	{ "accept-new-host-keys", 'A', 0, NULL, "record unknown host keys (changed keys are refused)" },
	{ "output", 'o', OPT_SHORT, "text|json", "output format (default text)" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup exec -i INVENTORY [options] -- COMMAND\n"
		"\n"
		"Runs COMMAND with /bin/sh on every selected host at once and prints each\n"
		"distinct output once, under the node set of the hosts that printed it.\n"
		"\n");
	cmd_print_options(f, cmd_exec_options);
	fprintf(f,
		"\n"
		"A command that runs out of time is stopped on the host: its process group\n"
		"gets SIGTERM, then SIGKILL after %d s. ^C stops starting hosts, cancels the\n"
		"running commands the same way and prints what finished; a second ^C quits\n"
		"at once. A host that does not answer (refused or no reply within the connect\n"
		"timeout) is unreachable.\n"
		"\n"
		"Output is kept up to 4 MiB per stream (\"output truncated at 4 MiB\" says when\n"
		"it was cut). In JSON, bytes that are not UTF-8 show as U+FFFD in stdout/stderr\n"
		"and stdout_base64/stderr_base64 (present only then) hold the exact bytes.\n"
		"\n"
		"Exit status: 0 every host exited 0; 1 a host failed or timed out, or the run\n"
		"was interrupted; 2 usage or inventory error; 3 a host was unreachable or\n"
		"its key refused.\n",
		REAP_GRACE_MS / 1000);
}

int cmd_exec(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_getopt g;
	const char *inv_path = NULL, *limit = NULL, *format = "text";
	struct runner_opts ro = { 0 };
	unsigned connect_timeout = 0;
	struct inventory *inv = NULL;
	struct runner *runner = NULL;
	struct err err = ERR_INIT;
	struct task *tasks = NULL;
	struct exec_job *jobs = NULL;
	struct fold *fold = NULL;
	struct exec_run run;
	struct redactor *redactor = NULL;
	struct strbuf command = STRBUF_INIT;
	size_t *idx = NULL, n = 0;
	int c, status = EXIT_OK;
	bool interrupted = false;

	(void)ctx;
	cmd_getopt_init(&g, cmd_exec_options, true);
	optind = 1;
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 'i': inv_path = optarg; break;
		case 'l': limit = optarg; break;
		case 'f': if (cmd_parse_uint("exec", "--forks", optarg, &ro.forks)) return EXIT_USAGE; break;
		case 't': if (cmd_parse_uint("exec", "--timeout", optarg, &ro.command_timeout_s)) return EXIT_USAGE; break;
		case 'C': if (cmd_parse_uint("exec", "--connect-timeout", optarg, &connect_timeout)) return EXIT_USAGE; break;
		case 'R': if (cmd_parse_uint("exec", "--run-timeout", optarg, &ro.run_timeout_s)) return EXIT_USAGE; break;
		case 'A': ro.accept_new_host_keys = true; break;
		case 'o': format = optarg; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (!inv_path || optind >= argc || (strcmp(format, "text") && strcmp(format, "json"))) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		if (i > optind)
			strbuf_addch(&command, ' ');
		strbuf_addstr(&command, argv[i]);
	}

	if (cmd_inventory_load(inv_path, &inv, &err) ||
	    inventory_select(inv, limit, &idx, &n, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	if (connect_timeout)
		inv->connect_timeout_s = connect_timeout;
	ro.cancel_stops_commands = true;
	if (runner_new(inv, &ro, &runner, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	tasks = xcalloc(n ? n : 1, sizeof(*tasks));
	jobs = xcalloc(n ? n : 1, sizeof(*jobs));
	fold = fold_new();
	for (size_t i = 0; i < n; i++) {
		jobs[i].cmd.command = command.buf;
		jobs[i].out = fold_out_new(fold);
		jobs[i].cmd.sink = fold_out_sink;
		jobs[i].cmd.sink_arg = jobs[i].out;
		cmd_result_init(&jobs[i].res);
		tasks[i] = (struct task){ .hosts = &idx[i], .nhosts = 1,
					  .fn = exec_task, .arg = &jobs[i] };
	}
	cmd_interrupt_begin(cmd_cancel_runner, runner, "no new host starts, running commands "
			    "are cancelled (their remote processes killed)");
	run = (struct exec_run){ tasks, jobs, fold };
	runner_run(runner, tasks, n, on_event, &run);
	interrupted = cmd_interrupt_end();
	redactor = redactor_new();
	redactor_add_inventory(redactor, inv);
	for (size_t i = 0; i < n; i++)
		redact_err(redactor, &tasks[i].err);

	for (size_t i = 0; i < n; i++) {
		enum host_status st = status_of(&tasks[i], &jobs[i]);
		if (st == HS_UNREACHABLE)
			status = EXIT_UNREACHABLE;
		else if (st != HS_OK && status == EXIT_OK)
			status = EXIT_FAILED;
	}
	if (!strcmp(format, "json")) {
		json_t *j;

		/* The document holds every host's output anyway: take it back. */
		for (size_t i = 0; i < n; i++) {
			size_t g = jobs[i].ran ? fold_group_of(fold, i) : (size_t)-1;

			if (g != (size_t)-1 &&
			    (fold_group_get(fold, g, 0, &jobs[i].res.out, &err) ||
			     fold_group_get(fold, g, 1, &jobs[i].res.err, &err))) {
				status = cmd_fail(&err);
				goto out;
			}
			redact_strbuf(redactor, &jobs[i].res.out);
			redact_strbuf(redactor, &jobs[i].res.err);
		}
		j = results_json(inv, idx, n, tasks, jobs);
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(j);
	} else {
		if (print_folded(inv, idx, fold, jobs, redactor, &err)) {
			status = cmd_fail(&err);
			goto out;
		}
		print_summary(inv, idx, n, tasks, jobs,
			      ro.command_timeout_s ? ro.command_timeout_s : inv->command_timeout_s);
	}
	if (interrupted)
		fprintf(stderr, "bringup exec: interrupted: the results above are the hosts "
			"that finished; the others say cancelled\n");
out:
	for (size_t i = 0; jobs && i < n; i++) {
		cmd_result_release(&jobs[i].res);
		fold_out_free(jobs[i].out);
		task_release(&tasks[i]);
	}
	fold_free(fold);
	redactor_free(redactor);
	free(jobs);
	free(tasks);
	free(idx);
	runner_free(runner);
	inventory_free(inv);
	strbuf_release(&command);
	err_clear(&err);
	return status;
}

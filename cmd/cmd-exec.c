/*
 * bringup exec: an ad-hoc command on many hosts at once. Hosts that printed
 * the same thing are folded under one node set, as `clush -b` does.
 */
#include "cmd.h"
#include "../engine/inventory.h"
#include "../engine/nodeset.h"
#include "../engine/runner.h"
#include "../engine/strbuf.h"
#include "../engine/xalloc.h"

#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct exec_job {
	struct remote_cmd cmd;
	struct cmd_result res;
	bool ran;               /* res is valid */
};

static struct runner *active_runner;

static void on_sigint(int sig)
{
	(void)sig;
	if (active_runner)
		runner_cancel(active_runner);
}

static int exec_task(struct task_ctx *t, void *arg)
{
	struct exec_job *job = arg;
	int rc = task_exec(t, 0, &job->cmd, &job->res, task_err(t));

	job->ran = !rc;
	return rc;
}

enum host_status { HS_OK, HS_FAILED, HS_TIMEOUT, HS_LOST, HS_UNREACHABLE };

static enum host_status status_of(const struct task *t, const struct exec_job *j)
{
	if (t->rc)
		return cmd_exit_for(t->rc) == EXIT_UNREACHABLE ? HS_UNREACHABLE : HS_FAILED;
	switch (j->res.outcome) {
	case CMD_EXITED:
		return j->res.exit_status == 0 ? HS_OK : HS_FAILED;
	case CMD_TIMED_OUT:
		return HS_TIMEOUT;
	default:
		return HS_LOST;
	}
}

static const char *const status_names[] = {
	[HS_OK] = "ok", [HS_FAILED] = "failed", [HS_TIMEOUT] = "timed out",
	[HS_LOST] = "connection lost", [HS_UNREACHABLE] = "unreachable",
};

/* Hosts whose stdout+stderr are byte-identical print once. */
static void print_folded(const struct inventory *inv, const size_t *idx, size_t n,
			 const struct exec_job *jobs)
{
	bool *shown = xcalloc(n ? n : 1, sizeof(*shown));

	for (size_t i = 0; i < n; i++) {
		struct strlist names = STRLIST_INIT;
		const struct cmd_result *ri = &jobs[i].res;
		char *set;

		if (shown[i] || !jobs[i].ran || (!ri->out.len && !ri->err.len))
			continue;
		for (size_t k = i; k < n; k++) {
			const struct cmd_result *rk = &jobs[k].res;
			if (shown[k] || !jobs[k].ran || rk->out.len != ri->out.len ||
			    rk->err.len != ri->err.len || memcmp(rk->out.buf, ri->out.buf, ri->out.len) ||
			    memcmp(rk->err.buf, ri->err.buf, ri->err.len))
				continue;
			shown[k] = true;
			strlist_push(&names, inv->hosts[idx[k]].name);
		}
		set = nodeset_fold(names.v, names.n);
		printf("---------------\n%s (%zu)\n---------------\n", set, names.n);
		fwrite(ri->out.buf, 1, ri->out.len, stdout);
		if (ri->out.len && ri->out.buf[ri->out.len - 1] != '\n')
			putchar('\n');
		fwrite(ri->err.buf, 1, ri->err.len, stdout);
		if (ri->err.len && ri->err.buf[ri->err.len - 1] != '\n')
			putchar('\n');
		free(set);
		strlist_clear(&names);
	}
	free(shown);
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
			    (st != HS_TIMEOUT && st != HS_LOST &&
			     jobs[k].res.exit_status != jobs[i].res.exit_status))
				continue;
			shown[k] = true;
			strlist_push(&names, inv->hosts[idx[k]].name);
		}
		set = nodeset_fold(names.v, names.n);
		if (st == HS_TIMEOUT)
			printf("timed out (after %u s): %s\n", timeout_s, set);
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
			json_object_set_new(o, "stdout", json_stringn(j->res.out.buf, j->res.out.len));
			json_object_set_new(o, "stderr", json_stringn(j->res.err.buf, j->res.err.len));
			if (j->res.out_truncated || j->res.err_truncated)
				json_object_set_new(o, "truncated", json_true());
		}
		json_array_append_new(arr, o);
	}
	return json_pack("{s:o}", "hosts", arr);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup exec -i INVENTORY [options] -- COMMAND\n"
		"\n"
		"Runs COMMAND with /bin/sh on every selected host at once and prints each\n"
		"distinct output once, under the node set of the hosts that printed it.\n"
		"\n"
		"  -i, --inventory FILE     inventory (YAML)\n"
		"  -l, --limit HOSTS        node sets and/or group names, comma-separated\n"
		"  -f, --forks N            hosts worked on at once (default %d)\n"
		"  -t, --timeout S          per-command time limit in seconds (default: inventory's\n"
		"                           command_timeout)\n"
		"      --connect-timeout S  connect + authenticate limit (default: inventory's)\n"
		"      --run-timeout S      limit for the whole run\n"
		"      --accept-new-host-keys  record unknown host keys (changed keys are always refused)\n"
		"  -o, --output text|json   output format (default text)\n"
		"\n"
		"Exit status: 0 every host exited 0; 1 a host failed or timed out;\n"
		"2 usage or inventory error; 3 a host was unreachable or its key refused.\n",
		RUNNER_DEFAULT_FORKS);
}

int cmd_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "limit", required_argument, NULL, 'l' },
		{ "forks", required_argument, NULL, 'f' },
		{ "timeout", required_argument, NULL, 't' },
		{ "connect-timeout", required_argument, NULL, 'C' },
		{ "run-timeout", required_argument, NULL, 'R' },
		{ "accept-new-host-keys", no_argument, NULL, 'A' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *inv_path = NULL, *limit = NULL, *format = "text";
	struct runner_opts ro = { 0 };
	unsigned connect_timeout = 0;
	struct inventory *inv = NULL;
	struct runner *runner = NULL;
	struct err err = ERR_INIT;
	struct task *tasks = NULL;
	struct exec_job *jobs = NULL;
	struct strbuf command = STRBUF_INIT;
	size_t *idx = NULL, n = 0;
	int c, status = EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+i:l:f:t:o:h", longopts, NULL)) != -1) {
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

	if (inventory_load(inv_path, &inv, &err) ||
	    inventory_select(inv, limit, &idx, &n, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	if (connect_timeout)
		inv->connect_timeout_s = connect_timeout;
	if (runner_new(inv, &ro, &runner, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	tasks = xcalloc(n ? n : 1, sizeof(*tasks));
	jobs = xcalloc(n ? n : 1, sizeof(*jobs));
	for (size_t i = 0; i < n; i++) {
		jobs[i].cmd.command = command.buf;
		cmd_result_init(&jobs[i].res);
		tasks[i] = (struct task){ .hosts = &idx[i], .nhosts = 1,
					  .fn = exec_task, .arg = &jobs[i] };
	}
	active_runner = runner;
	signal(SIGINT, on_sigint);
	runner_run(runner, tasks, n, NULL, NULL);
	signal(SIGINT, SIG_DFL);
	active_runner = NULL;

	for (size_t i = 0; i < n; i++) {
		enum host_status st = status_of(&tasks[i], &jobs[i]);
		if (st == HS_UNREACHABLE)
			status = EXIT_UNREACHABLE;
		else if (st != HS_OK && status == EXIT_OK)
			status = EXIT_FAILED;
	}
	if (!strcmp(format, "json")) {
		json_t *j = results_json(inv, idx, n, tasks, jobs);
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(j);
	} else {
		print_folded(inv, idx, n, jobs);
		print_summary(inv, idx, n, tasks, jobs,
			      ro.command_timeout_s ? ro.command_timeout_s : inv->command_timeout_s);
	}
out:
	for (size_t i = 0; jobs && i < n; i++) {
		cmd_result_release(&jobs[i].res);
		task_release(&tasks[i]);
	}
	free(jobs);
	free(tasks);
	free(idx);
	runner_free(runner);
	inventory_free(inv);
	strbuf_release(&command);
	err_clear(&err);
	return status;
}

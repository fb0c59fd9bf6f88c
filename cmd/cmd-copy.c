/*
 * bringup copy: push one local file to many hosts over SFTP (as clush
 * --copy does), each copy verified by its sha256 before it takes the real
 * name, so that no host is left with half a file under that name. A host
 * that stalls fails on its own after --timeout; the others go on.
 */
#include "cmd.h"
#include "../engine/inventory/inventory.h"
#include "../engine/base/nodeset.h"
#include "../engine/ssh/runner.h"
#include "../engine/base/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct copy_job {
	const char *local, *remote;
	unsigned mode;
};

/* One host's part: the job, and where the file landed there. */
struct copy_one {
	const struct copy_job *job;
	char *landed; /* REMOTE, or REMOTE/BASE for a directory; owned */
};

static int copy_task(struct task_ctx *t, void *arg)
{
	struct copy_one *one = arg;
	struct upload_result ur = { 0 };
	int rc = task_upload(t, 0, one->job->local, one->job->remote, one->job->mode, &ur,
			     task_err(t));

	one->landed = ur.path;
	return rc;
}

const struct cmd_option cmd_copy_options[] = {
	{ "inventory", 'i', OPT_SHORT | OPT_FILE | OPT_INVENTORY, "FILE", "inventory (YAML)" },
	{ "limit", 'l', OPT_SHORT | OPT_HOSTS, "HOSTS", "node sets and/or group names, comma-separated" },
	{ "forks", 'f', OPT_SHORT, "N", "hosts worked on at once" },
	{ "mode", 'm', OPT_SHORT, "OCTAL", "the file mode of the copies (default 0644)" },
	{ "timeout", 't', OPT_SHORT, "S", "the longest a host may leave a step unanswered" },
	{ "accept-new-host-keys", 'A', 0, NULL, "record unknown host keys (changed keys are refused)" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup copy -i INVENTORY [--limit HOSTS] [-f N] [--mode OCTAL]\n"
		"                    [-t SECONDS] [--accept-new-host-keys] LOCAL_FILE REMOTE_PATH\n"
		"\n"
		"Uploads LOCAL_FILE to REMOTE_PATH on every selected host over SFTP; each\n"
		"copy is written under a temporary name, checked with sha256sum, then renamed.\n"
		"A REMOTE_PATH that ends in '/' or is a directory gets LOCAL_FILE's base name.\n"
		"\n");
	cmd_print_options(f, cmd_copy_options);
	fprintf(f,
		"\n"
		"--timeout bounds every step (open, each write, checksum, rename): a host that\n"
		"leaves one unanswered fails with \"sftp stalled after N bytes\" and the others\n"
		"go on (default: the inventory's command_timeout).\n"
		"\n"
		"^C stops starting hosts and stops the transfers in flight; their part files\n"
		"stay, and the next copy of the same file continues each from where it\n"
		"stopped. A second ^C quits at once.\n"
		"\n"
		"Exit status: 0 every host has the file; 1 a copy failed or the run was\n"
		"interrupted; 2 usage or\n"
		"inventory error; 3 a host was unreachable.\n");
}

/* "copied LOCAL to PATH: HOSTS", one line per path the file landed at. */
static void print_copied(const struct inventory *inv, const char *local,
			 const struct task *tasks, const struct copy_one *ones, const size_t *idx,
			 size_t n)
{
	bool *done = xcalloc(n ? n : 1, sizeof(*done));

	for (size_t i = 0; i < n; i++) {
		struct strlist hosts = STRLIST_INIT;
		char *set;

		if (done[i] || tasks[i].rc)
			continue;
		for (size_t j = i; j < n; j++)
			if (!done[j] && !tasks[j].rc && !strcmp(ones[j].landed, ones[i].landed)) {
				done[j] = true;
				strlist_push(&hosts, inv->hosts[idx[j]].name);
			}
		set = nodeset_fold(hosts.v, hosts.n);
		printf("copied %s to %s: %s\n", local, ones[i].landed, set);
		free(set);
		strlist_clear(&hosts);
	}
	free(done);
}

int cmd_copy(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_getopt g;
	const char *inv_path = NULL, *limit = NULL;
	struct runner_opts ro = { 0 };
	struct copy_job job = { .mode = 0644 };
	struct inventory *inv = NULL;
	struct runner *runner = NULL;
	struct err err = ERR_INIT;
	struct task *tasks = NULL;
	struct copy_one *ones = NULL;
	struct stat st;
	size_t *idx = NULL, n = 0;
	int c, status = EXIT_OK;
	char *end;

	(void)ctx;
	cmd_getopt_init(&g, cmd_copy_options, true);
	optind = 1;
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 'i': inv_path = optarg; break;
		case 'l': limit = optarg; break;
		case 'f': if (cmd_parse_uint("copy", "--forks", optarg, &ro.forks)) return EXIT_USAGE; break;
		case 'm':
			job.mode = (unsigned)strtoul(optarg, &end, 8);
			if (*end || job.mode > 07777) {
				fprintf(stderr, "bringup copy: bad --mode '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			if (cmd_parse_uint("copy", "--timeout", optarg, &ro.command_timeout_s))
				return EXIT_USAGE;
			break;
		case 'A': ro.accept_new_host_keys = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (!inv_path || argc - optind != 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	job.local = argv[optind];
	job.remote = argv[optind + 1];
	if (stat(job.local, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "bringup copy: %s: not a readable regular file\n", job.local);
		return EXIT_USAGE;
	}
	ro.cancel_stops_commands = true;
	if (cmd_inventory_load(inv_path, &inv, &err) ||
	    inventory_select(inv, limit, &idx, &n, &err) ||
	    runner_new(inv, &ro, &runner, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	tasks = xcalloc(n ? n : 1, sizeof(*tasks));
	ones = xcalloc(n ? n : 1, sizeof(*ones));
	for (size_t i = 0; i < n; i++) {
		ones[i].job = &job;
		tasks[i] = (struct task){ .hosts = &idx[i], .nhosts = 1,
					  .fn = copy_task, .arg = &ones[i] };
	}
	cmd_interrupt_begin(cmd_cancel_runner, runner, "no new host starts, transfers in "
			    "flight stop (their part files stay for the next copy)");
	runner_run(runner, tasks, n, NULL, NULL);
	if (cmd_interrupt_end() && status == EXIT_OK)
		status = EXIT_FAILED;

	for (size_t i = 0; i < n; i++) {
		if (!tasks[i].rc)
			continue;
		printf("failed: %s: %s\n", inv->hosts[idx[i]].name, err_msg(&tasks[i].err));
		if (cmd_exit_for(tasks[i].rc) == EXIT_UNREACHABLE)
			status = EXIT_UNREACHABLE;
		else if (status == EXIT_OK)
			status = EXIT_FAILED;
	}
	print_copied(inv, job.local, tasks, ones, idx, n);
out:
	for (size_t i = 0; tasks && i < n; i++) {
		task_release(&tasks[i]);
		free(ones[i].landed);
	}
	free(tasks);
	free(ones);
	free(idx);
	runner_free(runner);
	inventory_free(inv);
	err_clear(&err);
	return status;
}

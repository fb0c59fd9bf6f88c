/*
 * bringup copy: push one local file to many hosts over SFTP (as clush
 * --copy does), each copy verified by its sha256 before it takes the real
 * name, so that no host is left with half a file under that name.
 */
#include "cmd.h"
#include "../engine/inventory.h"
#include "../engine/nodeset.h"
#include "../engine/runner.h"
#include "../engine/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct copy_job {
	const char *local, *remote;
	unsigned mode;
};

static int copy_task(struct task_ctx *t, void *arg)
{
	struct copy_job *job = arg;

	return task_upload(t, 0, job->local, job->remote, job->mode, NULL, task_err(t));
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup copy -i INVENTORY [--limit HOSTS] [-f N] [--mode OCTAL]\n"
		"                    [--accept-new-host-keys] LOCAL_FILE REMOTE_PATH\n"
		"\n"
		"Uploads LOCAL_FILE to REMOTE_PATH on every selected host over SFTP; each\n"
		"copy is written under a temporary name, checked with sha256sum, then renamed.\n"
		"\n"
		"Exit status: 0 every host has the file; 1 a copy failed; 2 usage or\n"
		"inventory error; 3 a host was unreachable.\n");
}

int cmd_copy(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "limit", required_argument, NULL, 'l' },
		{ "forks", required_argument, NULL, 'f' },
		{ "mode", required_argument, NULL, 'm' },
		{ "accept-new-host-keys", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *inv_path = NULL, *limit = NULL;
	struct runner_opts ro = { 0 };
	struct copy_job job = { .mode = 0644 };
	struct inventory *inv = NULL;
	struct runner *runner = NULL;
	struct err err = ERR_INIT;
	struct task *tasks = NULL;
	struct strlist ok = STRLIST_INIT;
	struct stat st;
	size_t *idx = NULL, n = 0;
	int c, status = EXIT_OK;
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+i:l:f:m:h", longopts, NULL)) != -1) {
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
	if (inventory_load(inv_path, &inv, &err) ||
	    inventory_select(inv, limit, &idx, &n, &err) ||
	    runner_new(inv, &ro, &runner, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	tasks = xcalloc(n ? n : 1, sizeof(*tasks));
	for (size_t i = 0; i < n; i++)
		tasks[i] = (struct task){ .hosts = &idx[i], .nhosts = 1,
					  .fn = copy_task, .arg = &job };
	runner_run(runner, tasks, n, NULL, NULL);

	for (size_t i = 0; i < n; i++) {
		if (!tasks[i].rc) {
			strlist_push(&ok, inv->hosts[idx[i]].name);
			continue;
		}
		printf("failed: %s: %s\n", inv->hosts[idx[i]].name, err_msg(&tasks[i].err));
		if (cmd_exit_for(tasks[i].rc) == EXIT_UNREACHABLE)
			status = EXIT_UNREACHABLE;
		else if (status == EXIT_OK)
			status = EXIT_FAILED;
	}
	if (ok.n) {
		char *set = nodeset_fold(ok.v, ok.n);
		printf("copied %s to %s: %s\n", job.local, job.remote, set);
		free(set);
	}
out:
	for (size_t i = 0; tasks && i < n; i++) {
		task_release(&tasks[i]);
	}
	free(tasks);
	free(idx);
	strlist_clear(&ok);
	runner_free(runner);
	inventory_free(inv);
	err_clear(&err);
	return status;
}

/*
 * bringup bundle: pack a deploy run (journal, redacted command logs) and the
 * cluster's facts, if any were saved, into a .tar.gz for a support case.
 */
#include "cmd.h"
#include "../engine/bundle.h"
#include "../engine/inventory.h"
#include "../engine/runlog.h"
#include "../engine/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup bundle [-i INVENTORY | --state-dir DIR] [--run ID] [--facts FILE]\n"
		"                      [-o FILE.tar.gz]\n"
		"\n"
		"Packs the directory of a deploy run (default: the last one) -- its journal and\n"
		"the log of every remote command, secrets already redacted -- and the facts\n"
		"gathered by `precheck --facts` (STATE/facts.json, or --facts FILE) into one\n"
		"gzip-compressed tar file, for a support case.\n"
		"\n"
		"  -i, --inventory FILE   find the state directory from the cluster's name\n"
		"      --state-dir DIR    the state directory (default ~/.local/state/bringup/CLUSTER)\n"
		"      --run ID           the run to pack (default: the last one)\n"
		"      --facts FILE       facts to add (default STATE/facts.json when present)\n"
		"  -o, --output FILE      the bundle (default bringup-CLUSTER-RUN.tar.gz here)\n");
}

int cmd_bundle(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "state-dir", required_argument, NULL, 'D' },
		{ "run", required_argument, NULL, 'r' },
		{ "facts", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *inv_path = NULL, *state = NULL, *run = NULL, *facts = NULL, *output = NULL;
	char *state_dir = NULL, *run_id = NULL, *run_dir = NULL, *facts_path = NULL, *out = NULL;
	char *run_name = NULL;
	struct inventory *inv = NULL;
	struct err err = ERR_INIT;
	int c, status = EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': inv_path = optarg; break;
		case 'D': state = optarg; break;
		case 'r': run = optarg; break;
		case 'F': facts = optarg; break;
		case 'o': output = optarg; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc || (!inv_path && !state)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!state && inventory_load(inv_path, &inv, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	state_dir = state ? xstrdup(state) : state_dir_default(inv->cluster_name);
	if (run) {
		run_id = xstrdup(run);
	} else if (run_last(state_dir, &run_id, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	run_dir = xasprintf("%s/runs/%s", state_dir, run_id);
	facts_path = facts ? xstrdup(facts) : xasprintf("%s/facts.json", state_dir);
	run_name = xasprintf("bringup-%s-%s", inv ? inv->cluster_name : "cluster", run_id);
	out = output ? xstrdup(output) : xasprintf("%s.tar.gz", run_name);
	{
		char *run_in = xasprintf("%s/run", run_name), *facts_in = xasprintf("%s/facts.json", run_name);
		struct bundle_item items[] = { { run_dir, run_in }, { facts_path, facts_in } };

		if (access(run_dir, R_OK)) {
			err_set(&err, ERR_NOTFOUND, "no run directory %s", run_dir);
			status = cmd_fail(&err);
		}
		else if (bundle_write(out, items, 2, &err))
			status = cmd_fail(&err);
		else
			printf("bundle: %s\n", out);
		free(run_in);
		free(facts_in);
	}
out:
	free(state_dir);
	free(run_id);
	free(run_dir);
	free(facts_path);
	free(run_name);
	free(out);
	inventory_free(inv);
	err_clear(&err);
	return status;
}

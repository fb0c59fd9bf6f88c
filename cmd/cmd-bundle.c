/*
 * bringup bundle: pack a deploy run (journal, redacted command logs) and the
 * cluster's facts, if any were saved, into a .tar.gz for a support case.
 */
#include "cmd.h"
#include "../engine/rundir/bundle.h"
#include "../engine/inventory/inventory.h"
#include "../engine/rundir/runlog.h"
#include "../engine/base/xalloc.h"
#include "../modules/offline.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct cmd_option cmd_bundle_options[] = {
	{ "inventory", 'i', OPT_SHORT | OPT_FILE | OPT_INVENTORY, "FILE",
	  "find the state directory from the cluster's name; redact its secrets" },
	{ "state-dir", 'D', OPT_DIR, "DIR", "the state directory (default ~/.local/state/bringup/CLUSTER)" },
	{ "run", 'r', 0, "ID", "the run to pack (default: the last one)" },
	{ "facts", 'F', OPT_FILE, "FILE", "facts to add (default STATE/facts.json when present)" },
	{ "output", 'o', OPT_SHORT | OPT_FILE, "FILE", "the bundle (default bringup-CLUSTER-RUN.tar.gz here)" },
	{ "offline", 'O', 0, NULL, "an air-gap bundle for the inventory's cluster instead (needs -i, -o)" },
	{ "ofed", 'B', OPT_DIR, "DIR", "--offline: more MLNX_OFED tarballs to choose from" },
	{ "peermem", 'P', OPT_DIR, "DIR", "--offline: peer-memory (nv_peer_memory) sources to add" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

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
		"       bringup bundle --offline -i INVENTORY -o FILE.tar.gz [--ofed DIR] [--peermem DIR]\n"
		"\n"
		"Packs what a cluster without internet access needs for `deploy --from-bundle`:\n"
		"an MLNX_OFED tarball for each distribution (os_id + os_version_id, or\n"
		"os_release) and kernel (kernel) of the hosts with HCAs, the Scale packages\n"
		"(gpfs_installer), peer-memory sources, the SELinux module, the manifests and\n"
		"the images they name, and SHA256SUMS. Refused, naming the nodes, when a\n"
		"host's distribution or kernel is unknown or no tarball is for it.\n"
		"\n");
	cmd_print_options(f, cmd_bundle_options);
}

static int bundle_offline(const char *inv_path, const struct offline_opts *oo, const char *out)
{
	struct inventory *inv = NULL;
	struct err err = ERR_INIT;
	struct strbuf report = STRBUF_INIT;
	int status = EXIT_OK;

	if (cmd_inventory_load(inv_path, &inv, &err) ||
	    offline_bundle_create(inv, oo, out, &report, &err))
		status = cmd_fail_inv(inv, &err);
	else
		printf("%sbundle: %s\n", report.buf, out);
	strbuf_release(&report);
	inventory_free(inv);
	err_clear(&err);
	return status;
}

int cmd_bundle(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_getopt g;
	const char *inv_path = NULL, *state = NULL, *run = NULL, *facts = NULL, *output = NULL;
	char *state_dir = NULL, *run_id = NULL, *run_dir = NULL, *facts_path = NULL, *out = NULL;
	char *run_name = NULL;
	struct inventory *inv = NULL;
	struct redactor *red = NULL;
	struct err err = ERR_INIT;
	struct offline_opts oo = { NULL, NULL };
	bool offline = false;
	int c, status = EXIT_OK;

	(void)ctx;
	cmd_getopt_init(&g, cmd_bundle_options, false);
	optind = 1;
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 'i': inv_path = optarg; break;
		case 'D': state = optarg; break;
		case 'r': run = optarg; break;
		case 'F': facts = optarg; break;
		case 'o': output = optarg; break;
		case 'O': offline = true; break;
		case 'B': oo.ofed_dir = optarg; break;
		case 'P': oo.peermem_dir = optarg; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (offline || oo.ofed_dir || oo.peermem_dir) {
		if (optind != argc || !offline || !inv_path || !output || state || run || facts) {
			usage(stderr);
			return EXIT_USAGE;
		}
		return bundle_offline(inv_path, &oo, output);
	}
	if (optind != argc || (!inv_path && !state)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (inv_path && cmd_inventory_load(inv_path, &inv, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	if (inv) {
		/* Logs are redacted as written; this also covers runs from before a secret was declared. */
		red = redactor_new();
		redactor_add_inventory(red, inv);
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
		else if (bundle_write(out, items, 2, red, &err))
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
	redactor_free(red);
	inventory_free(inv);
	err_clear(&err);
	return status;
}

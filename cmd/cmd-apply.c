/*
 * bringup apply: the rendered OpenShift layer (cmd-render.c) applied through
 * the Kubernetes API with server-side apply; --check asks the server for a
 * dry run and prints the diff against the live objects.
 */
#include "cmd.h"
#include "../engine/inventory/inventory.h"
#include "../engine/kube/kube-apply.h"
#include "../engine/kube/kube-bastion.h"
#include "../engine/kube/kube-objects.h"
#include "../engine/rundir/runlog.h"
#include "../engine/base/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct cmd_option cmd_apply_options[] = {
	{ "inventory", 'i', OPT_SHORT | OPT_FILE | OPT_INVENTORY, "FILE", "the inventory (its cluster var 'openshift')" },
	{ "check", 'c', 0, NULL, "a dry run on the server (dryRun=All): the diff against the live objects" },
	{ "kubeconfig", 'k', OPT_FILE, "FILE", "server, CA and credentials (default the inventory's openshift.kubeconfig, $KUBECONFIG, ~/.kube/config)" },
	{ "state-dir", 'D', OPT_DIR, "DIR", "where deploy recorded the Spectrum Scale facts" },
	{ "crd-timeout", 'T', 0, "S", "how long a CRD may take to be Established (default 120)" },
	{ "ready-timeout", 'R', 0, "S", "then wait for the device plugin's pods and node resources (default 300; 0: no wait)" },
	{ "via", 'V', 0, "bastion", "oc apply --server-side on the inventory's bastion host over SSH" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup apply -i INVENTORY [--check] [--kubeconfig FILE] [--state-dir DIR]\n"
		"                     [--crd-timeout S]\n"
		"\n"
		"Applies what `bringup render` writes, in its order, through the Kubernetes API:\n"
		"server-side apply (field manager bringup, never forcing a field another manager\n"
		"owns). Custom resources wait for their CRD to be Established. What an earlier\n"
		"apply made (ApplySet label) and the inventory no longer names is deleted after\n"
		"the apply; namespaces never are, nodes are only labelled.\n"
		"\n"
		"  -i, --inventory FILE   the inventory (its cluster var 'openshift')\n"
		"      --check            a dry run on the server (dryRun=All): print what would\n"
		"                         be deleted, then what would change as a diff against\n"
		"                         the live objects\n"
		"      --kubeconfig FILE  server, CA and credentials (default the inventory's\n"
		"                         openshift.kubeconfig, then $KUBECONFIG, then\n"
		"                         ~/.kube/config);\n"
		"                         TLS is always verified against the kubeconfig's CA\n"
		"      --state-dir DIR    where deploy recorded the Spectrum Scale facts\n"
		"      --crd-timeout S    how long a CRD may take to be Established (default 120)\n"
		"      --ready-timeout S  then wait this long for the RDMA device plugin's pods and\n"
		"                         every labelled node to offer rdma/shared_ibN and\n"
		"                         nvidia.com/gpu (default 300; 0: do not wait)\n"
		"      --via bastion      for a cluster this host cannot reach: `oc apply\n"
		"                         --server-side -f -` on the inventory's bastion host over\n"
		"                         SSH, the manifests on stdin (its own kubeconfig)\n");
}

static void report(void *arg, const struct kube_object *o, enum kube_outcome out, const char *diff)
{
	unsigned *changed = arg;

	if (out != KUBE_UNCHANGED)
		(*changed)++;
	printf("%-12s %s %s%s%s\n", kube_outcome_str(out), o->kind, o->ns ? o->ns : "",
	       o->ns ? "/" : "", o->name);
	if (diff && *diff)
		fputs(diff, stdout);
}

/* What apply still waits for, printed when it changes. */
static void note(void *arg, const char *what)
{
	static char *last;

	(void)arg;
	if (last && !strcmp(last, what))
		return;
	free(last);
	last = strdup(what);
	printf("waiting: %s\n", what);
	fflush(stdout);
}

int cmd_apply(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_getopt g;
	const char *inv_path = NULL, *kubeconfig = NULL, *state = NULL, *via = NULL;
	struct kube_objects objs = { NULL, 0 };
	struct kube_apply_opts opts = { .prune = true, .crd_wait_s = 120, .ready_wait_s = 300, .report = report,
					.note = note };
	struct kube_client *kc = NULL;
	struct inventory *inv = NULL;
	struct err err = ERR_INIT;
	char *state_dir = NULL;
	json_t *records = NULL;
	unsigned changed = 0;
	int c, status = EXIT_OK;

	(void)ctx;
	cmd_getopt_init(&g, cmd_apply_options, false);
	optind = 1;
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 'i': inv_path = optarg; break;
		case 'c': opts.check = true; break;
		case 'k': kubeconfig = optarg; break;
		case 'D': state = optarg; break;
		case 'V': via = optarg; break;
		case 'R':
			if (cmd_parse_uint("apply", "--ready-timeout", optarg, &opts.ready_wait_s))
				return EXIT_USAGE;
			break;
		case 'T':
			if (cmd_parse_uint("apply", "--crd-timeout", optarg, &opts.crd_wait_s))
				return EXIT_USAGE;
			break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc || !inv_path || (via && strcmp(via, "bastion"))) {
		usage(stderr);
		return EXIT_USAGE;
	}
	opts.arg = &changed;
	if (cmd_inventory_load(inv_path, &inv, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	state_dir = state ? xstrdup(state) : state_dir_default(inv->cluster_name);
	records = kube_records_load(state_dir, &err);
	if (!records || kube_objects_build(inv, records, &objs, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	if (via) {
		struct strbuf out = STRBUF_INIT;
		int rc = kube_apply_bastion(inv, &objs, opts.check, &out, &err);

		fputs(out.buf, stdout);
		strbuf_release(&out);
		if (rc)
			status = cmd_fail_inv(inv, &err);
		goto out;
	}
	if (kube_client_for(inv, kubeconfig, &kc, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	if (kube_apply(kc, &objs, &opts, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	size_t napplied = 0;

	for (size_t i = 0; i < objs.n; i++)
		napplied += !objs.v[i].workload;
	printf("apply%s: %zu objects, %u %s, on %s\n", opts.check ? " --check" : "", napplied,
	       changed, opts.check ? "would change" : "changed", kube_client_server(kc));
out:
	kube_client_free(kc);
	kube_objects_release(&objs);
	json_decref(records);
	free(state_dir);
	inventory_free(inv);
	err_clear(&err);
	return status;
}

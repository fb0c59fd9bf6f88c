/*
 * bringup render: the OpenShift layer's manifests (templates/openshift/)
 * written one file per object, NN-kind-name.yaml in apply order, for admins
 * who apply through GitOps. Same inventory and records, same bytes.
 */
#include "cmd.h"
#include "../engine/inventory/inventory.h"
#include "../engine/kube/kube-objects.h"
#include "../engine/rundir/runlog.h"
#include "../engine/base/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

const struct cmd_option cmd_render_options[] = {
	{ "inventory", 'i', OPT_SHORT | OPT_FILE | OPT_INVENTORY, "FILE", "the inventory (its cluster var 'openshift')" },
	{ "output", 'o', OPT_SHORT | OPT_DIR, "DIR", "where the files go (created when missing)" },
	{ "state-dir", 'D', OPT_DIR, "DIR", "where deploy recorded the Spectrum Scale cluster ID, file system UID and path" },
	{ "with-operators", 'W', 0, NULL, "also the MPI Operator's manifests, under DIR/operators/ (never applied by bringup apply)" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup render -i INVENTORY -o DIR [--state-dir DIR] [--with-operators]\n"
		"\n"
		"Renders the OpenShift layer (Redpaper 3.4, 4.2): the SCC scc-for-mpi, per user\n"
		"namespace its service account, Role and RoleBinding, the RDMA shared device\n"
		"plugin's ConfigMap and DaemonSet, the scale=true node labels, the Spectrum\n"
		"Scale CSI custom resource and the static PersistentVolumes and claims. One\n"
		"file per object, NN-kind-name.yaml, NN being the apply order. With the\n"
		"var openshift.jobs, the MPIJobs of 4.4, 4.5 and 5.2 go to DIR/jobs/.\n"
		"\n"
		"  -i, --inventory FILE   the inventory (its cluster var 'openshift')\n"
		"  -o, --output DIR       where the files go (created when missing)\n"
		"      --state-dir DIR    where deploy recorded the Spectrum Scale cluster ID,\n"
		"                         file system UID and mount point (default\n"
		"                         ~/.local/state/bringup/CLUSTER, its last run)\n"
		"      --with-operators   also the MPI Operator (Redpaper 3.4.4) under\n"
		"                         DIR/operators/, for the admin to apply: bringup\n"
		"                         apply never installs an operator\n");
}

int cmd_render(const struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_getopt g;
	const char *inv_path = NULL, *dir = NULL, *state = NULL;
	struct kube_objects objs = { NULL, 0 };
	struct inventory *inv = NULL;
	struct err err = ERR_INIT;
	char *state_dir = NULL;
	json_t *records = NULL;
	int c, status = EXIT_OK;
	unsigned flags = 0;

	(void)ctx;
	cmd_getopt_init(&g, cmd_render_options, false);
	optind = 1;
	while ((c = cmd_getopt(&g, argc, argv)) != -1) {
		switch (c) {
		case 'i': inv_path = optarg; break;
		case 'o': dir = optarg; break;
		case 'D': state = optarg; break;
		case 'W': flags |= KUBE_WITH_OPERATORS; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc || !inv_path || !dir) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (cmd_inventory_load(inv_path, &inv, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	state_dir = state ? xstrdup(state) : state_dir_default(inv->cluster_name);
	records = kube_records_load(state_dir, &err);
	if (!records || kube_objects_build_ex(inv, records, flags, &objs, &err) ||
	    kube_objects_write(&objs, dir, &err)) {
		status = cmd_fail_inv(inv, &err);
		goto out;
	}
	for (size_t i = 0; i < objs.n; i++)
		printf("%s/%s\n", dir, objs.v[i].file);
	printf("render: %zu objects in %s\n", objs.n, dir);
out:
	kube_objects_release(&objs);
	json_decref(records);
	free(state_dir);
	inventory_free(inv);
	err_clear(&err);
	return status;
}

/*
 * openshift: the OpenShift layer as a deploy stage (Redpaper 3.4), run on
 * the admin host: the objects `bringup render` writes (SCC, per-namespace
 * RBAC, the RDMA shared device plugin, the MPI Operator, the Spectrum Scale
 * CSI custom resource, node labels, static PV/PVC), applied through the
 * Kubernetes API with server-side apply (engine/kube/kube-apply.c).
 *
 * check   a dry run on the server (dryRun=All): one change per object that
 *         would be created or changed, with its diff against the live one;
 * apply   the server-side apply, then the wait for the device plugin's pods
 *         and the nodes' rdma/shared_ibN and nvidia.com/gpu;
 * verify  the dry run again: nothing may be left to change.
 *
 * The PersistentVolume is built from what the Spectrum Scale stages of the
 * run recorded (cluster ID, file system UID, mount point; mod_records), or
 * from the cluster var openshift.scale. An inventory without the cluster var
 * `openshift` has no OpenShift layer: the optional stage is left out.
 */
#include "../engine/deploy/module.h"
#include "../engine/inventory/inventory.h"
#include "../engine/kube/kube-apply.h"
#include "../engine/kube/kube-objects.h"
#include "../engine/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

static const struct param_spec params[] = {
	{ "crd_timeout", PARAM_UINT, "120", "openshift_crd_timeout",
	  "seconds a CRD may take to be Established before its custom resources", NULL },
	{ "ready_timeout", PARAM_UINT, "300", "openshift_ready_timeout",
	  "seconds to wait for the device plugin's pods and the nodes' resources (0: no wait)",
	  NULL },
	{ NULL },
};


/*
 * Whether the PersistentVolume can be built: the Spectrum Scale stages
 * recorded what it needs, or the cluster var openshift.scale gives it.
 */
static bool scale_known(const struct inventory *inv, const json_t *records)
{
	static const char *const keys[] = { "cluster_id", "filesystem_uid", "mount_point" };
	const json_t *given = json_object_get(json_object_get(inv->vars, "openshift"), "scale");

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *k = xasprintf("scale.%s", keys[i]);
		bool known = json_string_length(json_object_get(records, k)) ||
			     json_object_get(given, keys[i]);

		free(k);
		if (!known)
			return false;
	}
	return true;
}

/* What the report callback needs: the module's context, and in apply the
 * count of objects the server changed. */
struct run {
	struct mod_ctx *mc;
	bool real;
	unsigned changed;
};

static void on_object(void *arg, const struct kube_object *o, enum kube_outcome out,
		      const char *diff)
{
	struct run *r = arg;

	if (out == KUBE_UNCHANGED)
		return;
	if (r->real) {
		r->changed++;
		mod_note(r->mc, "%s %s %s%s%s", kube_outcome_str(out), o->kind, o->ns ? o->ns : "",
			 o->ns ? "/" : "", o->name);
		return;
	}
	/* Worded as what apply does, as every module's changes are. */
	mod_change(r->mc, diff && *diff ? diff : NULL, "%s %s %s%s%s",
		   out == KUBE_WOULD_CREATE ? "create" : out == KUBE_WOULD_DELETE ? "delete" : "change", o->kind, o->ns ? o->ns : "", o->ns ? "/" : "", o->name);
}

static void on_wait(void *arg, const char *what)
{
	struct run *r = arg;

	mod_note(r->mc, "waiting: %s", what);
}

/* Renders the objects and applies them (dry run unless `real`). */
static int run(struct mod_ctx *mc, bool real)
{
	const struct inventory *inv = mod_inventory(mc);
	struct kube_objects objs = { NULL, 0 };
	struct kube_client *kc = NULL;
	struct run r = { mc, real, 0 };
	struct err err = ERR_INIT;
	struct kube_apply_opts opts = {
		.check = !real,
		.prune = true,
		.crd_wait_s = mod_param_uint(mc, "crd_timeout"),
		.ready_wait_s = real ? mod_param_uint(mc, "ready_timeout") : 0,
		.report = on_object, .note = on_wait, .arg = &r,
	};
	int rc;

	if (!inv)
		return mod_fail(mc, ERR_USAGE, "the openshift module runs as a local stage");
	if (!real && mod_checking(mc) && !scale_known(inv, mod_records(mc)))
		return mod_skip(mc, "the PersistentVolume needs the GPFS cluster ID, file system UID "
				"and mount point, which stage scale_remote_mount records once the "
				"file system is mounted: nothing to compare yet");
	if (!(rc = kube_objects_build(inv, mod_records(mc), &objs, &err)) &&
	    !(rc = kube_client_for(inv, NULL, &kc, &err)))
		rc = kube_apply(kc, &objs, &opts, &err);
	if (!rc && real)
		mod_note(mc, "%u objects changed on %s", r.changed, kube_client_server(kc));
	if (rc)
		rc = mod_fail(mc, rc, "%s", err_msg(&err));
	err_clear(&err);
	kube_client_free(kc);
	kube_objects_release(&objs);
	return rc;
}

static int check(struct mod_ctx *mc)
{
	return run(mc, false);
}

static int apply(struct mod_ctx *mc)
{
	return run(mc, true);
}

const struct stage_module mod_openshift = {
	.name = "openshift",
	.summary = "SCC, RBAC, RDMA device plugin, MPI Operator, Scale CSI, PV/PVC: server-side apply",
	.version = 1,
	.flags = MOD_LOCAL,
	.params = params,
	.check = check,
	.apply = apply,
	.applies = kube_layer,
};

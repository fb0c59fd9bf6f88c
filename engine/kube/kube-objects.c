/*
 * The OpenShift layer's objects: the rendering context built from the
 * inventory and the recorded facts, one table of templates in apply order,
 * and the render directory writer. See kube-objects.h.
 */
#include "kube-objects.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../rundir/journal.h"
#include "../rundir/runlog.h"
#include "../base/strbuf.h"
#include "../base/template.h"
#include "../base/tmpfile.h"
#include "tmpl-render.h"
#include "../base/xalloc.h"
#include "kube-prune.h"

/*
 * Apply order: what others refer to comes first (the SCC before the roles
 * that name it, namespaces before what lives in them, the ConfigMap before
 * the DaemonSet that mounts it, the volume before its claim). `each` names
 * the context list the template is rendered once per item of ({{item}}).
 */
enum { MPI_ANY, MPI_V2, MPI_LEGACY };

static const struct kube_spec {
	const char *template;
	const char *each;
	bool workload;      /* written under jobs/, not applied */
	bool operator;      /* written under operators/ with KUBE_WITH_OPERATORS */
	int mpi;            /* MPI_ANY, or only for one MPIJob API (kube_mpi_api) */
} specs[] = {
	{ "openshift/scc.yaml", NULL },
	{ "openshift/namespace.yaml", "namespaces" },
	{ "openshift/serviceaccount.yaml", "namespaces" },
	{ "openshift/role.yaml", "namespaces" },
	{ "openshift/rolebinding.yaml", "namespaces" },
	{ "openshift/rdma-configmap.yaml", NULL },
	{ "openshift/rdma-daemonset.yaml", NULL },
	{ "openshift/node-scale-label.yaml", "scale_nodes" },
	{ "openshift/csi-cacert.yaml", "csi_cacerts" },
	{ "openshift/csi-scale-operator.yaml", NULL },
	{ "openshift/pv.yaml", "volumes" },
	{ "openshift/pvc.yaml", "volumes" },
	{ "openshift/applyset-parent.yaml", NULL },
	{ "openshift/mpijob-nccl.yaml", "nccl_jobs", true },
	{ "openshift/mpijob-resnet.yaml", "resnet_jobs", true },
	{ "openshift/mpijob-training.yaml", "training_jobs", true },
	/* The MPI Operator v0.8.0 (kubeflow.org/v2beta1), in its manifest's order. */
	{ "openshift/mpi-operator-v2/01-namespace-mpi-operator.yaml", NULL, true, true, MPI_V2 },
	{ "openshift/mpi-operator-v2/02-customresourcedefinition-mpijobs.kubeflow.org.yaml", NULL,
	  true, true, MPI_V2 },
	{ "openshift/mpi-operator-v2/03-serviceaccount-mpi-operator.yaml", NULL, true, true, MPI_V2 },
	{ "openshift/mpi-operator-v2/04-clusterrole-kubeflow-mpijobs-admin.yaml", NULL, true, true,
	  MPI_V2 },
	{ "openshift/mpi-operator-v2/05-clusterrole-kubeflow-mpijobs-edit.yaml", NULL, true, true,
	  MPI_V2 },
	{ "openshift/mpi-operator-v2/06-clusterrole-kubeflow-mpijobs-view.yaml", NULL, true, true,
	  MPI_V2 },
	{ "openshift/mpi-operator-v2/07-clusterrole-mpi-operator.yaml", NULL, true, true, MPI_V2 },
	{ "openshift/mpi-operator-v2/08-clusterrolebinding-mpi-operator.yaml", NULL, true, true,
	  MPI_V2 },
	{ "openshift/mpi-operator-v2/09-deployment-mpi-operator.yaml", NULL, true, true, MPI_V2 },
	/* The legacy v0.2.3 (v1alpha2) of Redpaper 3.4.4, only with
	 * openshift.mpi_operator.api v1alpha2. */
	{ "openshift/mpi-operator/crd.yaml", NULL, true, true, MPI_LEGACY },
	{ "openshift/mpi-operator/namespace.yaml", NULL, true, true, MPI_LEGACY },
	{ "openshift/mpi-operator/clusterrole.yaml", NULL, true, true, MPI_LEGACY },
	{ "openshift/mpi-operator/serviceaccount.yaml", NULL, true, true, MPI_LEGACY },
	{ "openshift/mpi-operator/clusterrolebinding.yaml", NULL, true, true, MPI_LEGACY },
	{ "openshift/mpi-operator/deployment.yaml", NULL, true, true, MPI_LEGACY },
};

#define OS_VAR "openshift"

/* A string member of `o` (a number is taken as its text), or `def`. */
static const char *str_or(json_t *o, const char *key, const char *def)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : def;
}

static int need_str(json_t *o, const char *key, const char *where, const char **ret,
		    struct err *err)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v) || json_is_real(v))
		return err_set(err, ERR_INVENTORY, "inventory: '%s.%s' must be a string: quote "
			       "it (a number this long loses digits)", where, key);
	if (!json_is_string(v) || !*json_string_value(v))
		return err_set(err, ERR_INVENTORY, "inventory: cluster var '%s.%s' is missing "
			       "(see inventory/README.md, section openshift)", where, key);
	*ret = json_string_value(v);
	return 0;
}

static bool dns_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 253 || s[0] == '-' || s[0] == '.' || s[n - 1] == '-' || s[n - 1] == '.')
		return false;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-' || *s == '.'))
			return false;
	return true;
}

static int add_namespaces(json_t *os, const char *sa, json_t *ctx, struct err *err)
{
	json_t *list = json_object_get(os, "user_namespaces"), *out = json_array(), *v;
	size_t i;

	json_object_set_new(ctx, "namespaces", out);
	if (!json_is_array(list) || !json_array_size(list))
		return err_set(err, ERR_INVENTORY, "inventory: cluster var '" OS_VAR
			       ".user_namespaces' must list the namespaces that run MPI jobs");
	json_array_foreach(list, i, v) {
		if (!json_is_string(v) || !dns_name(json_string_value(v)))
			return err_set(err, ERR_INVENTORY, "inventory: " OS_VAR ".user_namespaces[%zu] "
				       "is not a namespace name (lower-case letters, digits, '-')", i);
		json_array_append_new(out, json_pack("{s:s, s:s, s:I}", "name", json_string_value(v),
						     "service_account", sa, "index", (json_int_t)i + 1));
	}
	return 0;
}

/*
 * One shared resource per InfiniBand port of the GPU nodes: shared_ibN on
 * netdev ibN (Redpaper 3.4.2). One ConfigMap serves every node, so the GPU
 * nodes must agree on how many they have.
 */
static int add_rdma(const struct inventory *inv, json_t *os, json_t *ctx, struct err *err)
{
	json_t *r = json_object_get(os, "rdma"), *res = json_array();
	const struct host *first = NULL;
	size_t nports = 0;

	for (size_t h = 0; h < inv->nhosts; h++) {
		const struct host *hp = &inv->hosts[h];
		size_t n = 0;

		if (!(hp->roles & (1u << ROLE_GPU_WORKER)))
			continue;
		for (size_t i = 0; i < hp->nhcas; i++)
			n += hp->hcas[i].link_layer == LINK_IB;
		if (!first) {
			first = hp;
			nports = n;
		} else if (n != nports) {
			json_decref(res);
			return err_set(err, ERR_INVENTORY, "inventory: gpu_worker hosts differ in "
				       "InfiniBand ports (%s: %zu, %s: %zu): the RDMA shared device "
				       "plugin's one ConfigMap serves them all", first->name, nports,
				       hp->name, n);
		}
	}
	if (!first || !nports) {
		json_decref(res);
		return err_set(err, ERR_INVENTORY, "inventory: no gpu_worker host has an InfiniBand "
			       "HCA (hardware hcas): nothing for the RDMA shared device plugin");
	}
	for (size_t i = 0; i < nports; i++) {
		char *name = xasprintf("shared_ib%zu", i), *dev = xasprintf("ib%zu", i);

		json_array_append_new(res, json_pack("{s:s, s:s}", "name", name, "device", dev));
		free(name);
		free(dev);
	}
	json_t *hmax = json_object_get(r, "hca_max");

	json_object_set_new(ctx, "rdma", json_pack("{s:s, s:s, s:I, s:o}",
		"namespace", str_or(r, "namespace", "kube-system"),
		"image", str_or(r, "image", "ghcr.io/mellanox/k8s-rdma-shared-dev-plugin"),
		"hca_max", json_is_integer(hmax) ? json_integer_value(hmax) : (json_int_t)100,
		"resources", res));
	return 0;
}

const char *kube_mpi_api(const struct inventory *inv, struct err *err)
{
	json_t *m = json_object_get(json_object_get(inv->vars, OS_VAR), "mpi_operator");
	const char *api = str_or(m, "api", "v2beta1");

	if (strcmp(api, "v2beta1") && strcmp(api, "v1alpha2")) {
		err_set(err, ERR_INVENTORY, "inventory: " OS_VAR ".mpi_operator.api is '%s': v2beta1 "
			"(MPI Operator v0.4 and later, the default) or v1alpha2 (a legacy v0.2.x "
			"operator, removed upstream in 2021)", api);
		return NULL;
	}
	return api;
}

bool kube_layer(const struct inventory *inv)
{
	return json_is_object(json_object_get(inv->vars, OS_VAR));
}

int kube_client_for(const struct inventory *inv, const char *path,
		    struct kube_client **ret, struct err *err)
{
	const char *source = NULL;
	char *chosen = kube_config_path(path, json_string_value(json_object_get(
		json_object_get(inv->vars, OS_VAR), "kubeconfig")), &source);
	int rc = kube_client_new(chosen, ret, err);

	if (rc)
		err_prefix(err, "kubeconfig from %s: ", source);
	free(chosen);
	return rc;
}

char *kube_node_name(const struct inventory *inv, const char *host)
{
	const char *domain = str_or(json_object_get(inv->vars, OS_VAR), "node_domain", NULL);

	return domain ? xasprintf("%s.%s", host, domain) : xstrdup(host);
}

static void add_scale_nodes(const struct inventory *inv, json_t *ctx)
{
	json_t *out = json_array();

	for (size_t h = 0; h < inv->nhosts; h++) {
		const struct host *hp = &inv->hosts[h];

		if (!(hp->roles & (1u << ROLE_SCALE_CLIENT)) || !(hp->roles & (1u << ROLE_GPU_WORKER)))
			continue;
		char *node = kube_node_name(inv, hp->name);

		json_array_append_new(out, json_pack("{s:s}", "node", node));
		free(node);
	}
	json_object_set_new(ctx, "scale_nodes", out);
}

/* What the Spectrum Scale stages recorded, or the var openshift.scale. */
static int add_scale(json_t *os, const json_t *records, json_t *ctx, struct err *err)
{
	static const char *const keys[] = { "cluster_id", "filesystem_uid", "mount_point" };
	json_t *fallback = json_object_get(os, "scale"), *s = json_object();

	json_object_set_new(ctx, "scale", s);
	for (size_t i = 0; i < 3; i++) {
		char *rk = xasprintf("scale.%s", keys[i]);
		const char *v = json_string_value(json_object_get(records, rk));

		free(rk);
		if ((!v || !*v) && json_is_number(json_object_get(fallback, keys[i])))
			return err_set(err, ERR_INVENTORY, "inventory: '" OS_VAR ".scale.%s' must be a "
				       "string: quote it (a number this long loses digits)", keys[i]);
		if (!v || !*v)
			v = str_or(fallback, keys[i], NULL);
		if (!v || !*v)
			return err_set(err, ERR_INVENTORY, "no recorded scale.%s: run `bringup deploy` "
				       "through stage scale_remote_mount first (it records the cluster "
				       "ID, file system UID and mount point), or set cluster var "
				       OS_VAR ".scale.%s", keys[i], keys[i]);
		json_object_set_new(s, keys[i], json_string(v));
	}
	return 0;
}

/*
 * The CA certificate of one cluster's GUI (openshift.csi.*.gui_ca_file, a
 * PEM file, relative to the inventory's directory): the Scale CSI driver
 * verifies the GUI's TLS with it (secureSslMode: true, cacert: a ConfigMap
 * whose name and key are the same, as IBM's "Certificates" page of the CSI
 * documentation asks; CSI 3.0.0's driver loads every PEM file of it,
 * driver/csiplugin/settings/scale_config.go).
 */
static int add_cacert(const struct inventory *inv, json_t *cl, const char *where,
		      const char *id, json_t *out, struct err *err)
{
	const char *file, *slash = inv->path ? strrchr(inv->path, '/') : NULL;
	struct strbuf pem = STRBUF_INIT;
	char *path, *name;
	int rc, fd;

	if (json_object_get(cl, "gui_ca_file") && !json_is_string(json_object_get(cl, "gui_ca_file")))
		return err_set(err, ERR_INVENTORY, "inventory: '%s.gui_ca_file' must be a string "
			       "(the path of a PEM file)", where);
	if (!json_is_string(json_object_get(cl, "gui_ca_file")) ||
	    !*json_string_value(json_object_get(cl, "gui_ca_file")))
		return err_set(err, ERR_INVENTORY, "inventory: cluster var '%s.gui_ca_file' is "
			       "missing: the PEM file of the CA that signed the Scale GUI's "
			       "certificate (on a GUI node: the issuer of `openssl s_client -connect "
			       "GUI:443`); the CSI driver verifies the GUI with it (secureSslMode)",
			       where);
	file = json_string_value(json_object_get(cl, "gui_ca_file"));
	path = file[0] == '/' || !slash ? xstrdup(file) :
		xasprintf("%.*s/%s", (int)(slash - inv->path), inv->path, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = err_set(err, ERR_INVENTORY, "inventory: %s.gui_ca_file: cannot read %s: %s",
			     where, path, strerror(errno));
		free(path);
		return rc;
	}
	rc = tmpfile_read_all(fd, &pem);
	close(fd);
	if (rc || !strstr(pem.buf ? pem.buf : "", "-----BEGIN CERTIFICATE-----") ||
	    !strstr(pem.buf, "-----END CERTIFICATE-----")) {
		rc = err_set(err, ERR_INVENTORY, "inventory: %s.gui_ca_file: %s holds no PEM "
			     "certificate (-----BEGIN CERTIFICATE-----)", where, path);
		free(path);
		strbuf_release(&pem);
		return rc;
	}
	free(path);
	name = xasprintf("cacert-%s", id);
	/* the certificates only: a note before them is the file's, not the CA's */
	json_array_append_new(out, json_pack("{s:s, s:s}", "name", name, "pem",
					     strstr(pem.buf, "-----BEGIN CERTIFICATE-----")));
	free(name);
	strbuf_release(&pem);
	return 0;
}

/* What CSI 3.0.0's CRD no longer has, and what replaced it. */
static int csi_removed(json_t *c, json_t *loc, struct err *err)
{
	if (json_object_get(c, "host_path"))
		return err_set(err, ERR_INVENTORY, "inventory: " OS_VAR ".csi.host_path: the Scale "
			       "CSI operator dropped scaleHostpath in 2.2 (the driver finds each file "
			       "system's mount point itself): remove it");
	if (json_object_get(loc, "primary_fs") || json_object_get(loc, "primary_fset"))
		return err_set(err, ERR_INVENTORY, "inventory: " OS_VAR ".csi.local.primary_fs and "
			       "primary_fset: Scale CSI 3.0 removed the primary file system and "
			       "fileset (the local cluster is spec.localScaleCluster, the recorded "
			       "scale.cluster_id): remove them");
	return 0;
}

/*
 * The Scale CSI custom resource of CSI 3.0.0 (KUBE_CSI_RELEASE): the local
 * cluster (the one OpenShift's nodes mount from, localScaleCluster) and
 * the remote storage clusters, each GUI verified with its CA.
 */
static int add_csi(const struct inventory *inv, json_t *os, json_t *ctx, struct err *err)
{
	json_t *c = json_object_get(os, "csi"), *loc, *remote, *out, *certs, *v;
	const char *gui, *secret, *image, *local_id;
	size_t i;
	int rc;

	if (!json_is_object(c))
		return err_set(err, ERR_INVENTORY, "inventory: cluster var '" OS_VAR ".csi' is "
			       "missing (the Spectrum Scale CSI clusters, see inventory/README.md)");
	loc = json_object_get(c, "local");
	local_id = json_string_value(json_object_get(json_object_get(ctx, "scale"), "cluster_id"));
	image = str_or(c, "image", KUBE_CSI_DRIVER_IMAGE);
	if (!strchr(image, '@') && (!strrchr(image, ':') ||
				    strrchr(image, ':') < strrchr(image, '/') ||
				    !strcmp(strrchr(image, ':'), ":latest")))
		return err_set(err, ERR_INVENTORY, "inventory: " OS_VAR ".csi.image '%s' names no "
			       "release: pin it by tag or digest (default %s)", image,
			       KUBE_CSI_DRIVER_IMAGE);
	certs = json_array();
	if ((rc = csi_removed(c, loc, err)) ||
	    (rc = need_str(loc, "gui_host", OS_VAR ".csi.local", &gui, err)) ||
	    (rc = need_str(loc, "secret", OS_VAR ".csi.local", &secret, err)) ||
	    (rc = add_cacert(inv, loc, OS_VAR ".csi.local", local_id, certs, err))) {
		json_decref(certs);
		return rc;
	}
	out = json_array();
	remote = json_object_get(c, "remote");
	json_array_foreach(remote, i, v) {
		const char *id, *rg, *rs;
		char *where = xasprintf(OS_VAR ".csi.remote[%zu]", i);

		if ((rc = need_str(v, "id", where, &id, err)) ||
		    (rc = need_str(v, "gui_host", where, &rg, err)) ||
		    (rc = need_str(v, "secret", where, &rs, err)) ||
		    (rc = add_cacert(inv, v, where, id, certs, err))) {
			free(where);
			json_decref(out);
			json_decref(certs);
			return rc;
		}
		free(where);
		json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:O}", "id", id, "gui_host", rg,
			"secret", rs, "cacert", json_object_get(json_array_get(certs,
				json_array_size(certs) - 1), "name")));
	}
	json_object_set_new(ctx, "csi", json_pack("{s:s, s:s, s:{s:s, s:s, s:O}, s:o}",
		"namespace", str_or(c, "namespace", "ibm-spectrum-scale-csi-driver"),
		"image", image, "local", "gui_host", gui, "secret", secret, "cacert",
		json_object_get(json_array_get(certs, 0), "name"), "remote", out));
	json_object_set_new(ctx, "csi_cacerts", certs);
	return 0;
}

/* One PV per (volume, namespace): a PV binds to one claim (Redpaper 4.2). */
static int add_volumes(json_t *os, json_t *ctx, struct err *err)
{
	json_t *vols = json_object_get(os, "volumes"), *out = json_array(), *vol;
	json_t *nss = json_object_get(ctx, "namespaces"), *scale = json_object_get(ctx, "scale");
	size_t i, j;

	json_object_set_new(ctx, "volumes", out);
	json_array_foreach(vols, i, vol) {
		const char *name, *dir, *storage;
		json_t *labels = json_object_get(vol, "labels"), *ns, *lv;
		const char *lk;
		int rc;

		if ((rc = need_str(vol, "name", OS_VAR ".volumes[]", &name, err)) ||
		    (rc = need_str(vol, "dir", OS_VAR ".volumes[]", &dir, err)) ||
		    (rc = need_str(vol, "storage", OS_VAR ".volumes[]", &storage, err)))
			return rc;
		if (!dns_name(name) || strstr(dir, ".."))
			return err_set(err, ERR_INVENTORY, "inventory: " OS_VAR ".volumes[%zu]: name "
				       "'%s' must be a DNS name and dir '%s' stay under the mount point",
				       i, name, dir);
		json_array_foreach(nss, j, ns) {
			json_t *lab = json_array();
			char *pv = xasprintf("%s-pv%02zu", name, j + 1), *pvc = xasprintf("%s-pvc", name);
			/* CSI 2.5+'s layout (IBM ibm-spectrum-scale-csi
			 * v3.0.0, tools/generate_static_provisioning_yamls.sh):
			 * <storageclass type>;<volume type>;<cluster id>;<fs uuid>;
			 * <consistency group>;<fileset>;<path>, a static volume
			 * of a directory being type 0;0 with no group or fileset. */
			char *handle = xasprintf("0;0;%s;%s;;;%s/%s",
				json_string_value(json_object_get(scale, "cluster_id")),
				json_string_value(json_object_get(scale, "filesystem_uid")),
				json_string_value(json_object_get(scale, "mount_point")), dir);

			json_object_foreach(labels, lk, lv)
				if (json_is_string(lv))
					json_array_append_new(lab, json_pack("{s:s, s:s}", "key", lk,
									     "value", json_string_value(lv)));
			json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}",
				"pv", pv, "pvc", pvc, "namespace",
				json_string_value(json_object_get(ns, "name")), "storage", storage,
				"volume_handle", handle, "labels", lab));
			free(pv);
			free(pvc);
			free(handle);
		}
	}
	return 0;
}

/*
 * The user's training job of Redpaper 4.3 and 5.2 (openshift.jobs.training:
 * name, wdir, command): one single-GPU pod per GPU of the gpu_worker nodes,
 * named NAME-PPx01xNN-gpu like the Redpaper's tf2-a2d2-16x01x02-gpu. `base`
 * is a rendered NCCL job's item (namespace, service account, claim).
 */
static int add_training(json_t *j, json_t *base, size_t nodes, size_t gpus, json_t *ctx,
			struct err *err)
{
	json_t *t = json_object_get(j, "training"), *cmd, *v, *item;
	const char *name, *wdir;
	size_t i;
	int rc;

	if (!t)
		return 0;
	cmd = json_object_get(t, "command");
	if ((rc = need_str(t, "name", OS_VAR ".jobs.training", &name, err)) ||
	    (rc = need_str(t, "wdir", OS_VAR ".jobs.training", &wdir, err)))
		return rc;
	if (!json_is_array(cmd) || !json_array_size(cmd))
		return err_set(err, ERR_INVENTORY, "inventory: " OS_VAR ".jobs.training.command must "
			       "list the program and its arguments (e.g. [python, main.py])");
	json_array_foreach(cmd, i, v)
		if (!json_is_string(v))
			return err_set(err, ERR_INVENTORY, "inventory: " OS_VAR ".jobs.training.command"
				       "[%zu] must be a string: quote it", i);
	char *full = xasprintf("%s-%02zux01x%02zu-gpu", name, nodes * gpus, nodes);

	item = json_pack("{s:s, s:s, s:I, s:I, s:s, s:O, s:O, s:O, s:O}", "name", full,
			 "wdir", wdir, "workers", (json_int_t)(nodes * gpus), "nodes", (json_int_t)nodes,
			 "namespace", json_string_value(json_object_get(base, "namespace")),
			 "service_account", json_object_get(base, "service_account"),
			 "claim", json_object_get(base, "claim"), "volume", json_object_get(base, "volume"),
			 "command", cmd);
	free(full);
	if (!item || !dns_name(json_string_value(json_object_get(item, "name")))) {
		json_decref(item);
		return err_set(err, ERR_INVENTORY, "inventory: " OS_VAR ".jobs.training.name must be "
			       "a DNS name (lower-case letters, digits, '-')");
	}
	json_array_append_new(json_object_get(ctx, "training_jobs"), item);
	return 0;
}

static int add_mpi_operator(const struct inventory *inv, json_t *os, json_t *ctx,
			    struct err *err)
{
	json_t *m = json_object_get(os, "mpi_operator");
	const char *api = kube_mpi_api(inv, err);

	if (!api)
		return ERR_INVENTORY;
	json_object_set_new(ctx, "mpi", json_pack("{s:s, s:b}", "api_version", api,
						  "legacy", !strcmp(api, "v1alpha2")));

	json_object_set_new(ctx, "mpi_operator", json_pack("{s:s, s:s}",
		"image", str_or(m, "image", strcmp(api, "v1alpha2") ? "mpioperator/mpi-operator:0.8.0" :
				"mpioperator/mpi-operator:latest"),
		"kubectl_delivery_image", str_or(m, "kubectl_delivery_image",
						 "mpioperator/kubectl-delivery:latest")));
	return 0;
}

/*
 * The NCCL MPIJobs (Redpaper 4.4), only when openshift.jobs is set: one
 * node of G GPUs, every node with G GPUs a pod, and N*G pods of one GPU,
 * each in the three NCCL modes (Redpaper 4.3).
 */
static int add_jobs(const struct inventory *inv, json_t *os, json_t *ctx, struct err *err)
{
	static const struct { const char *name; int ib_disable, gdr; } modes[] = {
		{ "tcp", 1, 0 }, { "ib", 0, 0 }, { "ib-gdr", 0, 1 },
	};
	json_t *j = json_object_get(os, "jobs"), *out = json_array(), *rn = json_array();
	json_t *gid = json_object_get(j, "run_as_group");
	json_t *ns = json_array_get(json_object_get(ctx, "namespaces"), 0);
	json_t *vol = json_array_get(json_object_get(ctx, "volumes"), 0);
	size_t nodes = 0, gpus = 0;

	json_object_set_new(ctx, "nccl_jobs", out);
	json_object_set_new(ctx, "resnet_jobs", rn);
	json_object_set_new(ctx, "training_jobs", json_array());
	if (!j)
		return 0;
	if (json_object_get(j, "run_as_user"))
		return err_set(err, ERR_INVENTORY, "inventory: " OS_VAR ".jobs.run_as_user: OpenShift "
			       "runs a pod with a UID from its namespace's range (annotation "
			       "openshift.io/sa.scc.uid-range) and the SCC (runAsUser MustRunAsRange) "
			       "refuses any other: remove it, and give the data directory to the group "
			       OS_VAR ".jobs.run_as_group (the pods' supplementalGroups)");
	if ((gid && !json_is_integer(gid)) || !vol)
		return err_set(err, ERR_INVENTORY, "inventory: " OS_VAR ".jobs needs a volume in "
			       OS_VAR ".volumes for the jobs' /workspace; run_as_group, when given, "
			       "is a number (the data directory's group)");
	for (size_t h = 0; h < inv->nhosts; h++)
		if (inv->hosts[h].roles & (1u << ROLE_GPU_WORKER)) {
			nodes++;
			if (!gpus || inv->hosts[h].gpus.count < gpus)
				gpus = inv->hosts[h].gpus.count;
		}
	if (!nodes || !gpus)
		return err_set(err, ERR_INVENTORY, "inventory: " OS_VAR ".jobs: no gpu_worker host "
			       "says how many GPUs it has (hardware gpus.count)");
	json_object_set_new(ctx, "jobs", json_pack("{s:s, s:s, s:s, s:O}",
		"image", str_or(j, "image", "nvcr.io/nvidia/tensorflow:20.03-tf2-py3"),
		"nccl_test", str_or(j, "nccl_test", "/workspace/other/nccl/all_reduce_perf"),
		"resnet_script", str_or(j, "resnet_script", "/workspace/other/benchmarks/scripts/"
					"tf_cnn_benchmarks/tf_cnn_benchmarks.py"),
		"run_as_group", gid ? gid : json_false()));
	size_t shapes[3][2] = { { 1, gpus }, { nodes, gpus }, { nodes * gpus, 1 } };

	for (size_t s = 0; s < 3; s++) {
		if (s == 1 && nodes == 1)
			continue;
		for (size_t m = 0; m < 3; m++) {
			char *name = xasprintf("nccl-test-mpi-%02zux%02zu-%s", shapes[s][0], shapes[s][1],
					       modes[m].name);

			json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:i, s:i, "
				"s:s, s:s, s:s}", "name", name, "namespace",
				json_string_value(json_object_get(ns, "name")), "mode", modes[m].name,
				"workers", (json_int_t)shapes[s][0], "np", (json_int_t)shapes[s][0],
				"gpus", (json_int_t)shapes[s][1], "ib_disable", modes[m].ib_disable,
				"gdr_level", modes[m].gdr, "service_account",
				json_string_value(json_object_get(ns, "service_account")),
				"claim", json_string_value(json_object_get(vol, "pvc")),
				"volume", str_or(j, "volume_name", "data")));
			free(name);
			/* ResNet-50: one rank per GPU; WWxGGxNN = pods x GPUs x nodes (4.5) */
			name = xasprintf("tf2-resnet50-%02zux%02zux%02zu-%s", shapes[s][0], shapes[s][1],
					 s == 0 ? (size_t)1 : nodes, modes[m].name);
			json_t *r = json_deep_copy(json_array_get(out, json_array_size(out) - 1));

			json_object_set_new(r, "name", json_string(name));
			json_object_set_new(r, "np", json_integer((json_int_t)(shapes[s][0] * shapes[s][1])));
			json_object_set_new(r, "container", json_string(name));
			json_array_append_new(rn, r);
			free(name);
		}
	}
	return add_training(j, json_array_get(out, 0), nodes, gpus, ctx, err);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The ApplySet (kube-prune.h): the id every applied object is labelled
 * with, and the parent's annotations: the kinds pruned and the namespaces
 * other than its own that members live in (sorted, comma-separated).
 */
static void add_applyset(json_t *ctx)
{
	json_t *set = json_object(), *nss = json_object_get(ctx, "namespaces"), *v;
	const char *extra[] = {
		json_string_value(json_object_get(json_object_get(ctx, "rdma"), "namespace")),
		json_string_value(json_object_get(json_object_get(ctx, "csi"), "namespace")),
	};
	const char **names, *k;
	struct strbuf sb = STRBUF_INIT;
	char *id = kube_applyset_id(), *gk = kube_prune_group_kinds();
	size_t i, n = 0;

	json_array_foreach(nss, i, v)
		json_object_set_new(set, json_string_value(json_object_get(v, "name")), json_true());
	for (i = 0; i < 2; i++)
		if (extra[i])
			json_object_set_new(set, extra[i], json_true());
	json_object_del(set, KUBE_APPLYSET_NAMESPACE);
	names = xmalloc((json_object_size(set) + 1) * sizeof(*names));
	json_object_foreach(set, k, v)
		names[n++] = k;
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", names[i]);
	json_object_set_new(ctx, "applyset", json_string(id));
	json_object_set_new(ctx, "applyset_parent", json_pack("{s:s, s:s, s:s, s:s}", "name",
		KUBE_APPLYSET_PARENT, "namespace", KUBE_APPLYSET_NAMESPACE, "group_kinds", gk,
		"namespaces", sb.buf));
	strbuf_release(&sb);
	free(names);
	free(id);
	free(gk);
	json_decref(set);
}

static json_t *build_context(const struct inventory *inv, const json_t *records, struct err *err)
{
	json_t *os = json_object_get(inv->vars, OS_VAR), *ctx;
	int rc;

	if (!json_is_object(os)) {
		err_set(err, ERR_INVENTORY, "%s: no cluster var '" OS_VAR "': it names the user "
			"namespaces, CSI clusters and volumes of the OpenShift layer (see "
			"inventory/README.md)", inv->path ? inv->path : "inventory");
		return NULL;
	}
	ctx = json_pack("{s:s, s:s}", "cluster", inv->cluster_name ? inv->cluster_name : "",
			"scc", str_or(os, "scc", "scc-for-mpi"));
	if ((rc = add_namespaces(os, str_or(os, "service_account", "mpi"), ctx, err)) ||
	    (rc = add_rdma(inv, os, ctx, err)) ||
	    (rc = add_scale(os, records, ctx, err)) ||
	    (rc = add_csi(inv, os, ctx, err)) ||
	    (rc = add_volumes(os, ctx, err)) ||
	    (rc = add_jobs(inv, os, ctx, err)) ||
	    (rc = add_mpi_operator(inv, os, ctx, err))) {
		json_decref(ctx);
		return NULL;
	}
	add_scale_nodes(inv, ctx);
	add_applyset(ctx);
	return ctx;
}

static char *lower(const char *s)
{
	char *r = xstrdup(s);

	for (char *p = r; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return r;
}

static int add_object(struct kube_objects *o, const char *tname, const char *src, size_t len,
		      json_t *ctx, const struct kube_spec *spec, struct err *err)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *obj = NULL, *meta;
	const char *api, *kind, *name, *ns;
	int rc = tmpl_render_yaml(tname, src, len, ctx, &sb, &obj, err);

	if (rc) {
		strbuf_release(&sb);
		return rc;
	}
	meta = json_object_get(obj, "metadata");
	api = json_string_value(json_object_get(obj, "apiVersion"));
	kind = json_string_value(json_object_get(obj, "kind"));
	name = json_string_value(json_object_get(meta, "name"));
	ns = json_string_value(json_object_get(meta, "namespace"));
	if (!api || !kind || !name || !dns_name(name) || (ns && !dns_name(ns))) {
		rc = err_set(err, ERR_PARSE, "%s: renders an object without apiVersion, kind and a "
			     "DNS metadata.name", tname);
		json_decref(obj);
		strbuf_release(&sb);
		return rc;
	}
	o->v = xrealloc(o->v, (o->n + 1) * sizeof(*o->v));
	struct kube_object *k = &o->v[o->n++];
	char *lk = lower(kind);

	*k = (struct kube_object){ .api_version = xstrdup(api), .kind = xstrdup(kind),
				   .name = xstrdup(name), .ns = ns ? xstrdup(ns) : NULL,
				   .template = xstrdup(tname), .yaml = strbuf_detach(&sb, NULL),
				   .obj = obj };
	k->workload = spec->workload;
	k->operator = spec->operator;
	if (spec->workload) {
		size_t nj = 0;

		for (size_t i = 0; i < o->n; i++)
			nj += o->v[i].workload && o->v[i].operator == spec->operator;
		k->file = xasprintf("%s/%02zu-%s-%s.yaml", spec->operator ? "operators" : "jobs",
				    nj, lk, name);
	} else {
		k->file = xasprintf("%02zu-%s-%s.yaml", o->n, lk, name);
	}
	free(lk);
	return 0;
}

int kube_objects_build(const struct inventory *inv, const json_t *records,
		       struct kube_objects *out, struct err *err)
{
	return kube_objects_build_ex(inv, records, 0, out, err);
}

int kube_objects_build_ex(const struct inventory *inv, const json_t *records, unsigned flags,
			  struct kube_objects *out, struct err *err)
{
	json_t *ctx = build_context(inv, records, err);
	int rc = 0;

	*out = (struct kube_objects){ NULL, 0 };
	if (!ctx)
		return err && err->code ? err->code : ERR_INVENTORY;
	for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]) && !rc; s++) {
		size_t len;
		const char *src = template_get(specs[s].template, &len);

		bool legacy = json_is_true(json_object_get(json_object_get(ctx, "mpi"), "legacy"));

		if (specs[s].operator && !(flags & KUBE_WITH_OPERATORS))
			continue;
		if ((specs[s].mpi == MPI_V2 && legacy) || (specs[s].mpi == MPI_LEGACY && !legacy))
			continue;
		if (!src) {
			rc = err_set(err, ERR_INTERNAL, "template %s is not built in", specs[s].template);
			break;
		}
		if (!specs[s].each) {
			rc = add_object(out, specs[s].template, src, len, ctx, &specs[s], err);
			continue;
		}
		json_t *list = json_object_get(ctx, specs[s].each), *item;
		size_t i;

		json_array_foreach(list, i, item) {
			json_object_set(ctx, "item", item);
			rc = add_object(out, specs[s].template, src, len, ctx, &specs[s], err);
			json_object_del(ctx, "item");
			if (rc)
				break;
		}
	}
	json_decref(ctx);
	if (rc)
		kube_objects_release(out);
	return rc;
}

void kube_objects_release(struct kube_objects *o)
{
	for (size_t i = 0; i < o->n; i++) {
		struct kube_object *k = &o->v[i];

		free(k->api_version);
		free(k->kind);
		free(k->name);
		free(k->ns);
		free(k->template);
		free(k->file);
		free(k->yaml);
		json_decref(k->obj);
	}
	free(o->v);
	*o = (struct kube_objects){ NULL, 0 };
}

static int write_whole(const char *path, const char *text, struct err *err)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = 0;

	if (!f) {
		rc = err_set(err, ERR_IO, "%s: %s", tmp, strerror(errno));
	} else {
		bool bad = fputs(text, f) == EOF;

		if (fclose(f) || bad)
			rc = err_set(err, ERR_IO, "%s: %s", tmp, strerror(errno));
		else if (rename(tmp, path))
			rc = err_set(err, ERR_IO, "%s: %s", path, strerror(errno));
		if (rc)
			unlink(tmp);
	}
	free(tmp);
	return rc;
}

int kube_objects_write(const struct kube_objects *o, const char *dir, struct err *err)
{
	int rc = mkdir_p(dir, err);

	for (size_t i = 0; i < o->n && !rc; i++) {
		const char *slash = strchr(o->v[i].file, '/');

		if (slash) {
			char *sub = xasprintf("%s/%.*s", dir, (int)(slash - o->v[i].file), o->v[i].file);

			rc = mkdir_p(sub, err);
			free(sub);
		}
	}
	for (size_t i = 0; i < o->n && !rc; i++) {
		char *path = xasprintf("%s/%s", dir, o->v[i].file);

		rc = write_whole(path, o->v[i].yaml, err);
		free(path);
	}
	return rc;
}

json_t *kube_records_load(const char *state_dir, struct err *err)
{
	struct err e = ERR_INIT;
	struct journal *j = NULL;
	char *id = NULL, *path;
	json_t *r;

	if (run_last(state_dir, &id, &e)) {
		err_clear(&e);
		return json_object();
	}
	path = xasprintf("%s/runs/%s/journal.json", state_dir, id);
	free(id);
	if (journal_load(path, &j, err)) {
		free(path);
		return err && err->code == ERR_NOTFOUND ? (err_clear(err), json_object()) : NULL;
	}
	free(path);
	r = json_object_get(journal_json(j), "records");
	r = json_is_object(r) ? json_deep_copy(r) : json_object();
	journal_free(j);
	return r;
}

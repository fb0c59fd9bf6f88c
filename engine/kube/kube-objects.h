/*
 * kube-objects: the OpenShift layer's objects (Redpaper 3.4, 4.2) rendered
 * from templates/openshift/ with what the inventory says and what the
 * Spectrum Scale stages recorded, in the order they must be applied.
 *
 * The inventory's cluster var `openshift` (inventory/README.md) names the
 * user namespaces, the CSI clusters and the static volumes; the HCAs come
 * from the gpu_worker hosts' hardware; the PersistentVolume's volumeHandle
 * from the records scale.cluster_id, scale.filesystem_uid and
 * scale.mount_point (deploy's journal; the var openshift.scale may give them
 * when no deploy ran from this host).
 */
#ifndef BRINGUP_KUBE_OBJECTS_H
#define BRINGUP_KUBE_OBJECTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"
#include "../inventory/inventory.h"
#include "kube-client.h"

/*
 * The IBM Storage Scale CSI release the custom resource is written for
 * (github.com/IBM/ibm-spectrum-scale-csi tag v3.0.0, commit d7681200,
 * operator/config/crd/bases/csi.ibm.com_csiscaleoperators.yaml), and its
 * node driver image (operator/controllers/config/constants.go,
 * CSIDriverPluginImage), pinned in spec.spectrumScale.
 */
#define KUBE_CSI_RELEASE "v3.0.0"
#define KUBE_CSI_DRIVER_IMAGE "quay.io/ibm-spectrum-scale/ibm-spectrum-scale-csi-driver:v3.0.0"

struct kube_object {
	char *api_version;  /* "rbac.authorization.k8s.io/v1" */
	char *kind;         /* "Role" */
	char *name;
	char *ns;           /* NULL for cluster-scoped objects */
	char *template;     /* "openshift/role.yaml" */
	char *file;         /* "04-role-mpi.yaml": NN in apply order */
	char *yaml;         /* the rendered text */
	bool workload;      /* a job (jobs/) or operator (operators/): rendered, never applied */
	bool operator;      /* the MPI Operator's objects (operators/), KUBE_WITH_OPERATORS */
	json_t *obj;        /* the same, parsed */
};

struct kube_objects {
	struct kube_object *v;
	size_t n;
};

/*
 * Renders every object for `inv`. `records` is a JSON object of journal
 * records (may be NULL). ERR_INVENTORY names what is missing (a var, a
 * record); ERR_PARSE a template that renders invalid YAML. On success *out
 * is filled (release with kube_objects_release).
 */
int kube_objects_build(const struct inventory *inv, const json_t *records,
		       struct kube_objects *out, struct err *err);
/*
 * The same; with KUBE_WITH_OPERATORS also the MPI Operator's objects
 * (operators/NN-kind-name.yaml, workload: `apply` never installs an
 * operator unasked, the admin applies that directory).
 */
#define KUBE_WITH_OPERATORS 1u
int kube_objects_build_ex(const struct inventory *inv, const json_t *records, unsigned flags,
			  struct kube_objects *out, struct err *err);
void kube_objects_release(struct kube_objects *o);

/*
 * Writes each object to DIR/<file> (DIR created when missing; files
 * written whole: a temporary file renamed). Files of an earlier render
 * that no longer exist are left alone.
 */
int kube_objects_write(const struct kube_objects *o, const char *dir, struct err *err);

/*
 * The records of the newest deploy run under state_dir (STATE/last), as a
 * new JSON object; an empty one when there was no run.
 */
json_t *kube_records_load(const char *state_dir, struct err *err);

/*
 * The MPIJob API the cluster's MPI Operator serves: "v2beta1" (v0.4+, the
 * default), or "v1alpha2" only when openshift.mpi_operator.api asks for a
 * legacy (v0.2.x) operator. Another value is ERR_INVENTORY (returns NULL).
 */
const char *kube_mpi_api(const struct inventory *inv, struct err *err);

/* Whether the inventory has a Kubernetes layer: the cluster var openshift. */
bool kube_layer(const struct inventory *inv);

/*
 * A client for the inventory's cluster (caller frees): the kubeconfig at
 * `path` when given (--kubeconfig), else as kube_config_path() chooses with
 * the inventory's openshift.kubeconfig; an error names where it came from.
 */
int kube_client_for(const struct inventory *inv, const char *path,
		    struct kube_client **ret, struct err *err);

/* The Kubernetes node name of inventory host `host`: the host name, plus
 * "." and the cluster var openshift.node_domain when set. Caller frees. */
char *kube_node_name(const struct inventory *inv, const char *host);

#endif

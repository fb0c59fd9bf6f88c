/*
 * kube-prune: what bringup owns on the cluster, ApplySet-style (KEP-3659,
 * as kubectl's `apply --prune --applyset` does it), and the removal of
 * what the inventory no longer names.
 *
 * Every object apply sends carries the label applyset.kubernetes.io/
 * part-of=ID; the parent ConfigMap (templates/openshift/applyset-parent.
 * yaml, applied last) carries applyset.kubernetes.io/id=ID and the
 * namespaces its members live in. Pruning lists, for each kind of the
 * prune table (kube_prune_kinds) in the namespaces the live parent and the
 * render name, the objects with that label, and deletes those the render
 * does not hold, in reverse apply order. Never pruned: Namespaces (they
 * hold user data; bringup does not label them) and Nodes (bringup only
 * labels them). A kind whose API is not served is skipped.
 */
#ifndef BRINGUP_KUBE_PRUNE_H
#define BRINGUP_KUBE_PRUNE_H

#include <stdbool.h>

#include "../base/err.h"
#include "kube-client.h"
#include "kube-objects.h"

#define KUBE_APPLYSET_PARENT "bringup-applyset"
#define KUBE_APPLYSET_NAMESPACE "kube-system"

/* "applyset-<base64url(sha256(NAME.NAMESPACE.ConfigMap.))>-v1" of the
 * parent above, as kubectl computes it (ComputeApplysetID). Caller frees. */
char *kube_applyset_id(void);

/* The kinds bringup prunes, "Kind.group" sorted (the parent's
 * contains-group-kinds). Caller frees. */
char *kube_prune_group_kinds(void);

/* An object found on the server that the render no longer holds. */
struct kube_stale {
	struct kube_object o;   /* api_version, kind, name, ns, file ("-" ) only */
	char *path;             /* its API path, for DELETE */
};

struct kube_stale_list {
	struct kube_stale *v;
	size_t n;
};

/*
 * Lists the stale objects (in the order they are to be deleted) into *ret
 * (release with kube_stale_release). ERR_* when the server cannot be read
 * (a 403 names the verb and resource).
 */
int kube_prune_find(struct kube_client *kc, const struct kube_objects *objs,
		    struct kube_stale_list *ret, struct err *err);
/* Deletes one (a 404 counts as done). */
int kube_prune_delete(struct kube_client *kc, const struct kube_stale *s, struct err *err);
void kube_stale_release(struct kube_stale_list *l);

#endif

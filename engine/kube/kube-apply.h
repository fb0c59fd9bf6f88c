/*
 * kube-apply: server-side apply of the rendered objects (kube-objects.h)
 * through the API (kube-client.h), in order: PATCH with
 * application/apply-patch+yaml, fieldManager=bringup, force=false; with
 * `check`, dryRun=All and a diff against the live object. Kinds are found by
 * discovery; a custom resource waits for its CRD to be Established. Errors
 * say what an admin can do (credentials, the missing verb, the operator to
 * install, the field manager that owns a field, the server's validation).
 * With `prune`, deletes what it applied before and the render no longer
 * holds (ApplySet membership, kube-prune.h), after the new objects are applied
 * and before the ApplySet parent is; --check reports those removals first.
 * Never creates a Node (it only labels one).
 */
#ifndef BRINGUP_KUBE_APPLY_H
#define BRINGUP_KUBE_APPLY_H

#include <stdbool.h>

#include "../base/err.h"
#include "kube-client.h"
#include "kube-objects.h"

enum kube_outcome {
	KUBE_CREATED,
	KUBE_CONFIGURED,   /* the server's object changed */
	KUBE_UNCHANGED,
	KUBE_WOULD_CREATE, /* --check */
	KUBE_WOULD_CHANGE,
	KUBE_DELETED,      /* pruned: bringup applied it before, the render no longer has it */
	KUBE_WOULD_DELETE, /* --check: reported before the objects applied */
};

const char *kube_outcome_str(enum kube_outcome o);

struct kube_apply_opts {
	bool check;            /* dryRun=All, nothing changes */
	/* The objects are the whole render (kube_objects_build): delete what
	 * bringup's ApplySet held before and they no longer hold. Never for a
	 * partial list (validate's jobs). */
	bool prune;
	unsigned crd_wait_s;   /* how long a CRD may take to become Established */
	/* Called once per object applied; `diff` only with check (may be ""). */
	void (*report)(void *arg, const struct kube_object *o, enum kube_outcome out,
		       const char *diff);
	void *arg;
	/* When not 0: after the apply, wait this long for the RDMA device
	 * plugin's pods to be ready and the labelled nodes to offer every
	 * rdma/shared_ibN and nvidia.com/gpu. */
	unsigned ready_wait_s;
	/* Called with what is still awaited, about twice a second. May be NULL. */
	void (*note)(void *arg, const char *what);
};

/* Applies every object in order, stopping at the first error (named by
 * object), pruning as above; then, unless check, waits as ready_wait_s
 * says. */
int kube_apply(struct kube_client *kc, const struct kube_objects *objs,
	       const struct kube_apply_opts *opts, struct err *err);

#endif

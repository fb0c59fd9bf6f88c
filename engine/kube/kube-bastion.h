/*
 * kube-bastion: the apply path for clusters the admin host cannot reach:
 * the rendered objects go on stdin to `oc apply --server-side
 * --field-manager=bringup -f -` on the inventory's bastion host over SSH
 * (its own kubeconfig, `oc login` there). No argv of ours carries a
 * manifest or a credential.
 */
#ifndef BRINGUP_KUBE_BASTION_H
#define BRINGUP_KUBE_BASTION_H

#include <stdbool.h>

#include "../base/err.h"
#include "../inventory/inventory.h"
#include "kube-objects.h"
#include "../base/strbuf.h"

/*
 * Applies every non-workload object of `objs` in one `oc apply` on the
 * first host of the bastion group (with `check`: --dry-run=server). oc's
 * stdout is appended to `out`. ERR_INVENTORY when there is no bastion;
 * ERR_REMOTE with oc's error when it fails; SSH errors as the runner gives.
 */
int kube_apply_bastion(const struct inventory *inv, const struct kube_objects *objs,
		       bool check, struct strbuf *out, struct err *err);

#endif

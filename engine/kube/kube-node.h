/*
 * kube-node: taking a node out of the scheduler's hands and giving it back,
 * as `oc adm cordon/drain/uncordon` do, through the API (kube-client.h):
 *   cordon    merge patch {"spec":{"unschedulable":true}} on the Node
 *   drain     every pod on the node that a controller will place elsewhere
 *             is evicted (POST .../pods/NAME/eviction, policy/v1), so that
 *             PodDisruptionBudgets are honoured: a 429 means a budget does
 *             not allow it yet, and the eviction is tried again until the
 *             deadline; then the pods are waited for until they are gone
 *   uncordon  merge patch {"spec":{"unschedulable":null}}
 * Pods a drain leaves: DaemonSet pods (their controller ignores
 * unschedulable and would start them again), mirror (static) pods, pods that
 * already ended. Refused, as kubectl drain refuses them (k8s.io/kubectl
 * pkg/drain/filters.go): a pod no controller owns (without --force: evicting
 * it loses it for good), a pod of a DaemonSet that no longer exists (an
 * orphan: nothing would start it again), a pod with emptyDir volumes unless
 * allow_emptydir (their data is lost: --delete-emptydir-data).
 * A pod counts as gone when no pod of its name is there or the one there
 * has another uid: a StatefulSet starts its replacement under the same name
 * (kubectl's waitForDelete compares uids).
 */
#ifndef BRINGUP_KUBE_NODE_H
#define BRINGUP_KUBE_NODE_H

#include <stdbool.h>

#include "../base/err.h"
#include "kube-client.h"
#include "../base/strlist.h"

/* Whether the node is cordoned now; ERR_NOTFOUND when there is no such node. */
int kube_node_cordoned(struct kube_client *kc, const char *node, bool *ret, struct err *err);

/* cordon (true) or uncordon (false); doing it twice is harmless. */
int kube_node_set_cordon(struct kube_client *kc, const char *node, bool cordon, struct err *err);

/*
 * The pods a drain would evict ("NAMESPACE/NAME", appended to out) and the
 * ones it refuses (no controller: appended to refused; may be NULL).
 */
int kube_node_pods(struct kube_client *kc, const char *node, bool allow_emptydir,
		   struct strlist *out, struct strlist *refused, struct err *err);

/*
 * Cordons the node and evicts its pods, waiting at most timeout_s in all
 * (budgets that do not allow an eviction, pods that take long to end).
 * note (may be NULL) hears what is awaited. ERR_TIMEOUT names the pods
 * still there and why; a pod no controller owns fails before any eviction.
 */
int kube_node_drain(struct kube_client *kc, const char *node, unsigned timeout_s,
		    bool allow_emptydir, void (*note)(void *arg, const char *what), void *arg,
		    struct err *err);

#endif

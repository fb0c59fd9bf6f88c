/*
 * The cluster lock: one deploy, upgrade or validate at a time on a cluster,
 * whatever state directory each uses (issue 24, item 5). STATE_DIR/lock
 * (runlog.h) only keeps two runs of one state directory apart; this lock
 * lives on the nodes themselves.
 *
 * Every node of the inventory (switches aside: they have no shell) holds a
 * lease, /var/lib/bringup/run.lock, naming the cluster, the run, the client
 * host, its pid and the pid's start time, when the run started and when the
 * lease expires (the node's own clock). Why every node and not one manager:
 * with one lock node, a run that finds it down must either refuse to run at
 * all or take the lock elsewhere, where the next run would not look; on
 * every node, a node down for one run and back for the next still shows the
 * first run's lease on all the others, and a run limited to a few nodes
 * still finds every other run on the cluster.
 *
 * A lease is taken over when it expired (the holder refreshes it every
 * CLUSTER_LOCK_TTL_S / 3 s while it runs, so a killed client's lease lapses
 * within CLUSTER_LOCK_TTL_S), when it names the same run (--resume right
 * after a SIGKILL), or when its holder ran on this client host and its pid
 * is gone (or is another process now): then at once.
 */
#ifndef BRINGUP_CLUSTER_LOCK_H
#define BRINGUP_CLUSTER_LOCK_H

#include <stdbool.h>

#include "../base/err.h"
#include "../base/strbuf.h"
#include "../inventory/inventory.h"
#include "../ssh/runner.h"

/*
 * A refresh is a round trip (a new SSH session) to every node: every 60 s
 * costs a 1,000-node cluster about 17 logins a second; a SIGKILLed client
 * of another admin host blocks the cluster for 3 minutes at most.
 */
#define CLUSTER_LOCK_TTL_S 180

struct cluster_lock;

/*
 * Takes the lease on every host of inv that answers (an unreachable host is
 * left out: nothing runs there). Another live run's lease on any host:
 * ERR_STATE naming the holder (run id, client host, pid, start time, hosts,
 * when the lease expires), and the leases taken meanwhile are given back;
 * nothing else ran on any host. `notes` (may be NULL) gets a line per
 * lease taken over from a dead holder. Caller releases *ret with
 * cluster_lock_release (NULL after a failure).
 */
int cluster_lock_take(const struct inventory *inv, const char *run_id,
		      const struct runner_opts *ro, struct strbuf *notes,
		      struct cluster_lock **ret, struct err *err);

/* Stops the refreshes, gives the leases back (best effort), frees. NULL is fine. */
void cluster_lock_release(struct cluster_lock *cl);

#endif

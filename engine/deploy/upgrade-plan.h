/*
 * The rolling upgrade's batch planner: which nodes go down together.
 * Pure logic on the inventory's roles and what is already down, so that
 * every limit is tested without a cluster (tests/unit/test-upgrade.c).
 *
 * A batch may hold at most:
 *   admin    the admin's --batch N (or P% of the nodes, at least 1);
 *   quorum   as many active quorum nodes as leave what the quorum invariant
 *            keeps active (scale-quorum.h: GPFS's need, a majority or one
 *            with tiebreaker disks, plus one spare when there is one); a
 *            node already down counts as down, and upgrading it costs
 *            nothing more. When no active quorum node can go (the
 *            Redpaper's single quorum node), the other nodes are planned
 *            and the active quorum nodes left out, named in left_why;
 *   sm       as many subnet manager hosts as leave a master and a standby
 *            up (one at a time when there are fewer than three);
 *   master   as many control-plane nodes as leave etcd a majority (one at
 *            a time when there are fewer than three);
 *   contact  as many Spectrum Scale manager / NSD nodes (the nodes that hold
 *            the manager roles and reach the storage cluster) as leave one up.
 * Nodes fill batches first-fit in inventory order. An upgrade of a cluster
 * that has lost quorum already is refused. Quorum roles are what the caller
 * puts in `roles`: bringup upgrade reads them from mmlscluster.
 */
#ifndef BRINGUP_UPGRADE_PLAN_H
#define BRINGUP_UPGRADE_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"

enum upg_limit {
	UPG_LIM_ADMIN,
	UPG_LIM_QUORUM,
	UPG_LIM_SM,
	UPG_LIM_MASTER,
	UPG_LIM_CONTACT,
	UPG_LIM__COUNT
};

/* "admin", "quorum", "sm", "master", "contact". */
const char *upg_limit_name(enum upg_limit l);

struct upg_node {
	const char *name;       /* borrowed */
	unsigned roles;         /* 1u << enum role (inventory.h) */
	bool down;              /* already down (GPFS not active, or unreachable) */
	const char *state;      /* borrowed, for messages ("arbitrating"); NULL: "down" */
	bool skip;              /* not upgraded (a managed switch): in no batch, no limit */
};

struct upg_batch {
	size_t *nodes;          /* indexes into the planner's node array */
	size_t n;
	unsigned used[UPG_LIM__COUNT]; /* members of each limited class (admin: n) */
};

struct upg_plan {
	struct upg_batch *batches;
	size_t nbatches;
	unsigned cap[UPG_LIM__COUNT];   /* per batch; UPG_NO_LIMIT when the class is absent */
	unsigned members[UPG_LIM__COUNT]; /* nodes in each class (admin: all) */
	char *why[UPG_LIM__COUNT];      /* how the cap follows; NULL when absent */
	size_t *left;                   /* nodes no batch can take (indexes) */
	size_t nleft;
	char *left_why;                 /* why, with a remedy naming real nodes; NULL: none */
};

#define UPG_NO_LIMIT ((unsigned)-1)

/*
 * Plans nodes[0..n) in batches of at most `batch` nodes (a percentage of n
 * when `percent`; 0: no admin limit). Returns 0 with *ret filled (release
 * with upg_plan_release), or ERR_STATE when the upgrade would lose (or has
 * lost) quorum, naming the quorum nodes down and those it would stop, or
 * ERR_USAGE for no nodes.
 */
int upg_plan_make(const struct upg_node *nodes, size_t n, unsigned batch, bool percent,
		  struct upg_plan *ret, struct err *err);
/* The same where GPFS has tiebreaker disks (mmlsconfig tiebreakerDisks). */
int upg_plan_make_tb(const struct upg_node *nodes, size_t n, unsigned batch, bool percent,
		     bool tiebreaker, struct upg_plan *ret, struct err *err);
void upg_plan_release(struct upg_plan *p);

/* The class a limit counts (1u << role bits); 0 for admin. */
unsigned upg_limit_roles(enum upg_limit l);

#endif

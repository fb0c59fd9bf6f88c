/*
 * The Spectrum Scale quorum invariant, in one place for every path that
 * stops GPFS daemons (the rolling upgrade's batches, scale_tune's restarts,
 * the upgrade planner): before a set of daemons stops, the whole set is
 * judged at once against live state (`mmgetstate -a`), the designations
 * GPFS itself holds (`mmlscluster`, never the inventory's roles) and the
 * tiebreaker configuration (`mmlsconfig tiebreakerDisks`). Quorum must
 * hold after the set stops, with one quorum node to spare when the cluster
 * has one: a quorum node lost after the check (between two stops of a
 * batch, or while the set is down) must not stop the file system, since no
 * check can see a loss that has not happened yet.
 *
 * GPFS's rules (IBM Spectrum Scale, Concepts, Planning, and Installation
 * Guide, "Quorum": "Node quorum" and "Node quorum with tiebreaker disks";
 * the Advanced Administration Guide's "Synchronous mirroring with GPFS
 * replication": "a majority of quorum nodes must remain active in order for
 * the cluster to sustain normal file system usage"): without tiebreaker
 * disks a strict majority of the quorum nodes must be active; with them
 * (at most eight quorum nodes) one active quorum node that reaches a
 * majority of the tiebreaker disks keeps the cluster up.
 *
 * Pure logic on parsed outputs (parse-gpfs.c), so that refused and allowed
 * cases are tested without a cluster (tests/unit/test-scale-quorum.c).
 */
#ifndef BRINGUP_SCALE_QUORUM_H
#define BRINGUP_SCALE_QUORUM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/strbuf.h"

/* Tiebreaker disks count only up to this many quorum nodes (IBM's limit). */
#define SCALE_TIEBREAKER_MAX_QUORUM 8

/*
 * Active quorum nodes GPFS needs among `total`: a strict majority, or one
 * with tiebreaker disks (and at most eight quorum nodes). 0 for 0.
 */
unsigned scale_quorum_need(unsigned total, bool tiebreaker);

/*
 * Active quorum nodes bringup keeps while it stops daemons: the need, plus
 * one spare when the cluster has two quorum nodes beyond the need (5 quorum
 * nodes keep 4; 3 keep 2; 1 keeps 1, so it never stops).
 */
unsigned scale_quorum_keep(unsigned total, bool tiebreaker);

/*
 * True when `mmlsconfig tiebreakerDisks` output (`out`, `len` bytes) names
 * tiebreaker disks: a line "tiebreakerDisks NSD[;NSD...]" whose value is not
 * empty, "no", "(undefined)" or "DEFAULT".
 */
bool scale_quorum_tiebreaker(const char *out, size_t len);

/*
 * The invariant. `states`: parse_mmgetstate of `mmgetstate -a`;
 * `cluster`: parse_mmlscluster (its designations say which nodes are quorum
 * nodes); `set[0..n)`: the nodes about to stop (short or full names). True
 * when the quorum nodes still active after every node of the set stops are
 * at least scale_quorum_keep. When false, `why` names the set's quorum
 * nodes, the counts, the quorum nodes not active (with their state) and a
 * remedy with real node names: start the ones down (mmstartup -N ...), or,
 * when none is down, designate more quorum nodes among the active
 * non-quorum nodes (mmchnode --quorum -N ...) or configure tiebreaker disks.
 */
bool scale_quorum_set_may_stop(const json_t *states, const json_t *cluster, bool tiebreaker,
			       const char *const *set, size_t n, struct strbuf *why);

/*
 * `quorum`: parse_mmgetstate of `mmgetstate -N quorumnodes` (one row per
 * quorum node). Returns true when stopping `node` (a quorum node or not)
 * keeps a majority of the quorum nodes active. When false, `why` says how
 * many are active, which are not (with their state) and what it would
 * take ("start GPFS on 1 of them first: mmstartup -N b,c"). Used where
 * nothing stops (scale_cluster asks whether quorum holds at all).
 */
bool scale_quorum_may_stop(const json_t *quorum, const char *node, struct strbuf *why);

/* True when every row of `quorum` is active (a restarted node is back). */
bool scale_quorum_all_active(const json_t *quorum);

#endif

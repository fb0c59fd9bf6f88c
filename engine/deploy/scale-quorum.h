/*
 * The Spectrum Scale quorum guard: before bringup stops a GPFS daemon (a
 * restart for a configuration change, a shutdown, a node removal) it reads
 * `mmgetstate -N quorumnodes` and refuses a stop that would leave fewer
 * than a majority of the quorum nodes active, since the file system then
 * stops everywhere. Pure logic on the parsed mmgetstate (parse-gpfs.c), so
 * that refused and allowed cases are tested without a cluster.
 */
#ifndef BRINGUP_SCALE_QUORUM_H
#define BRINGUP_SCALE_QUORUM_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/strbuf.h"

/*
 * `quorum`: parse_mmgetstate of `mmgetstate -N quorumnodes` (one row per
 * quorum node). Returns true when stopping `node` (a quorum node or not)
 * keeps a majority of the quorum nodes active. When false, `why` says how
 * many are active, which are not (with their state) and what it would
 * take ("start GPFS on 1 of them first: mmstartup -N b,c").
 */
bool scale_quorum_may_stop(const json_t *quorum, const char *node, struct strbuf *why);

/* True when every row of `quorum` is active (a restarted node is back). */
bool scale_quorum_all_active(const json_t *quorum);

#endif

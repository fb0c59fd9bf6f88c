/*
 * precheck's fabric-wide checks: the one iblinkinfo reading of a run (taken
 * on the "fabric-reading host", the first host with HCAs; see facts.c)
 * judged once, on that host: switch-to-switch links at their rate
 * (ib.fabric_isl), the hosts (ibhosts, else iblinkinfo's CAs) and the
 * switches seen (ib.fabric_size) and, with the inventory's `fabric:`
 * section, the cabling of every leaf, and with hosts' `fabric_leaf`
 * variables, the leaf each host port is on (ib.fabric_cabling). The checks table
 * is in check-defs.c.
 */
#ifndef BRINGUP_CHECK_FABRIC_H
#define BRINGUP_CHECK_FABRIC_H

#include <stdbool.h>

#include "check.h"

/* This host read the fabric (its iblinkinfo section parsed, or failed to). */
bool fabric_is_reader(const struct check_ctx *cc);
/* That, and the inventory has a `fabric:` section or a host's
 * `fabric_leaf` variable to check. */
bool fabric_is_planned(const struct check_ctx *cc);

/* Lane rate in Gb/s of an IB speed name ("EDR"), as iblinkinfo prints it;
 * 0 for the speeds no capture shows (FDR10, XDR): then only the width is
 * held. Shared with ib.fabric_links. */
double ib_lane_gbps(const char *speed);

void run_ib_fabric_isl(struct check_ctx *cc);
void run_ib_fabric_size(struct check_ctx *cc);
void run_ib_fabric_cabling(struct check_ctx *cc);

#endif

/*
 * What the .fleet checks compare across hosts, taken from each host's facts
 * as they arrive (check.c calls fleet_take right before the host's own
 * checks), so that precheck can drop a host's parsed facts at once: a few
 * values a host instead of its ibstat, sminfo and ofed_info JSON, and the
 * fabric reading as the expected ports it shows instead of the whole
 * iblinkinfo tree (which grows with the fabric: some 3 KB of JSON text a
 * host, several times that as jansson objects).
 *
 * Everything cross-host (the OFED majority, the master SMs and their owners,
 * the fabric reading in use, the login median) is worked out once, by
 * fleet_ready, in the facts' order: the same answers the checks gave when
 * they scanned every host's facts, for every host at once.
 */
#ifndef BRINGUP_CHECK_FLEET_H
#define BRINGUP_CHECK_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "../facts/facts.h"
#include "../inventory/inventory.h"
#include "../base/strlist.h"

/* One expected IB port as the fabric reading shows it (ib.fabric_links). */
struct fabric_port {
	bool seen;               /* a port of node "HOST HCA" with that number */
	char *width;             /* its width; NULL when the reading has none */
	double lane_gbps;
	char *peer_desc;         /* the node at the far end; NULL when none */
	long long peer_lid, peer_port;
	bool far_seen;           /* the far end's port is in the reading too */
	char *far_width;
	double far_lane_gbps;
};

/* One iblinkinfo reading, as every checked host's expected ports. */
struct fabric_view {
	bool failed;             /* the parser's "ok": false */
	char *error;             /* its "error"; may be NULL */
	/* [position][HCA index of the host's hcas]; NULL for a host without */
	struct fabric_port **ports;
};

/* Of one host: what the fleet checks read. All owned. */
struct fleet_host {
	bool taken;
	char *ofed;              /* ofed_info's version_string; NULL if none */
	int ofed_rc;             /* ofed_info's exit status; -1 when absent */
	char *driver;            /* nvidia-smi -q's driver version; NULL if none */
	int driver_rc;           /* nvidia-smi -q's exit status; -1 when absent */
	char *sm_master;         /* sminfo's SM GUID, when it answered as master */
	unsigned long long *guids; /* ibstat's port GUIDs, in its order */
	size_t nguids;
	struct fabric_view *fabric; /* when this host read the fabric */
};

struct fleet {
	const struct inventory *inv;
	size_t *hosts;           /* the report's hosts, sorted (a copy) */
	size_t n;
	struct fleet_host *h;    /* per position in hosts */
	/* fleet_ready's, over the hosts in the facts' order: */
	const char *ofed_majority;     /* the release most hosts run; NULL if none */
	const char *driver_majority;   /* the GPU driver most hosts run; NULL if none */
	struct strlist masters;        /* every master SM GUID, first seen first */
	const struct host **master_owner; /* per master: the host with that port, or NULL */
	const struct fabric_view *fabric; /* the first reading; NULL if none */
	double login_median;           /* of the hosts that answered */
};

/* For the hosts[0..n) (sorted); caller frees with fleet_free. */
struct fleet *fleet_new(const struct inventory *inv, const size_t *hosts, size_t n);
/* Takes the host at position pos's values from hf (once; later calls do nothing). */
void fleet_take(struct fleet *fl, size_t pos, const struct host_facts *hf);
/* Once every host is taken: the cross-host values, in f's order. */
void fleet_ready(struct fleet *fl, const struct facts *f);
/* The values of inventory host `host`, or NULL when it is not checked. */
const struct fleet_host *fleet_host(const struct fleet *fl, size_t host);
/* Its position among the checked hosts; fl->n when it is not checked. */
size_t fleet_pos(const struct fleet *fl, size_t host);
void fleet_free(struct fleet *fl);

#endif

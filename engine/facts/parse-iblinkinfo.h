/*
 * An iblinkinfo reading in compact form: what precheck's fabric checks
 * read. The JSON tree parse_iblinkinfo gives costs some 1.3 KB a port (a
 * 1,000-node fabric: ~16,000 port lines, ~20 MB, while the whole fleet's
 * other facts are in flight); this is under 100 bytes a port, strings held
 * once. parse_iblinkinfo is this, turned into JSON.
 */
#ifndef BRINGUP_PARSE_IBLINKINFO_H
#define BRINGUP_PARSE_IBLINKINFO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"
#include "../base/strpool.h"

/* One port line. Strings are the reading's (its pool); NULL: not shown. */
struct ibl_port {
	const char *guid;            /* a CA port's GUID ("0x..."), first on its line */
	const char *width;           /* "4X"; NULL when the link is not up */
	const char *state;           /* "Active", "Down" */
	const char *physical_state;  /* "LinkUp", "Polling" */
	const char *peer_desc;       /* the far end's description; NULL: none */
	const char *comment;         /* iblinkinfo's "( ... )" note */
	double lane_gbps;            /* with width */
	int lid, port;
	int peer_lid, peer_port;     /* with has_peer_port */
	bool has_peer_port;
};

/* A "CA:" or "Switch:" header (type "unknown" for lines before any). */
struct ibl_node {
	const char *type, *guid, *desc;  /* guid: switches only; desc may be NULL */
	size_t first, n;                 /* its ports: ports[first, first + n) */
};

struct ibl_fabric {
	/* {"ok", "error"?, "errors"?, "warnings"?}: the tool's own failure
	 * and warnings, as every parser reports them (parse.h) */
	json_t *status;
	struct ibl_node *nodes;
	size_t nnodes, anodes;
	struct ibl_port *ports;
	size_t nports, aports;
	struct strpool strings;
};

/* Reads iblinkinfo's output: 0 with *ret the caller's (iblinkinfo_free),
 * or ERR_PARSE naming the line it could not read. The tool's own failure
 * is a reading whose status says "ok": false. */
int iblinkinfo_read(const char *buf, size_t len, struct ibl_fabric **ret, struct err *err);
/* The reading's status says "ok": true. */
bool iblinkinfo_ok(const struct ibl_fabric *f);
/* The reading as parse_iblinkinfo's JSON (a new reference). */
json_t *iblinkinfo_json(const struct ibl_fabric *f);
void iblinkinfo_free(struct ibl_fabric *f);

#endif

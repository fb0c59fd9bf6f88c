/*
 * iblinkinfo (infiniband-diags): every port of the fabric as one line,
 * grouped under "CA: DESC:" or "Switch: 0xGUID DESC:" headers (absent when
 * the output was grepped):
 *   [0xGUID] LID PORT[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==>
 *       PEERLID PEERPORT[  ] "PEER DESC" ( COMMENT )
 * Read into struct ibl_fabric (parse-iblinkinfo.h); as JSON:
 * {"ok", "nodes": [{"type", "guid", "desc", "ports": [{"guid", "lid",
 * "port", "width", "lane_gbps", "state", "physical_state", "peer": {"lid",
 * "port", "desc"}, "comment"}]}]}; a down port has no width, speed or peer.
 */
#include "parse-iblinkinfo.h"
#include "parse.h"
#include "parse-util.h"
#include "../base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ibl_failures[] = { "iblinkinfo: iberror:", "ibpanic:" };

static const char *keep(struct ibl_fabric *f, const char *s)
{
	return s ? strpool_intern(&f->strings, s) : NULL;
}

static void ibl_new_node(struct ibl_fabric *f, const char *type, const char *guid,
			 const char *desc)
{
	ALLOC_GROW(f->nodes, f->nnodes + 1, f->anodes);
	f->nodes[f->nnodes++] = (struct ibl_node){ keep(f, type), keep(f, guid), keep(f, desc),
						   f->nports, 0 };
}

/* "CA: teaker-4 HCA-1:" / "Switch: 0x0002c902004b2678 Infiniscale-IV ...:" */
static int ibl_header(struct ibl_fabric *f, char *s)
{
	size_t n = strlen(s);
	char *p;

	if (!n || s[n - 1] != ':')
		return -1;
	s[n - 1] = '\0';
	if ((p = skip_prefix(s, "CA: "))) {
		ibl_new_node(f, "CA", NULL, p);
		return 0;
	}
	p = skip_prefix(s, "Switch: ");
	if (!p || !skip_prefix(p, "0x") || !strchr(p, ' '))
		return -1;
	*strchr(p, ' ') = '\0';
	ibl_new_node(f, "Switch", p, p + strlen(p) + 1);
	return 0;
}

/* " 4X      25.78125 Gbps Active/  LinkUp" or "                Down/ Polling"
 * (what stands between "==(" and ")==>") */
static int ibl_link(struct ibl_fabric *f, struct ibl_port *port, const char *s)
{
	char width[8], state[32], phys[32];
	double gbps;
	int used = 0;

	if (sscanf(s, " %7s %lf Gbps %31[^/]/ %31s%n", width, &gbps, state, phys, &used) == 4 &&
	    !s[used] && width[strlen(width) - 1] == 'X') {
		port->width = keep(f, width);
		port->lane_gbps = gbps;
	} else if (used = 0, sscanf(s, " %31[^/ ]/ %31s%n", state, phys, &used) != 2 || s[used]) {
		return -1;
	}
	port->state = keep(f, trim(state));
	port->physical_state = keep(f, trim(phys));
	return 0;
}

/* '      2   17[  ] "MF0;SB7700:MSB7700/U1" ( )' or '            [  ] "" ( )' */
static int ibl_peer(struct ibl_fabric *f, struct ibl_port *port, char *s)
{
	long long lid, pnum;
	char *q, *end;
	int used = 0;

	s = trim(s);
	if (sscanf(s, "%lld %lld[%*[^]]]%n", &lid, &pnum, &used) == 2 && used) {
		port->has_peer_port = true;
		port->peer_lid = (int)lid;
		port->peer_port = (int)pnum;
		s += used;
	} else if ((q = skip_prefix(s, "["))) {
		if (!(s = strchr(q, ']')))
			return -1;
		s++;
	} else {
		return -1;
	}
	s = trim(s);
	if (*s != '"' || !(end = strrchr(s, '"')) || end == s)
		return -1;
	*end = '\0';
	if (s[1])
		port->peer_desc = keep(f, s + 1);
	s = trim(end + 1);
	if (*s != '(' || s[strlen(s) - 1] != ')')
		return -1;
	s[strlen(s) - 1] = '\0';
	if (*trim(s + 1))
		port->comment = keep(f, trim(s + 1));
	return 0;
}

/* LIDs are 16 bits and ports 8 (extended ones fit too): a number past
 * that is not a LID or a port. */
static bool lid_or_port(long long v)
{
	return v >= 0 && v <= 0xffff;
}

static int ibl_port_line(struct ibl_fabric *f, char *s)
{
	char *open = strstr(s, "==("), *close = strstr(s, ")==>"), *tok[4], *br;
	long long lid, pnum;
	struct ibl_port *port;
	size_t n;

	if (!open || !close || close < open)
		return -1;
	*open = '\0';
	*close = '\0';
	/* "17[  ]": the brackets hold the extended port number, if any */
	if (!(br = strchr(s, '[')))
		return -1;
	*br = '\0';
	n = split_ws(s, tok, 4);
	/* CA lines start with the port GUID; grepped ones lost their header */
	if (n < 2 || n > 3 || (n == 3 && !skip_prefix(tok[0], "0x")))
		return -1;
	if (parse_ll(tok[n - 2], 10, &lid) || parse_ll(tok[n - 1], 10, &pnum) ||
	    !lid_or_port(lid) || !lid_or_port(pnum))
		return -1;
	if (!f->nnodes)
		ibl_new_node(f, "unknown", NULL, NULL);
	ALLOC_GROW(f->ports, f->nports + 1, f->aports);
	port = &f->ports[f->nports];
	memset(port, 0, sizeof(*port));
	if (n == 3)
		port->guid = keep(f, tok[0]);
	port->lid = (int)lid;
	port->port = (int)pnum;
	if (ibl_link(f, port, open + 3) || ibl_peer(f, port, close + 4))
		return -1;
	/* counted only once whole: a line that fails leaves no half port */
	f->nports++;
	f->nodes[f->nnodes - 1].n++;
	return 0;
}

static int ibl_line(void *state, struct pline *ln, struct err *err)
{
	struct ibl_fabric *f = state;
	char *s = ln->text;

	if (!*s)
		return 0;
	if (parse_tool_line(f->status, ln->tool, s, ibl_failures, ARRAY_SIZE(ibl_failures), "ibwarn:"))
		return 0;
	if (skip_prefix(s, "CA: ") || skip_prefix(s, "Switch: ")) {
		if (ibl_header(f, s))
			return pline_error(ln, err, "bad CA/Switch header");
		return 0;
	}
	if (ibl_port_line(f, s))
		return pline_error(ln, err, "expected 'LID PORT[..] ==( ... )==> PEER'");
	return 0;
}

void iblinkinfo_free(struct ibl_fabric *f)
{
	if (!f)
		return;
	json_decref(f->status);
	free(f->nodes);
	free(f->ports);
	strpool_clear(&f->strings);
	free(f);
}

int iblinkinfo_read(const char *buf, size_t len, struct ibl_fabric **ret, struct err *err)
{
	struct ibl_fabric *f = xcalloc(1, sizeof(*f));
	int rc;

	f->status = json_object();
	rc = parse_lines("iblinkinfo", buf, len, ibl_line, f, err);
	if (!rc && !parse_failed(f->status) && !f->nports)
		rc = parse_error_end("iblinkinfo", err, "no port line");
	if (rc) {
		iblinkinfo_free(f);
		*ret = NULL;
		return rc;
	}
	*ret = f;
	return 0;
}

bool iblinkinfo_ok(const struct ibl_fabric *f)
{
	return f && json_is_true(json_object_get(f->status, "ok"));
}

static json_t *port_json(const struct ibl_port *p)
{
	json_t *o = json_object();

	jset_str(o, "guid", p->guid);
	jset_int(o, "lid", p->lid);
	jset_int(o, "port", p->port);
	if (p->width) {
		jset_str(o, "width", p->width);
		json_object_set_new(o, "lane_gbps", json_num(p->lane_gbps));
	}
	jset_str(o, "state", p->state);
	jset_str(o, "physical_state", p->physical_state);
	if (p->has_peer_port || p->peer_desc) {
		json_t *peer = jobject_at(o, "peer");

		if (p->has_peer_port) {
			jset_int(peer, "lid", p->peer_lid);
			jset_int(peer, "port", p->peer_port);
		}
		jset_str(peer, "desc", p->peer_desc);
	}
	jset_str(o, "comment", p->comment);
	return o;
}

json_t *iblinkinfo_json(const struct ibl_fabric *f)
{
	json_t *root = json_object(), *nodes = jarray_at(root, "nodes"), *v;
	const char *key;

	for (size_t i = 0; i < f->nnodes; i++) {
		const struct ibl_node *n = &f->nodes[i];
		json_t *o = jarray_new_object(nodes);

		jset_str(o, "type", n->type);
		jset_str(o, "guid", n->guid);
		jset_str(o, "desc", n->desc);
		for (size_t k = 0; k < n->n; k++)
			json_array_append_new(jarray_at(o, "ports"), port_json(&f->ports[n->first + k]));
	}
	json_object_foreach(f->status, key, v)
		json_object_set(root, key, v);
	return root;
}

int parse_iblinkinfo(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct ibl_fabric *f;
	int rc = iblinkinfo_read(buf, len, &f, err);

	*ret = rc ? NULL : iblinkinfo_json(f);
	iblinkinfo_free(f);
	return rc;
}

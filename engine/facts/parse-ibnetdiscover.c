/*
 * ibnetdiscover (infiniband-diags): the fabric as a topology file, one block
 * per node (switches first, then CAs, then routers; blank lines between
 * blocks or not), each block the node's ids, its node line, and one line per
 * port that has a link (a down port is not printed):
 *   vendid=0x2c9 / devid=0xcb20 / sysimgguid=0x.. / switchguid=0xG(PORTG)
 *   Switch	36 "S-GUID"		# "DESC" base port 0 lid 48 lmc 0
 *   [1]	"H-GUID"[1](PORTGUID) 		# "node018 HCA-1" lid 67 4xEDR
 *   caguid=0x..
 *   Ca	1 "H-GUID"		# "DESC"
 *   [1](PORTGUID) 	"S-GUID"[17]		# lid 657 lmc 0 "SWITCH DESC" lid 73 4xNDR
 * {"ok", "generated", "from": {"node_guid", "port_guid"}, "nodes": [{"type"
 * ("Switch", "CA", "Router"), "guid", "desc", "nports", "vendid", "devid",
 * "sysimgguid", "lid", "lmc" and "port0" ("base"/"enhanced") of a switch,
 * "ports": [{"port", "guid", "lid", "lmc" (a CA's port), "width", "speed",
 * "peer": {"type", "guid", "port", "port_guid" (a CA's), "desc", "lid"}}]}]}.
 *
 * The ports report (ibnetdiscover -p) is read too, one line a port:
 *   CA   134  1 0xGUID 4x EDR - SW  1719 10 0xGUID ( 'DESC' - 'PEER DESC' )
 *   SW  2052 37 0xGUID 4x ???                                    'DESC'
 * into "ports": [{"type" ("CA", "SW", "RT"), "lid", "port", "guid", "width",
 * "speed", "desc", "peer": {"type", "lid", "port", "guid", "desc"}}].
 *
 * Widths and speeds are as the tool prints them ("4x", "EDR"); the tool's
 * "??"/"???" (a value it does not know) leaves the key out. GUIDs are "0x"
 * and 16 hex digits, whatever padding the tool used. What -g (chassis
 * grouping) adds is not read: such a line is an error naming it.
 * ibnetdiscover's own failure ("ibnetdiscover: iberror: failed: discover
 * failed", ibpanic) is the tool's failure; "ibwarn:" lines (a MAD that timed
 * out while the rest was discovered) are warnings.
 */
#include "parse.h"
#include "parse-util.h"

#include "../base/xalloc.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ind_format { IND_UNKNOWN, IND_TOPOLOGY, IND_PORTS };

struct ind_state {
	json_t *root;
	json_t *ids;   /* vendid.. lines not yet claimed by a node line (owned) */
	json_t *node;  /* the node whose port lines follow (borrowed) */
	enum ind_format fmt;
};

static const char *const ind_failures[] = {
	"ibnetdiscover: iberror:", "ibpanic:", "Failed to open ",
};

/* ---- a cursor over one line ---------------------------------------------- */

static void skip_blanks(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

static int take(const char **p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*p, lit, n))
		return -1;
	*p += n;
	return 0;
}

static int take_uint(const char **p, long long *ret)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -1;
	*ret = strtoll(*p, &end, 10);
	if (*ret < 0 || end - *p > 9)
		return -1;
	*p = end;
	return 0;
}

/* Hex digits (1 to 16, with an optional 0x) as "0x" and 16 digits in ret. */
static int take_guid(const char **p, char ret[19])
{
	const char *s = *p;
	size_t n = 0;

	if (!strncmp(s, "0x", 2))
		s += 2;
	while (isxdigit((unsigned char)s[n]))
		n++;
	if (!n || n > 16)
		return -1;
	memcpy(ret, "0x0000000000000000", 19);
	for (size_t i = 0; i < n; i++)
		ret[18 - n + i] = (char)tolower((unsigned char)s[i]);
	*p = s + n;
	return 0;
}

/* '"S-GUID"' (node_name()): the node's type letter and GUID. */
static int take_node_name(const char **p, const char **ret_type, char guid[19])
{
	const char *s = *p;

	if (*s != '"' || !strchr("SHR", s[1]) || s[1] == '\0' || s[2] != '-')
		return -1;
	*ret_type = s[1] == 'S' ? "Switch" : s[1] == 'H' ? "CA" : "Router";
	s += 3;
	if (take_guid(&s, guid) || *s != '"')
		return -1;
	*p = s + 1;
	return 0;
}

/* "[N]" */
static int take_port(const char **p, long long *ret)
{
	return take(p, "[") || take_uint(p, ret) || take(p, "]") ? -1 : 0;
}

/* A width as dump_linkwidth_compat prints it ("4x", or "??": unknown) and
 * a speed ("EDR", or "???"), each wlen and splen long, set on o. */
static int set_rate(json_t *o, const char *w, size_t wlen, const char *sp, size_t splen)
{
	static const char *const speeds[] = { "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR",
					      "HDR", "NDR", "XDR" };
	static const char *const widths[] = { "1x", "2x", "4x", "8x", "12x" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(widths); i++)
		if (strlen(widths[i]) == wlen && !strncmp(w, widths[i], wlen)) {
			jset_str(o, "width", widths[i]);
			break;
		}
	if (i == ARRAY_SIZE(widths) && !(wlen == 2 && !strncmp(w, "??", 2)))
		return -1;
	if (splen == 3 && !strncmp(sp, "???", 3))
		return 0;
	for (i = 0; i < ARRAY_SIZE(speeds); i++)
		if (strlen(speeds[i]) == splen && !strncmp(sp, speeds[i], splen)) {
			jset_str(o, "speed", speeds[i]);
			return 0;
		}
	return -1;
}

/* "4xEDR" to the end of the line, with what full_info (-f) adds
 * (" s=4 w=2 v=3 e=2") or a Xsigo peer's " slot N" / " (scp)". */
static int take_rate_tail(const char **p, json_t *port)
{
	const char *w = *p, *s = w, *sp;
	long long v;

	if (!strncmp(s, "??", 2)) {
		s += 2;
	} else {
		while (isdigit((unsigned char)*s))
			s++;
		if (*s++ != 'x')
			return -1;
	}
	sp = s;
	while (*s && *s != ' ')
		s++;
	if (set_rate(port, w, (size_t)(sp - w), sp, (size_t)(s - sp)))
		return -1;
	while (*s == ' ') {
		s++;
		if (!take(&s, "(scp)") || (!take(&s, "slot ") && !take_uint(&s, &v)))
			continue;
		if (!*s || !strchr("swve", *s) || s[1] != '=')
			return -1;
		s += 2;
		if (take_uint(&s, &v))
			return -1;
	}
	*p = s;
	return *s ? -1 : 0;
}

/* The last needle in s, or NULL. */
static const char *last_of(const char *s, const char *needle)
{
	const char *hit, *last = NULL;

	for (hit = s; (hit = strstr(hit, needle)); hit++)
		last = hit;
	return last;
}

/* '"DESC" lid N RATE': the description is everything up to the last
 * '" lid ' (a description may hold quotes). */
static int take_desc_lid_rate(const char **p, json_t *o, json_t *rate)
{
	const char *s = *p, *q;
	long long lid;
	char *desc;

	if (*s != '"' || !(q = last_of(s + 1, "\" lid ")))
		return -1;
	desc = xstrndup(s + 1, (size_t)(q - s - 1));
	jset_str(o, "desc", desc);
	free(desc);
	s = q + strlen("\" lid ");
	if (take_uint(&s, &lid) || take(&s, " "))
		return -1;
	jset_int(o, "lid", lid);
	*p = s;
	return take_rate_tail(p, rate);
}

/* ---- the topology file ---------------------------------------------------- */

/* "# Topology file: generated on DATE", "# Initiated from node G port G",
 * "# Reported max hops discovered: N", "# Total MADs used: N", "#". */
static int ind_comment(struct ind_state *st, char *s)
{
	const char *p;
	char g1[19], g2[19];
	long long v;

	if (!strcmp(s, "#"))
		return 0;
	if ((p = skip_prefix(s, "# Topology file: generated on "))) {
		jset_str(st->root, "generated", p);
		return 0;
	}
	if ((p = skip_prefix(s, "# Initiated from node "))) {
		if (take_guid(&p, g1) || take(&p, " port ") || take_guid(&p, g2) || *p)
			return -1;
		jset_str(jobject_at(st->root, "from"), "node_guid", g1);
		jset_str(jobject_at(st->root, "from"), "port_guid", g2);
		return 0;
	}
	if ((p = skip_prefix(s, "# Reported max hops discovered: "))) {
		if (take_uint(&p, &v) || *p)
			return -1;
		jset_int(st->root, "max_hops", v);
		return 0;
	}
	if ((p = skip_prefix(s, "# Total MADs used: "))) {
		if (take_uint(&p, &v) || *p)
			return -1;
		jset_int(st->root, "mads", v);
		return 0;
	}
	return -1;
}

/* "vendid=0x2c9", "devid=0xcb20", "sysimgguid=0x..", "switchguid=0xG(PG)",
 * "caguid=0x..", "rtguid=0x..": 1 when s is one, -1 when it is malformed. */
static int ind_id(struct ind_state *st, const char *s)
{
	static const char *const keys[] = { "vendid=", "devid=", "sysimgguid=", "switchguid=",
					    "caguid=", "rtguid=" };
	const char *p = NULL;
	size_t k;
	char g[19];

	for (k = 0; k < ARRAY_SIZE(keys) && !p; k++)
		p = skip_prefix(s, keys[k]);
	if (!p)
		return 0;
	k--;
	if (k == 0) { /* a new block */
		if (st->ids)
			return -1; /* the last block's ids never met their node line */
		st->ids = json_object();
		st->node = NULL;
	} else if (!st->ids) {
		return -1;
	}
	if (take(&p, "0x"))
		return -1;
	if (k < 2) {
		const char *start = p;

		while (isxdigit((unsigned char)*p))
			p++;
		if (p == start || *p)
			return -1;
		jset_str(st->ids, k ? "devid" : "vendid", start - 2);
		return 1;
	}
	if (take_guid(&p, g))
		return -1;
	if (k == 2) {
		jset_str(st->ids, "sysimgguid", g);
	} else if (k == 3) {
		/* switchguid=0xG(port 0's GUID, unpadded and without 0x) */
		if (take(&p, "(") || take_guid(&p, g) || take(&p, ")"))
			return -1;
	}
	return *p ? -1 : 1;
}

/* The node line: 'Switch	36 "S-GUID"		# "DESC" base port 0 lid 48 lmc 0',
 * 'Ca	1 "H-GUID"		# "DESC"' (routers: "Rt"). */
static int ind_node(struct ind_state *st, const char *s)
{
	const char *type, *named, *q, *p = s;
	long long nports, lid, lmc;
	json_t *node;
	char guid[19], *desc;
	bool sw;

	if (!take(&p, "Switch"))
		type = "Switch";
	else if (!take(&p, "Ca"))
		type = "CA";
	else if (!take(&p, "Rt"))
		type = "Router";
	else
		return -1;
	sw = !strcmp(type, "Switch");
	skip_blanks(&p);
	if (!st->ids || take_uint(&p, &nports) || take(&p, " ") ||
	    take_node_name(&p, &named, guid) || strcmp(named, type))
		return -1;
	skip_blanks(&p);
	if (take(&p, "# \""))
		return -1;
	if (sw) {
		if (!(q = last_of(p, "\" base port 0 lid ")) &&
		    !(q = last_of(p, "\" enhanced port 0 lid ")))
			return -1;
	} else {
		q = p + strlen(p) - 1;
		if (q < p || *q != '"')
			return -1;
	}
	node = json_object();
	json_object_update(node, st->ids);
	json_decref(st->ids);
	st->ids = NULL;
	jset_str(node, "type", type);
	jset_str(node, "guid", guid);
	desc = xstrndup(p, (size_t)(q - p));
	jset_str(node, "desc", desc);
	free(desc);
	jset_int(node, "nports", nports);
	jarray_at(node, "ports");
	json_array_append_new(jarray_at(st->root, "nodes"), node);
	st->node = node;
	if (!sw)
		return q[1] ? -1 : 0;
	p = q + 2;
	jset_str(node, "port0", *p == 'b' ? "base" : "enhanced");
	p = strstr(p, " lid ") + strlen(" lid ");
	if (take_uint(&p, &lid) || take(&p, " lmc ") || take_uint(&p, &lmc) || *p)
		return -1;
	jset_int(node, "lid", lid);
	jset_int(node, "lmc", lmc);
	return 0;
}

/* "[ext N]" after a port number (-g): read past, not kept. */
static int take_ext(const char **p)
{
	long long v;

	if (strncmp(*p, "[ext ", 5))
		return 0;
	*p += 5;
	return take_uint(p, &v) || take(p, "]") ? -1 : 0;
}

/*
 * A port line of the node above:
 *   switch: '[1]	"H-GUID"[1](PORTGUID) 		# "DESC" lid 67 4xEDR'
 *   CA:     '[1](PORTGUID) 	"S-GUID"[17]		# lid 657 lmc 0 "DESC" lid 73 4xNDR'
 * (a switch peer has no port GUID in either).
 */
static int ind_port(struct ind_state *st, const char *s)
{
	bool sw = !strcmp(json_string_value(json_object_get(st->node, "type")), "Switch");
	const char *p = s, *ptype;
	json_t *port = json_object(), *peer = json_object();
	long long num, rnum, lid, lmc;
	char guid[19];
	int rc = -1;

	json_array_append_new(json_object_get(st->node, "ports"), port);
	json_object_set_new(port, "peer", peer);
	if (take_port(&p, &num) || take_ext(&p))
		return -1;
	jset_int(port, "port", num);
	if (!sw) {
		if (take(&p, "(") || take_guid(&p, guid) || take(&p, ")"))
			return -1;
		jset_str(port, "guid", guid);
	}
	skip_blanks(&p);
	if (take_node_name(&p, &ptype, guid) || take_port(&p, &rnum) || take_ext(&p))
		return -1;
	jset_str(peer, "type", ptype);
	jset_str(peer, "guid", guid);
	jset_int(peer, "port", rnum);
	if (strcmp(ptype, "Switch")) {
		if (!sw && take(&p, " "))
			return -1;
		if (take(&p, "(") || take_guid(&p, guid) || take(&p, ")"))
			return -1;
		jset_str(peer, "port_guid", guid);
	}
	skip_blanks(&p);
	if (take(&p, "# "))
		return -1;
	if (!sw) {
		if (take(&p, "lid ") || take_uint(&p, &lid) || take(&p, " lmc ") ||
		    take_uint(&p, &lmc) || take(&p, " "))
			return -1;
		jset_int(port, "lid", lid);
		jset_int(port, "lmc", lmc);
	}
	rc = take_desc_lid_rate(&p, peer, port);
	return rc;
}

/* ---- the ports report (-p) ------------------------------------------------ */

static const char *ports_type(const char *t)
{
	return !strcmp(t, "CA") ? "CA" : !strcmp(t, "SW") ? "SW" : !strcmp(t, "RT") ? "RT" : NULL;
}

/* "TYPE LID PORT 0xGUID" into o; tok holds four tokens. */
static int ports_end(json_t *o, char **tok)
{
	const char *g = tok[3];
	long long lid, port;
	char guid[19];

	if (!ports_type(tok[0]) || parse_ll(tok[1], 10, &lid) || parse_ll(tok[2], 10, &port) ||
	    lid < 0 || port < 0 || strncmp(g, "0x", 2) || take_guid(&g, guid) || *g)
		return -1;
	jset_str(o, "type", ports_type(tok[0]));
	jset_int(o, "lid", lid);
	jset_int(o, "port", port);
	jset_str(o, "guid", guid);
	return 0;
}

/* "'DESC'" whole, into o's desc. */
static int quoted_desc(json_t *o, char *s)
{
	size_t n = strlen(s);

	if (n < 2 || s[0] != '\'' || s[n - 1] != '\'')
		return -1;
	s[n - 1] = '\0';
	jset_str(o, "desc", s + 1);
	return 0;
}

static int ind_ports_line(struct ind_state *st, char *s)
{
	char *tok[7], *t2[5], *mid;
	json_t *port;
	size_t n = split_ws(s, tok, 7);

	if (n != 7 || !ports_type(tok[0]))
		return -1;
	port = jarray_new_object(jarray_at(st->root, "ports"));
	if (ports_end(port, tok) || set_rate(port, tok[4], strlen(tok[4]), tok[5], strlen(tok[5])))
		return -1;
	if (tok[6][0] == '\'')
		return quoted_desc(port, tok[6]);
	if (strncmp(tok[6], "- ", 2) || split_ws(tok[6] + 2, t2, 5) != 5)
		return -1;
	if (ports_end(jobject_at(port, "peer"), t2))
		return -1;
	/* "( 'DESC' - 'PEER DESC' )" */
	s = t2[4];
	n = strlen(s);
	if (strncmp(s, "( '", 3) || n < 7 || strcmp(s + n - 3, "' )") ||
	    !(mid = strstr(s + 2, "' - '")) || mid + 4 > s + n - 3)
		return -1;
	s[n - 2] = '\0';
	mid[1] = '\0';
	if (quoted_desc(port, s + 2) || quoted_desc(jobject_at(port, "peer"), mid + 4))
		return -1;
	return 0;
}

/* ---- the line loop --------------------------------------------------------- */

static int ind_topology_line(struct ind_state *st, char *s)
{
	int rc;

	if (*s == '#')
		return ind_comment(st, s);
	if ((rc = ind_id(st, s)))
		return rc < 0 ? -1 : 0;
	if (*s == '[')
		return st->node && !st->ids ? ind_port(st, s) : -1;
	return ind_node(st, s);
}

static int ind_line(void *state, struct pline *ln, struct err *err)
{
	struct ind_state *st = state;
	char *s = ln->text;
	enum ind_format fmt;

	if (!*s)
		return 0;
	if (parse_tool_line(st->root, ln->tool, s, ind_failures, ARRAY_SIZE(ind_failures), "ibwarn:"))
		return 0;
	fmt = (!strncmp(s, "CA ", 3) || !strncmp(s, "SW ", 3) || !strncmp(s, "RT ", 3)) ?
		      IND_PORTS : IND_TOPOLOGY;
	if (st->fmt == IND_UNKNOWN)
		st->fmt = fmt;
	if (fmt != st->fmt)
		return pline_error(ln, err, fmt == IND_PORTS ? "a ports report line (-p) in a topology"
				   : "expected a ports report line (-p)");
	if (fmt == IND_PORTS) {
		if (ind_ports_line(st, s))
			return pline_error(ln, err, "expected 'TYPE LID PORT 0xGUID WIDTH SPEED "
					   "- TYPE LID PORT 0xGUID ( 'DESC' - 'DESC' )' or "
					   "'TYPE LID PORT 0xGUID WIDTH SPEED 'DESC''");
		return 0;
	}
	if (ind_topology_line(st, s))
		return pline_error(ln, err, "expected a topology line (#, vendid=.., Switch, Ca, "
				   "Rt, or [PORT] of the node above)");
	return 0;
}

int parse_ibnetdiscover(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct ind_state st = { 0 };
	int rc;

	st.root = json_object();
	rc = parse_lines("ibnetdiscover", buf, len, ind_line, &st, err);
	if (st.fmt == IND_TOPOLOGY)
		jarray_at(st.root, "nodes");
	if (!rc && st.ids)
		rc = parse_error_end("ibnetdiscover", err, "node ids (vendid=..) without their "
				     "Switch/Ca line");
	if (!rc && !parse_failed(st.root) && !json_array_size(json_object_get(st.root, "nodes")) &&
	    !json_array_size(json_object_get(st.root, "ports")))
		rc = parse_error_end("ibnetdiscover", err, "no node and no port line");
	json_decref(st.ids);
	return parse_done(rc, st.root, ret);
}

/*
 * iblinkinfo (infiniband-diags): every port of the fabric as one line,
 * grouped under "CA: DESC:" or "Switch: 0xGUID DESC:" headers (absent when
 * the output was grepped):
 *   [0xGUID] LID PORT[  ] ==( 4X 25.78125 Gbps Active/  LinkUp)==>
 *       PEERLID PEERPORT[  ] "PEER DESC" ( COMMENT )
 * {"ok", "nodes": [{"type", "guid", "desc", "ports": [{"lid", "port",
 * "width", "lane_gbps", "state", "physical_state", "peer": {"lid", "port",
 * "desc"}, "comment"}]}]}; a down port has no width, speed or peer.
 */
#include "parse.h"
#include "parse-util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ibl_state {
	json_t *root, *nodes, *node;
};

static const char *const ibl_failures[] = { "iblinkinfo: iberror:", "ibpanic:" };

static void ibl_new_node(struct ibl_state *st, const char *type, const char *guid,
			 const char *desc)
{
	st->node = jarray_new_object(st->nodes);
	jset_str(st->node, "type", type);
	jset_str(st->node, "guid", guid);
	jset_str(st->node, "desc", desc);
}

/* "CA: teaker-4 HCA-1:" / "Switch: 0x0002c902004b2678 Infiniscale-IV ...:" */
static int ibl_header(struct ibl_state *st, char *s)
{
	size_t n = strlen(s);
	char *p;

	if (!n || s[n - 1] != ':')
		return -1;
	s[n - 1] = '\0';
	if ((p = skip_prefix(s, "CA: "))) {
		ibl_new_node(st, "CA", NULL, p);
		return 0;
	}
	p = skip_prefix(s, "Switch: ");
	if (!p || !skip_prefix(p, "0x") || !strchr(p, ' '))
		return -1;
	*strchr(p, ' ') = '\0';
	ibl_new_node(st, "Switch", p, p + strlen(p) + 1);
	return 0;
}

/* " 4X      25.78125 Gbps Active/  LinkUp" or "                Down/ Polling"
 * (what stands between "==(" and ")==>") */
static int ibl_link(json_t *port, const char *s)
{
	char width[8], state[32], phys[32];
	double gbps;
	int used = 0;

	if (sscanf(s, " %7s %lf Gbps %31[^/]/ %31s%n", width, &gbps, state, phys, &used) == 4 &&
	    !s[used] && width[strlen(width) - 1] == 'X') {
		jset_str(port, "width", width);
		json_object_set_new(port, "lane_gbps", json_num(gbps));
	} else if (used = 0, sscanf(s, " %31[^/ ]/ %31s%n", state, phys, &used) != 2 || s[used]) {
		return -1;
	}
	jset_str(port, "state", trim(state));
	jset_str(port, "physical_state", trim(phys));
	return 0;
}

/* '      2   17[  ] "MF0;SB7700:MSB7700/U1" ( )' or '            [  ] "" ( )' */
static int ibl_peer(json_t *port, char *s)
{
	long long lid, pnum;
	char *q, *desc, *end;
	int used = 0;

	s = trim(s);
	if (sscanf(s, "%lld %lld[%*[^]]]%n", &lid, &pnum, &used) == 2 && used) {
		json_t *peer = jobject_at(port, "peer");

		jset_int(peer, "lid", lid);
		jset_int(peer, "port", pnum);
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
	desc = s + 1;
	if (*desc)
		jset_str(jobject_at(port, "peer"), "desc", desc);
	s = trim(end + 1);
	if (*s != '(' || s[strlen(s) - 1] != ')')
		return -1;
	s[strlen(s) - 1] = '\0';
	if (*trim(s + 1))
		jset_str(port, "comment", trim(s + 1));
	return 0;
}

static int ibl_port_line(struct ibl_state *st, char *s)
{
	char *open = strstr(s, "==("), *close = strstr(s, ")==>"), *tok[4], *br;
	long long lid, pnum;
	size_t n;
	json_t *port;

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
	if (parse_ll(tok[n - 2], 10, &lid) || parse_ll(tok[n - 1], 10, &pnum))
		return -1;
	if (!st->node)
		ibl_new_node(st, "unknown", NULL, NULL);
	port = jarray_new_object(jarray_at(st->node, "ports"));
	if (n == 3)
		jset_str(port, "guid", tok[0]);
	jset_int(port, "lid", lid);
	jset_int(port, "port", pnum);
	if (ibl_link(port, open + 3))
		return -1;
	return ibl_peer(port, close + 4);
}

static int ibl_line(void *state, struct pline *ln, struct err *err)
{
	struct ibl_state *st = state;
	char *s = ln->text;

	if (!*s)
		return 0;
	if (parse_tool_line(st->root, s, ibl_failures, ARRAY_SIZE(ibl_failures), "ibwarn:"))
		return 0;
	if (skip_prefix(s, "CA: ") || skip_prefix(s, "Switch: ")) {
		if (ibl_header(st, s))
			return pline_error(ln, err, "bad CA/Switch header");
		return 0;
	}
	if (ibl_port_line(st, s))
		return pline_error(ln, err, "expected 'LID PORT[..] ==( ... )==> PEER'");
	return 0;
}

int parse_iblinkinfo(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct ibl_state st = { 0 };
	int rc;

	st.root = json_object();
	st.nodes = jarray_at(st.root, "nodes");
	rc = parse_lines("iblinkinfo", buf, len, ibl_line, &st, err);
	if (!rc && !parse_failed(st.root) && !json_array_size(st.nodes))
		rc = parse_error_end("iblinkinfo", err, "no port line");
	return parse_done(rc, st.root, ret);
}

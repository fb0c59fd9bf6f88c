/*
 * perfquery (infiniband-diags): the port counters of one or more ports,
 * `perfquery -x` (extended, 64-bit data counters) or plain, and the
 * PortRcvErrorDetails block of -E. Each block is a "# ... counters: Lid L
 * port P" header and "Name:.....value" lines:
 * {"ok", "ports": [{"kind", "lid", "port", "cap_mask", "counters": {..}}]}.
 * A MAD port that cannot be opened (RoCE, no umad) is the tool's own
 * failure: ok false with its iberror line.
 */
#include "parse.h"
#include "parse-util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct perf_state {
	json_t *root, *ports, *port; /* port: the current block or NULL */
};

static const char *const perf_failures[] = { "perfquery: iberror:", "ibpanic:" };

/* "# Port extended counters: Lid 133 port 1 (CapMask: 0x5A00 CapMask2: 0x0000000)" */
static int perf_header(struct perf_state *st, char *s)
{
	char kind[64], cap[32] = "", cap2[32] = "";
	long long lid, port;
	int used = 0;
	char *p = strstr(s, " counters: Lid ");

	if (!p || p - s >= (long)sizeof(kind))
		return -1;
	memcpy(kind, s, p - s);
	kind[p - s] = '\0';
	if (sscanf(p, " counters: Lid %lld port %lld%n", &lid, &port, &used) != 2)
		return -1;
	p += used;
	if (*p) {
		used = 0;
		if (sscanf(p, " (CapMask: %31s CapMask2: %31[^)])%n", cap, cap2, &used) == 2 &&
		    used && !p[used])
			;
		else if (cap2[0] = '\0', used = 0,
			 sscanf(p, " (CapMask: %31[^)])%n", cap, &used) != 1 || !used || p[used])
			return -1;
	}
	st->port = jarray_new_object(st->ports);
	{
		char *k = slug(kind);

		jset_str(st->port, "kind", k);
		free(k);
	}
	jset_int(st->port, "lid", lid);
	jset_int(st->port, "port", port);
	if (cap[0])
		jset_str(st->port, "cap_mask", cap);
	if (cap2[0])
		jset_str(st->port, "cap_mask2", cap2);
	jobject_at(st->port, "counters");
	return 0;
}

static int perf_line(void *state, struct pline *ln, struct err *err)
{
	struct perf_state *st = state;
	char *s = ln->text, *p, *dots;
	long long v;

	if (!*s)
		return 0;
	if (parse_tool_line(st->root, ln->tool, s, perf_failures, ARRAY_SIZE(perf_failures), "ibwarn:"))
		return 0;
	if ((p = skip_prefix(s, "# "))) {
		if (perf_header(st, p))
			return pline_error(ln, err, "expected '# ... counters: Lid L port P'");
		return 0;
	}
	if (!st->port)
		return pline_error(ln, err, "counter before any '# ... counters:' header");
	/* "PortRcvErrors:...................0": the dots pad the name */
	dots = strchr(s, ':');
	if (!dots || dots == s)
		return pline_error(ln, err, "expected 'Name:....value'");
	*dots++ = '\0';
	dots += strspn(dots, ".");
	if (parse_ll(dots, 0, &v))
		return pline_error(ln, err, "counter value is not a number");
	if (!strcmp(s, "PortSelect") || !strncmp(s, "CounterSelect", 13))
		return 0; /* the query's own fields, not counters */
	jset_int(json_object_get(st->port, "counters"), s, v);
	return 0;
}

int parse_perfquery(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct perf_state st = { 0 };
	int rc;

	st.root = json_object();
	st.ports = jarray_at(st.root, "ports");
	rc = parse_lines("perfquery", buf, len, perf_line, &st, err);
	if (!rc && !parse_failed(st.root) && !json_array_size(st.ports))
		rc = parse_error_end("perfquery", err, "no '# ... counters:' block");
	return parse_done(rc, st.root, ret);
}

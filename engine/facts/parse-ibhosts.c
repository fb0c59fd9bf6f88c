/*
 * ibhosts (infiniband-diags, a script over ibnetdiscover): every channel
 * adapter the fabric discovery found, one line each,
 *   Ca	: 0x248a0703001f0426 ports 1 "dgx02 HCA-3"
 * {"ok", "cas": [{"guid", "ports", "desc"}]}. Switch lines (ibswitches'
 * "Switch : ...") or anything else are an error naming the line: this
 * parser reads CAs only. ibnetdiscover's own failure ("ibnetdiscover:
 * iberror: ...") is the tool's failure, as for every parser.
 */
#include "parse.h"
#include "parse-util.h"

#include <stdio.h>
#include <string.h>

static const char *const ibhosts_failures[] = { "ibnetdiscover: iberror:", "ibpanic:" };

static int ibhosts_line(void *state, struct pline *ln, struct err *err)
{
	json_t *root = state, *ca;
	char *s = ln->text, *desc, *end;
	char guid[32];
	long long ports;
	int used = 0;

	if (!*s)
		return 0;
	if (parse_tool_line(root, ln->tool, s, ibhosts_failures, ARRAY_SIZE(ibhosts_failures), "ibwarn:"))
		return 0;
	/* "Ca", then a tab (the script's printf) or blanks, then ": " */
	if (sscanf(s, "Ca : %31s ports %lld %n", guid, &ports, &used) != 2 || !used ||
	    !skip_prefix(guid, "0x") || strlen(guid) < 3 || ports < 1)
		return pline_error(ln, err, "expected 'Ca : 0xGUID ports N \"DESC\"'");
	desc = s + used;
	end = strrchr(desc, '"');
	if (*desc != '"' || end == desc || end[1])
		return pline_error(ln, err, "expected 'Ca : 0xGUID ports N \"DESC\"'");
	*end = '\0';
	ca = jarray_new_object(json_object_get(root, "cas"));
	jset_str(ca, "guid", guid);
	jset_int(ca, "ports", ports);
	jset_str(ca, "desc", desc + 1);
	return 0;
}

int parse_ibhosts(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();
	int rc;

	jarray_at(root, "cas");
	rc = parse_lines("ibhosts", buf, len, ibhosts_line, root, err);
	if (!rc && !parse_failed(root) && !json_array_size(json_object_get(root, "cas")))
		rc = parse_error_end("ibhosts", err, "no Ca line");
	return parse_done(rc, root, ret);
}

/*
 * InfiniBand tool outputs: ibstat, ibstatus, ibv_devinfo (plain, -v, -vv),
 * sminfo, ofed_info -s and saquery's records. The three port listings come out in one shape:
 * {"cas": [{"name", ..., "ports": [{"port", "state", "physical_state",
 * "rate" (Gb/s), "base_lid", "sm_lid", "port_guid", "link_layer", ...}]}]}.
 */
#include "parse.h"
#include "parse-util.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ib_state {
	json_t *root;
	json_t *cas;  /* borrowed from root */
	json_t *ca;   /* current CA or NULL */
	json_t *port; /* current port or NULL */
	size_t port_indent;
};

static void ib_state_init(struct ib_state *st)
{
	st->root = json_object();
	st->cas = jarray_at(st->root, "cas");
	st->ca = st->port = NULL;
	st->port_indent = 0;
}

static void ib_new_ca(struct ib_state *st, const char *name)
{
	st->ca = jarray_new_object(st->cas);
	jset_str(st->ca, "name", name);
	st->port = NULL;
}

static int ib_new_port(struct ib_state *st, const char *num)
{
	long long n;

	if (parse_ll(num, 10, &n))
		return -1;
	st->port = jarray_new_object(jarray_at(st->ca, "ports"));
	jset_int(st->port, "port", n);
	return 0;
}

/*
 * What each tool prints instead of a listing (or after part of one: ibstat
 * stops at the first CA it cannot read), and only that tool: ibstat is an
 * infiniband-diags C tool (ibdiag_common.c's IBPANIC/IBEXIT, "ibpanic:",
 * "iberror:"); ibstatus is a shell script over sysfs ("Fatal error:  device
 * '*': sys files not found", infiniband-diags scripts/ibstatus);
 * ibv_devinfo is libibverbs' (libibverbs/examples/devinfo.c: "Failed to
 * get IB devices list", "No IB devices found").
 */
static const char *const ibstat_failures[] = { "ibpanic:", "iberror:" };
static const char *const ibstatus_failures[] = { "Fatal error:" };
static const char *const devinfo_failures[] = {
	"No IB devices found", "Failed to get IB devices list",
};

/* A failure line is recorded, an ibwarn line kept as a warning; 1 when s
 * was one of them. */
static int ib_tool_line(struct ib_state *st, const char *tool, const char *s)
{
	if (!strcmp(tool, "ibstat"))
		return parse_tool_line(st->root, tool, s, ibstat_failures,
				       ARRAY_SIZE(ibstat_failures), "ibwarn:");
	if (!strcmp(tool, "ibstatus"))
		return parse_tool_line(st->root, tool, s, ibstatus_failures,
				       ARRAY_SIZE(ibstatus_failures), NULL);
	/* libibverbs warns before "No IB devices found" when it has no
	 * provider ("libibverbs: Warning: couldn't open config directory
	 * '/etc/libibverbs.d'."): kept as a warning */
	return parse_tool_line(st->root, tool, s, devinfo_failures,
			       ARRAY_SIZE(devinfo_failures), "libibverbs: Warning:");
}

static int ib_done(struct ib_state *st, const char *tool, int rc,
		   json_t **ret, struct err *err)
{
	if (!rc && !parse_failed(st->root) && !json_array_size(st->cas))
		rc = parse_error_end(tool, err, "no CA found");
	return parse_done(rc, st->root, ret);
}

/* "fe80:0000:0000:0000:ec0d:9a03:0044:d608" -> port_guid 0xec0d9a030044d608:
 * the port GUID is the interface id of the link-local GID. */
static void set_port_guid_from_gid(json_t *port, const char *gid)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	if (!skip_prefix(gid, "fe80:") || strlen(gid) != 39 ||
	    json_object_get(port, "port_guid"))
		return;
	strbuf_addstr(&sb, "0x");
	for (p = gid + 20; *p; p++)
		if (*p != ':')
			strbuf_addch(&sb, *p);
	jset_str(port, "port_guid", sb.buf);
	strbuf_release(&sb);
}

static int fset_gid(json_t *o, const char *to, const char *val)
{
	jset_str(o, to, val);
	set_port_guid_from_gid(o, val);
	return 0;
}

/* ibstatus "4: ACTIVE" -> state "ACTIVE", state_num 4. */
static int fset_num_colon_name(json_t *o, const char *to, const char *val)
{
	char *dup = xstrdup(val), *k, *v;
	long long n;
	int rc = -1;

	if (split_kv(dup, ':', &k, &v) && !parse_ll(k, 10, &n) && *v) {
		char *numkey = xasprintf("%s_num", to);

		jset_str(o, to, v);
		jset_int(o, numkey, n);
		free(numkey);
		rc = 0;
	}
	free(dup);
	return rc;
}

/* ibv_devinfo "PORT_ACTIVE (4)" -> state "PORT_ACTIVE", state_num 4. */
static int fset_name_paren_num(json_t *o, const char *to, const char *val)
{
	char name[64];
	long long n;
	int used = 0;

	if (sscanf(val, "%63[^(](%lld)%n", name, &n, &used) != 2 || val[used])
		return -1;
	jset_str(o, to, trim(name));
	if (strcmp(to, "physical_state") && strcmp(to, "state"))
		return 0;
	{
		char *numkey = xasprintf("%s_num", to);

		jset_int(o, numkey, n);
		free(numkey);
	}
	return 0;
}

/* ibstatus "200 Gb/sec (4X HDR)" -> rate 200, width "4X", speed "HDR". */
static int fset_ibstatus_rate(json_t *o, const char *to, const char *val)
{
	double rate;
	char width[16] = "", speed[16] = "";
	int used = 0;

	if (sscanf(val, "%lf Gb/sec%n", &rate, &used) != 1 || !used)
		return -1;
	json_object_set_new(o, to, json_num(rate));
	if (sscanf(val + used, " (%15s %15[^)])", width, speed) == 2) {
		jset_str(o, "width", width);
		jset_str(o, "speed", speed);
	}
	return 0;
}

static const struct field_map ibstat_ca_fields[] = {
	{ "CA type", "type", fset_str },
	{ "Number of ports", "ports_count", fset_int },
	{ "Firmware version", "fw", fset_str },
	{ "Hardware version", "hw_version", fset_str },
	{ "Node GUID", "node_guid", fset_str },
	{ "System image GUID", "system_guid", fset_str },
	{ NULL, NULL, NULL },
};

static const struct field_map ibstat_port_fields[] = {
	{ "State", "state", fset_str },
	{ "Physical state", "physical_state", fset_str },
	{ "Rate", "rate", fset_num },
	{ "Base lid", "base_lid", fset_int },
	{ "LMC", "lmc", fset_int },
	{ "SM lid", "sm_lid", fset_int },
	{ "Capability mask", "capability_mask", fset_str },
	{ "Port GUID", "port_guid", fset_str },
	{ "Link layer", "link_layer", fset_str },
	{ NULL, NULL, NULL },
};

static int ibstat_line(void *state, struct pline *ln, struct err *err)
{
	struct ib_state *st = state;
	char *s = ln->text, *key, *val, *p;

	if (!*s || ib_tool_line(st, ln->tool, s))
		return 0;
	/* "ibstat CA PORT" prints "CA: 'name'" and unindented port fields */
	if (((p = skip_prefix(s, "CA '")) || (p = skip_prefix(s, "CA: '"))) &&
	    ln->indent == 0) {
		char *q = strchr(p, '\'');

		if (!q || q[1])
			return pline_error(ln, err, "bad CA line");
		*q = '\0';
		ib_new_ca(st, p);
		return 0;
	}
	if (!st->ca)
		return pline_error(ln, err, "expected CA 'name'");
	/* p may be empty: "Port " is all that is left of "Port \0" */
	if ((p = skip_prefix(s, "Port ")) && *p && p[strlen(p) - 1] == ':') {
		p[strlen(p) - 1] = '\0';
		if (ib_new_port(st, p))
			return pline_error(ln, err, "bad port number");
		return 0;
	}
	if (!split_kv(s, ':', &key, &val))
		return pline_error(ln, err, "expected 'key: value'");
	if (st->port)
		return pline_field(ln, err, ibstat_port_fields, st->port, key, val);
	return pline_field(ln, err, ibstat_ca_fields, st->ca, key, val);
}

int parse_ibstat(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct ib_state st;

	ib_state_init(&st);
	return ib_done(&st, "ibstat",
		       parse_lines("ibstat", buf, len, ibstat_line, &st, err),
		       ret, err);
}

static const struct field_map ibstatus_fields[] = {
	{ "default gid", "default_gid", fset_gid },
	{ "base lid", "base_lid", fset_int },
	{ "sm lid", "sm_lid", fset_int },
	{ "state", "state", fset_num_colon_name },
	{ "phys state", "physical_state", fset_num_colon_name },
	{ "rate", "rate", fset_ibstatus_rate },
	{ "link_layer", "link_layer", fset_str },
	{ NULL, NULL, NULL },
};

/* "Infiniband device 'mlx5_0' port 1 status:" */
static int ibstatus_header(struct ib_state *st, char *p)
{
	char *q = strchr(p, '\''), *port;
	const char *last;

	if (!q)
		return -1;
	*q = '\0';
	port = skip_prefix(q + 1, " port ");
	if (!port || !(q = strstr(port, " status:")) || q[8])
		return -1;
	*q = '\0';
	/* the script prints one block per port: group them under their CA */
	last = st->ca ? json_string_value(json_object_get(st->ca, "name")) : NULL;
	if (!last || strcmp(last, p))
		ib_new_ca(st, p);
	return ib_new_port(st, port);
}

static int ibstatus_line(void *state, struct pline *ln, struct err *err)
{
	struct ib_state *st = state;
	char *s = ln->text, *key, *val, *p;

	if (!*s || ib_tool_line(st, ln->tool, s))
		return 0;
	if ((p = skip_prefix(s, "Infiniband device '"))) {
		if (ibstatus_header(st, p))
			return pline_error(ln, err, "bad device line");
		return 0;
	}
	if (!st->port)
		return pline_error(ln, err, "expected \"Infiniband device '...' port N status:\"");
	if (!split_kv(s, ':', &key, &val))
		return pline_error(ln, err, "expected 'key: value'");
	return pline_field(ln, err, ibstatus_fields, st->port, key, val);
}

int parse_ibstatus(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct ib_state st;

	ib_state_init(&st);
	return ib_done(&st, "ibstatus",
		       parse_lines("ibstatus", buf, len, ibstatus_line, &st, err),
		       ret, err);
}

static const struct field_map devinfo_ca_fields[] = {
	{ "transport", "transport", fset_name_paren_num },
	{ "fw_ver", "fw", fset_str },
	{ "node_guid", "node_guid", fset_str },
	{ "sys_image_guid", "system_guid", fset_str },
	{ "vendor_id", "vendor_id", fset_str },
	{ "vendor_part_id", "type", fset_str },
	{ "hw_ver", "hw_version", fset_str },
	{ "board_id", "board_id", fset_str },
	{ "phys_port_cnt", "ports_count", fset_int },
	{ NULL, NULL, NULL },
};

static const struct field_map devinfo_port_fields[] = {
	{ "state", "state", fset_name_paren_num },
	{ "max_mtu", "max_mtu", fset_lead_int },
	{ "active_mtu", "active_mtu", fset_lead_int },
	{ "sm_lid", "sm_lid", fset_int },
	{ "port_lid", "base_lid", fset_int },
	{ "port_lmc", "lmc", fset_int },
	{ "link_layer", "link_layer", fset_str },
	{ "active_width", "width", fset_name_paren_num },
	{ "active_speed", "speed", fset_name_paren_num },
	{ "phys_state", "physical_state", fset_name_paren_num },
	{ NULL, NULL, NULL },
};

/* ibv_devinfo shows no rate: it is lanes x lane speed ("4X", "50.0 Gbps"). */
static void devinfo_port_rate(json_t *port)
{
	const char *w = json_string_value(json_object_get(port, "width"));
	const char *sp = json_string_value(json_object_get(port, "speed"));
	double lanes, gbps;
	char x;

	if (w && sp && sscanf(w, "%lf%c", &lanes, &x) == 2 && x == 'X' &&
	    sscanf(sp, "%lf Gbps", &gbps) == 1)
		json_object_set_new(port, "rate", json_num(lanes * gbps));
}

static int devinfo_gid(struct ib_state *st, const char *key, const char *val)
{
	if (!skip_prefix(key, "GID["))
		return 0;
	json_array_append_new(jarray_at(st->port, "gids"), json_string(val));
	set_port_guid_from_gid(st->port, val);
	return 1;
}

static int devinfo_line(void *state, struct pline *ln, struct err *err)
{
	struct ib_state *st = state;
	char *s = ln->text, *key, *val;

	if (!*s || (ln->indent == 0 && ib_tool_line(st, ln->tool, s)))
		return 0;
	if (ln->indent == 0) {
		if (!split_kv(s, ':', &key, &val) || strcmp(key, "hca_id") || !*val)
			return pline_error(ln, err, "expected 'hca_id: NAME'");
		ib_new_ca(st, val);
		return 0;
	}
	if (!st->ca)
		return pline_error(ln, err, "expected 'hca_id: NAME'");
	/* -v prints capability flag lists and sub-headings: no value */
	if (!split_kv(s, ':', &key, &val))
		return 0;
	if (!strcmp(key, "port")) {
		if (ib_new_port(st, val))
			return pline_error(ln, err, "bad port number");
		st->port_indent = ln->indent;
		return 0;
	}
	if (st->port && ln->indent > st->port_indent) {
		if (devinfo_gid(st, key, val))
			return 0;
		return pline_field(ln, err, devinfo_port_fields, st->port, key, val);
	}
	st->port = NULL;
	return pline_field(ln, err, devinfo_ca_fields, st->ca, key, val);
}

int parse_ibv_devinfo(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct ib_state st;
	json_t *ca, *port;
	size_t i, j;
	int rc;

	ib_state_init(&st);
	rc = parse_lines("ibv_devinfo", buf, len, devinfo_line, &st, err);
	json_array_foreach(st.cas, i, ca)
		json_array_foreach(json_object_get(ca, "ports"), j, port)
			devinfo_port_rate(port);
	if (!rc && !json_array_size(st.cas))
		jset_bool(st.root, "no_devices", 1);
	if (!rc && !parse_failed(st.root) && !json_array_size(st.cas))
		rc = parse_error_end("ibv_devinfo", err, "no hca_id found");
	return parse_done(rc, st.root, ret);
}

/* sminfo: one result line, or ibwarn/iberror lines when it could not ask. */
static int sminfo_line(void *state, struct pline *ln, struct err *err)
{
	json_t *root = state;
	char guid[64], name[64];
	long long lid, count, prio, smstate;
	int used = 0;
	char *p;

	if (!*ln->text)
		return 0;
	if ((p = skip_prefix(ln->text, "ibwarn: "))) {
		json_array_append_new(jarray_at(root, "warnings"), json_string(p));
		return 0;
	}
	if ((p = skip_prefix(ln->text, "sminfo: iberror: "))) {
		char *q = skip_prefix(p, "failed: ");

		jset_bool(root, "ok", 0);
		jset_str(root, "error", q ? q : p);
		return 0;
	}
	/* The shell's "bash: sminfo: command not found" (OFED not installed). */
	if (parse_tool_line(root, ln->tool, ln->text, NULL, 0, NULL))
		return 0;
	if (sscanf(ln->text, "sminfo: sm lid %lld sm guid %63[^,], activity count %lld priority %lld state %lld %63s%n",
		   &lid, guid, &count, &prio, &smstate, name, &used) != 6 ||
	    ln->text[used])
		return pline_error(ln, err, "not an sminfo line");
	jset_bool(root, "ok", 1);
	jset_int(root, "sm_lid", lid);
	jset_str(root, "sm_guid", guid);
	jset_int(root, "activity_count", count);
	jset_int(root, "priority", prio);
	jset_int(root, "state", smstate);
	jset_str(root, "state_name", name);
	return 0;
}

int parse_sminfo(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();
	int rc = parse_lines("sminfo", buf, len, sminfo_line, root, err);

	if (!rc && !json_object_get(root, "ok"))
		rc = parse_error_end("sminfo", err, "no result and no error line");
	return parse_done(rc, root, ret);
}

/*
 * ofed_info -s: "MLNX_OFED_LINUX-4.7-1.0.0.1:" (one line); old releases
 * print the full first line "MLNX_OFED_LINUX-4.4-2.0.7.0 (OFED-4.4-2.0.7):"
 * (the base OFED release in brackets); ofed_info -n prints the bare
 * version "5.0-2.1.8.0", which has no flavour.
 */
static int ofed_info_line(void *state, struct pline *ln, struct err *err)
{
	json_t *root = state;
	char *s = ln->text, *dash, *base;
	size_t n;

	if (!*s)
		return 0;
	if (tool_failure_line(ln->tool, s, NULL, 0)) {
		parse_failure(root, s);
		return 0;
	}
	if (json_object_get(root, "version_string"))
		return pline_error(ln, err, "more than one line (use ofed_info -s)");
	if ((base = strstr(s, " ("))) {
		size_t bn;

		*base = '\0';
		base += 2;
		bn = strlen(base);
		if (bn < 3 || strcmp(base + bn - 2, "):"))
			return pline_error(ln, err, "expected 'FLAVOUR-VERSION (BASE):'");
		base[bn - 2] = '\0';
		if (strchr(base, ' ') || !strchr(base, '-'))
			return pline_error(ln, err, "expected 'FLAVOUR-VERSION (BASE):'");
	}
	n = strlen(s);
	if (n && s[n - 1] == ':')
		s[--n] = '\0';
	if (!n || strchr(s, ' ') || strchr(s, ':'))
		return pline_error(ln, err, "expected FLAVOUR-VERSION or VERSION");
	jset_str(root, "version_string", s);
	if (base)
		jset_str(root, "base", base);
	if (*s >= '0' && *s <= '9') {
		dash = s - 1; /* -n: no flavour */
	} else {
		/* the flavour may itself contain dashes ("OFED-internal") */
		for (dash = strchr(s, '-'); dash; dash = strchr(dash + 1, '-'))
			if (dash[1] >= '0' && dash[1] <= '9')
				break;
		if (!dash || dash == s)
			return pline_error(ln, err, "expected FLAVOUR-VERSION or VERSION");
		*dash = '\0';
		jset_str(root, "flavour", s);
	}
	jset_str(root, "version", dash + 1);
	if ((s = strchr(dash + 1, '-'))) {
		*s = '\0';
		jset_str(root, "release", dash + 1);
	}
	return 0;
}

int parse_ofed_info(const char *buf, size_t len, json_t **ret, struct err *err)
{
	json_t *root = json_object();
	int rc = parse_lines("ofed_info", buf, len, ofed_info_line, root, err);

	if (!rc && !parse_failed(root) && !json_object_get(root, "version_string"))
		rc = parse_error_end("ofed_info", err, "no version line");
	return parse_done(rc, root, ret);
}

/*
 * saquery (infiniband-diags): the subnet administrator's records, each
 * "TYPE dump:" ("NodeRecord dump:", "PortInfoRecord dump:", "LinkRecord
 * dump:", ...) then "\t\tfield......value" lines, the dots padding the
 * field name (saquery.c's dump_* functions). {"records": [{"type",
 * "fields": {field: value}}]}, and for NodeRecords "nodes": [{"lid",
 * "node_type", "node_guid", "port_guid", "port_num", "description"}]; lid
 * and port_num are decimal in newer saquery, 0x hex in older. Its iberror
 * lines are ok:false.
 */
struct saq_state {
	json_t *root, *rec;
};

static const char *const saq_failures[] = { "saquery: iberror:", "iberror:", "ibpanic:" };

static void saq_node(json_t *root, json_t *fields)
{
	static const struct { const char *from, *to; } keys[] = {
		{ "node_type", "node_type" }, { "node_guid", "node_guid" },
		{ "port_guid", "port_guid" }, { "NodeDescription", "description" },
	};
	json_t *n = jarray_new_object(jarray_at(root, "nodes"));
	const char *lid = json_string_value(json_object_get(fields, "lid"));
	const char *port = json_string_value(json_object_get(fields, "port_num"));
	long long v;

	/* a record cut short may lack either */
	if (lid && !parse_ll(lid, 0, &v))
		jset_int(n, "lid", v);
	if (port && !parse_ll(port, 0, &v))
		jset_int(n, "port_num", v);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		jset_str(n, keys[i].to, json_string_value(json_object_get(fields, keys[i].from)));
}

static int saq_line(void *state, struct pline *ln, struct err *err)
{
	struct saq_state *st = state;
	char *s = ln->text, *dots;
	size_t n = strlen(s);

	if (!*s || parse_tool_line(st->root, ln->tool, s, saq_failures, ARRAY_SIZE(saq_failures),
				   "ibwarn:"))
		return 0;
	if (n > 6 && !strcmp(s + n - 6, " dump:") &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") == n - 6) {
		s[n - 6] = '\0';
		st->rec = jarray_new_object(jarray_at(st->root, "records"));
		jset_str(st->rec, "type", s);
		jobject_at(st->rec, "fields");
		return 0;
	}
	dots = strstr(s, "..");
	if (!dots || dots == s || !st->rec)
		return parse_not_tool(ln->tool, err, "a line that is no 'TYPE dump:' or 'field....value'");
	*dots = '\0';
	dots += strspn(dots + 1, ".") + 1;
	jset_str(json_object_get(st->rec, "fields"), s, dots);
	return 0;
}

int parse_saquery(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct saq_state st = { json_object(), NULL };
	int rc = parse_lines("saquery", buf, len, saq_line, &st, err);
	json_t *r;
	size_t i;

	if (!rc && !st.rec && !parse_failed(st.root))
		rc = parse_not_tool("saquery", err, "no 'TYPE dump:' record");
	json_array_foreach(json_object_get(st.root, "records"), i, r)
		if (!rc && !strcmp(json_string_value(json_object_get(r, "type")), "NodeRecord"))
			saq_node(st.root, json_object_get(r, "fields"));
	return parse_done(rc, st.root, ret);
}

/*
 * The fabric as a whole, from one iblinkinfo reading (parse-iblinkinfo.h).
 * See check-fabric.h.
 *
 * Switches are told apart by what iblinkinfo shows of them: a leaf has at
 * least one CA cabled to it, a spine only other switches. A leaf whose
 * every host port is down therefore reads as a spine; the hosts' own
 * ib.fabric_links findings say why.
 */
#include "check-fabric.h"
#include "../facts/facts.h"
#include "../base/nodeset.h"
#include "../facts/parse-iblinkinfo.h"
#include "../base/strbuf.h"
#include "../base/strlist.h"
#include "../base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct fswitch {
	const struct ibl_node *node; /* the reading's */
	const char *desc;        /* "MF0;sim-leaf01:MSB7700/U1" */
	char *name;              /* "sim-leaf01" (see switch_name) */
	long long lid;           /* the switch's LID, on each of its port lines */
	size_t ca_ports;         /* ports cabled to a CA */
	size_t isl_ports;        /* ports cabled to a switch */
	bool leaf;
};

struct fabric {
	const struct ibl_fabric *reading;
	struct fswitch *sw;
	size_t nsw;
	size_t leaves, spines;
};

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* Switch s's ports, for (p = first(s); p < end(s); p++). */
static const struct ibl_port *first(const struct fabric *fb, const struct fswitch *s)
{
	return fb->reading->ports + s->node->first;
}

static const struct ibl_port *end(const struct fabric *fb, const struct fswitch *s)
{
	return first(fb, s) + s->node->n;
}

bool fabric_is_reader(const struct check_ctx *cc)
{
	return cc->hf->fabric || json_object_get(cc->hf->parse_errors, "iblinkinfo");
}

/* The leaf host h's port of HCA hca is planned on (its `fabric_leaf`
 * variable: one leaf for every port, or a mapping HCA: leaf), or NULL. */
static const char *planned_leaf(const struct host *h, const char *hca)
{
	json_t *v = json_object_get(h->vars, "fabric_leaf");

	if (json_is_object(v))
		v = json_object_get(v, hca);
	return json_string_value(v);
}

static bool any_leaf_planned(const struct inventory *inv)
{
	for (size_t i = 0; i < inv->nhosts; i++)
		if (json_object_get(inv->hosts[i].vars, "fabric_leaf"))
			return true;
	return false;
}

bool fabric_is_planned(const struct check_ctx *cc)
{
	return fabric_is_reader(cc) && (cc->inv->fabric.present || any_leaf_planned(cc->inv));
}

/*
 * "MF0;sim-leaf01:MSB7700/U1" -> "sim-leaf01": Mellanox switches describe
 * themselves as "MF0;HOSTNAME:MODEL/U1"; any other description is kept
 * whole. Caller frees.
 */
static char *switch_name(const char *desc)
{
	const char *p = strncmp(desc, "MF0;", 4) ? NULL : desc + 4, *colon;

	if (!p || !(colon = strchr(p, ':')) || colon == p)
		return xstrdup(desc);
	return xstrndup(p, (size_t)(colon - p));
}

/* The switch at LID lid described desc (iblinkinfo names a peer by both). */
static struct fswitch *fabric_switch(const struct fabric *fb, long long lid, const char *desc)
{
	for (size_t i = 0; desc && i < fb->nsw; i++)
		if (fb->sw[i].lid == lid && !strcmp(fb->sw[i].desc, desc))
			return &fb->sw[i];
	return NULL;
}

static void fabric_release(struct fabric *fb)
{
	for (size_t i = 0; i < fb->nsw; i++)
		free(fb->sw[i].name);
	free(fb->sw);
}

/*
 * The reading of this host as switches, or a failure recorded (and -1)
 * when there is none to judge.
 */
static int fabric_load(struct check_ctx *cc, struct fabric *fb)
{
	const struct ibl_fabric *fab = cc->hf->fabric;
	size_t i, k;

	memset(fb, 0, sizeof(*fb));
	if (!fab) {
		check_fail(cc, NULL, "iblinkinfo reads the fabric", "unreadable output",
			   json_string_value(json_object_get(cc->hf->parse_errors, "iblinkinfo")));
		return -1;
	}
	if (!iblinkinfo_ok(fab)) {
		check_fail(cc, NULL, "iblinkinfo reads the fabric", "iblinkinfo failed",
			   jstr(fab->status, "error"));
		return -1;
	}
	fb->reading = fab;
	fb->sw = xcalloc(fab->nnodes + 1, sizeof(*fb->sw));
	for (i = 0; i < fab->nnodes; i++) {
		const struct ibl_node *n = &fab->nodes[i];
		struct fswitch *s;

		if (strcmp(n->type, "Switch") || !n->desc || !n->n)
			continue;
		s = &fb->sw[fb->nsw++];
		s->node = n;
		s->desc = n->desc;
		s->name = switch_name(s->desc);
		s->lid = fab->ports[n->first].lid;
	}
	/* two switches of one name (unnamed switches all say "SwitchIB ...")
	 * are told apart by LID */
	for (i = 0; i < fb->nsw; i++)
		for (k = 0; k < fb->nsw; k++)
			if (k != i && !strcmp(fb->sw[i].desc, fb->sw[k].desc)) {
				char *named = xasprintf("%s (lid %lld)", fb->sw[i].name,
							fb->sw[i].lid);

				free(fb->sw[i].name);
				fb->sw[i].name = named;
				break;
			}
	for (i = 0; i < fb->nsw; i++) {
		struct fswitch *s = &fb->sw[i];

		for (const struct ibl_port *p = first(fb, s); p < end(fb, s); p++) {
			if (!p->peer_desc)
				continue; /* down: nothing at the far end */
			if (fabric_switch(fb, p->peer_lid, p->peer_desc))
				s->isl_ports++;
			else
				s->ca_ports++;
		}
		s->leaf = s->ca_ports > 0;
		if (s->leaf)
			fb->leaves++;
		else
			fb->spines++;
	}
	return 0;
}

/* The port numbered port of switch s, or NULL. */
static const struct ibl_port *switch_port(const struct fabric *fb, const struct fswitch *s,
					  long long port)
{
	for (const struct ibl_port *p = first(fb, s); p < end(fb, s); p++)
		if (p->port == port)
			return p;
	return NULL;
}

/* ---- ib.fabric_isl ------------------------------------------------------ */

double ib_lane_gbps(const char *speed)
{
	static const struct { const char *name; double gbps; } lanes[] = {
		{ "SDR", 2.5 }, { "DDR", 5.0 }, { "QDR", 10.0 }, { "FDR", 14.0625 },
		{ "EDR", 25.78125 }, { "HDR", 53.125 }, { "NDR", 106.25 },
	};

	for (size_t i = 0; speed && i < sizeof(lanes) / sizeof(lanes[0]); i++)
		if (!strcmp(speed, lanes[i].name))
			return lanes[i].gbps;
	return 0;
}

/* The ISL rate expected: the inventory's fabric.isl_rate, else the rate
 * this host's first InfiniBand port is expected at (switches are bought
 * for the hosts' rate). False when neither says. */
static bool isl_expected(const struct check_ctx *cc, const char **ret_width,
			 const char **ret_speed)
{
	if (cc->inv->fabric.isl_width) {
		*ret_width = cc->inv->fabric.isl_width;
		*ret_speed = cc->inv->fabric.isl_speed;
		return true;
	}
	for (size_t i = 0; i < cc->host->nhcas; i++) {
		const struct hca_expect *e = &cc->host->hcas[i];

		if (e->link_layer != LINK_ETH && e->width && e->speed) {
			*ret_width = e->width;
			*ret_speed = e->speed;
			return true;
		}
	}
	return false;
}

static bool end_below(const struct ibl_port *p, const char *width, double want)
{
	return !p || !p->width || strcmp(p->width, width) || p->lane_gbps < want - 0.01;
}

static char *end_text(const struct ibl_port *p, const char *name)
{
	if (!p)
		return xasprintf("not seen at %s", name);
	return xasprintf("%s %.10g Gbps at %s", p->width ? p->width : "?", p->lane_gbps, name);
}

void run_ib_fabric_isl(struct check_ctx *cc)
{
	struct fabric fb;
	const char *width, *speed;
	char *exp;
	size_t nisl = 0, nbad = 0;

	if (!isl_expected(cc, &width, &speed)) {
		check_skip(cc, NULL, "no rate to hold the switch-to-switch links to: give "
			   "fabric.isl_rate in the inventory or a rate with width and speed "
			   "to this host's HCAs");
		return;
	}
	if (fabric_load(cc, &fb))
		return;
	exp = xasprintf("%s %s", width, speed);
	for (size_t i = 0; i < fb.nsw; i++) {
		for (const struct ibl_port *p = first(&fb, &fb.sw[i]); p < end(&fb, &fb.sw[i]); p++) {
			const struct ibl_port *far;
			struct fswitch *o = fabric_switch(&fb, p->peer_lid, p->peer_desc);
			long long pport = p->peer_port;
			double want = ib_lane_gbps(speed);

			/* each cable once: from the end that comes first */
			if (!o || o < &fb.sw[i] || (o == &fb.sw[i] && pport < p->port))
				continue;
			nisl++;
			far = switch_port(&fb, o, pport);
			if (end_below(p, width, want) || end_below(far, width, want)) {
				char *subj = xasprintf("%s port %d <-> %s port %lld", fb.sw[i].name,
						       p->port, o->name, pport);
				char *here = end_text(p, fb.sw[i].name), *there = end_text(far, o->name);
				char *found = xasprintf("%s, %s", here, there);

				check_fail(cc, subj, exp, found,
					   "a switch-to-switch cable trained below its rate: reseat or "
					   "replace the cable or transceiver at either end");
				nbad++;
				free(subj);
				free(here);
				free(there);
				free(found);
			}
		}
	}
	if (!nbad) {
		char *what = xasprintf("every switch-to-switch link at %s", exp);
		char *found = nisl ? xasprintf("%zu links at %s", nisl, exp) :
				     xstrdup("no switch-to-switch link (one switch)");

		check_pass(cc, NULL, what, found);
		free(what);
		free(found);
	}
	free(exp);
	fabric_release(&fb);
}

/* ---- ib.fabric_size ----------------------------------------------------- */

static bool expects_ib(const struct host *h)
{
	for (size_t i = 0; i < h->nhcas; i++)
		if (h->hcas[i].link_layer != LINK_ETH)
			return true;
	return false;
}

/*
 * The fabric's CA descriptions: ibhosts' list when it was read and parsed
 * (the tool made for this count), else the CA headers of iblinkinfo.
 * *ret_source names which.
 */
static void fabric_cas(const struct check_ctx *cc, const struct fabric *fb,
		       struct strlist *out, const char **ret_source)
{
	json_t *hosts = fact_parsed(cc->hf, "ibhosts"), *n;
	const struct ibl_fabric *fab = fb->reading;
	size_t i;

	if (hosts && json_is_true(json_object_get(hosts, "ok"))) {
		*ret_source = "ibhosts";
		json_array_foreach(json_object_get(hosts, "cas"), i, n)
			if (jstr(n, "desc"))
				strlist_push(out, jstr(n, "desc"));
		return;
	}
	*ret_source = "iblinkinfo";
	for (i = 0; i < fab->nnodes; i++)
		if (!strcmp(fab->nodes[i].type, "CA") && fab->nodes[i].desc)
			strlist_push(out, fab->nodes[i].desc);
}

/* One of the CAs is described "HOST ..." (rdma-ndd's "HOST HCA"). */
static bool host_seen(const struct strlist *cas, const char *host)
{
	size_t len = strlen(host);

	for (size_t i = 0; i < cas->n; i++)
		if (!strncmp(cas->v[i], host, len) && cas->v[i][len] == ' ')
			return true;
	return false;
}

static void fabric_hosts(struct check_ctx *cc, const struct fabric *fb)
{
	struct strlist missing = STRLIST_INIT, cas = STRLIST_INIT;
	size_t want = 0, i;
	const char *source;
	char *exp, *found;

	fabric_cas(cc, fb, &cas, &source);
	for (i = 0; i < cc->inv->nhosts; i++) {
		const struct host *h = &cc->inv->hosts[i];

		if (!expects_ib(h))
			continue;
		want++;
		if (!host_seen(&cas, h->name))
			strlist_push(&missing, h->name);
	}
	exp = xasprintf("the %zu hosts with InfiniBand HCAs", want);
	if (missing.n) {
		char *set = nodeset_fold(missing.v, missing.n);

		found = xasprintf("%zu of them, none of %s (%zu CAs in all, %s)", want - missing.n,
				  set, cas.n, source);
		check_fail(cc, "hosts", exp, found,
			   "a host with no CA in the fabric is cabled to another fabric or not "
			   "at all, or all its ports are down (its ib.port_state says which)");
		free(set);
	} else {
		found = xasprintf("all %zu (%zu CAs in all, %s)", want, cas.n, source);
		check_pass(cc, "hosts", exp, found);
	}
	free(exp);
	free(found);
	strlist_clear(&missing);
	strlist_clear(&cas);
}

static void fabric_switches(struct check_ctx *cc, const struct fabric *fb)
{
	const struct fabric_expect *f = &cc->inv->fabric;
	char *found = xasprintf("%zu leaf switches, %zu spine switches", fb->leaves, fb->spines);
	struct strbuf exp = STRBUF_INIT;
	bool bad = false;

	if (f->leaf_switches >= 0) {
		strbuf_addf(&exp, "%d leaf switches", f->leaf_switches);
		bad |= (size_t)f->leaf_switches != fb->leaves;
	}
	if (f->spine_switches >= 0) {
		strbuf_addf(&exp, "%s%d spine switches", exp.len ? ", " : "", f->spine_switches);
		bad |= (size_t)f->spine_switches != fb->spines;
	}
	if (!exp.len)
		strbuf_addstr(&exp, "switches seen (fabric.leaf_switches and "
			      "fabric.spine_switches say how many)");
	if (bad)
		check_fail(cc, "switches", exp.buf, found,
			   "a switch that is missing is powered off or cut from the fabric; one "
			   "too many is cabled in by mistake, or the inventory's fabric section "
			   "is out of date");
	else
		check_pass(cc, "switches", exp.buf, found);
	strbuf_release(&exp);
	free(found);
}

void run_ib_fabric_size(struct check_ctx *cc)
{
	struct fabric fb;

	if (fabric_load(cc, &fb))
		return;
	fabric_hosts(cc, &fb);
	fabric_switches(cc, &fb);
	fabric_release(&fb);
}

/* ---- ib.fabric_cabling -------------------------------------------------- */

/* Each leaf: cabled to every spine, with uplinks_per_leaf cables spread
 * evenly, and no more than host_ports_per_leaf hosts. */
static void leaf_cabling(struct check_ctx *cc, struct fabric *fb, struct fswitch *leaf)
{
	const struct fabric_expect *f = &cc->inv->fabric;
	size_t *cables = xcalloc(fb->nsw + 1, sizeof(*cables));
	struct strbuf exp = STRBUF_INIT, found = STRBUF_INIT, bad = STRBUF_INIT;

	for (const struct ibl_port *p = first(fb, leaf); p < end(fb, leaf); p++) {
		struct fswitch *o = fabric_switch(fb, p->peer_lid, p->peer_desc);

		if (o)
			cables[o - fb->sw]++;
	}
	strbuf_addstr(&exp, "cabled to every spine");
	for (size_t i = 0; i < fb->nsw; i++) {
		if (fb->sw[i].leaf)
			continue;
		strbuf_addf(&found, "%s%zu to %s", found.len ? ", " : "", cables[i], fb->sw[i].name);
		if (!cables[i])
			strbuf_addf(&bad, "%sno cable to %s", bad.len ? "; " : "", fb->sw[i].name);
		else if (f->uplinks_per_leaf > 0 && f->spine_switches > 0 &&
			 cables[i] != (size_t)(f->uplinks_per_leaf / f->spine_switches))
			strbuf_addf(&bad, "%s%zu cables to %s", bad.len ? "; " : "", cables[i],
				    fb->sw[i].name);
	}
	if (f->uplinks_per_leaf >= 0) {
		strbuf_addf(&exp, ", %d uplinks", f->uplinks_per_leaf);
		if (leaf->isl_ports != (size_t)f->uplinks_per_leaf)
			strbuf_addf(&bad, "%s%zu uplinks", bad.len ? "; " : "", leaf->isl_ports);
	}
	if (f->host_ports_per_leaf >= 0) {
		strbuf_addf(&exp, ", at most %d host ports", f->host_ports_per_leaf);
		if (leaf->ca_ports > (size_t)f->host_ports_per_leaf)
			strbuf_addf(&bad, "%s%zu host ports", bad.len ? "; " : "", leaf->ca_ports);
	}
	strbuf_addf(&found, "%s%zu host ports", found.len ? "; " : "", leaf->ca_ports);
	if (bad.len) {
		strbuf_addf(&bad, " (seen: %s)", found.buf);
		check_fail(cc, leaf->name, exp.buf, bad.buf,
			   "cable the leaf as planned: a missing uplink halves a path's bandwidth "
			   "under load; or bring the inventory's fabric section up to date");
	} else {
		check_pass(cc, leaf->name, exp.buf, found.buf);
	}
	strbuf_release(&exp);
	strbuf_release(&found);
	strbuf_release(&bad);
	free(cables);
}

/* Switch s is the one the inventory calls want: its name ("sim-leaf01"),
 * its whole description, or its GUID. */
static bool switch_is(const struct fswitch *s, const char *want)
{
	const char *guid = s->node->guid;

	return !strcmp(s->name, want) || !strcmp(s->desc, want) ||
	       (guid && !strcasecmp(guid, want));
}

/* The switch and port that host's HCA port e is cabled to, or NULL. */
static struct fswitch *host_port_switch(struct fabric *fb, const char *host,
					const struct hca_expect *e, long long *ret_port)
{
	char *desc = xasprintf("%s %s", host, e->name);
	struct fswitch *found = NULL;

	for (size_t i = 0; i < fb->nsw && !found; i++)
		for (const struct ibl_port *p = first(fb, &fb->sw[i]); p < end(fb, &fb->sw[i]); p++)
			if (p->peer_desc && !strcmp(p->peer_desc, desc) &&
			    p->peer_port == (int)e->port) {
				found = &fb->sw[i];
				*ret_port = p->port;
				break;
			}
	free(desc);
	return found;
}

/*
 * Every host port whose leaf the inventory plans (`fabric_leaf`) is cabled
 * to that leaf: a port on another leaf fails, named with the leaf it is on
 * and the one it should be on. A port not in the reading is left to
 * ib.fabric_links and ib.fabric_size, which say so.
 */
static void host_leaves(struct check_ctx *cc, struct fabric *fb)
{
	size_t planned = 0, bad = 0;

	for (size_t i = 0; i < cc->inv->nhosts; i++) {
		const struct host *h = &cc->inv->hosts[i];

		for (size_t k = 0; k < h->nhcas; k++) {
			const struct hca_expect *e = &h->hcas[k];
			const char *want = planned_leaf(h, e->name);
			struct fswitch *on;
			long long port = 0;
			char *subj, *exp, *found;

			if (!want || e->link_layer == LINK_ETH)
				continue;
			planned++;
			if (!(on = host_port_switch(fb, h->name, e, &port)) || switch_is(on, want))
				continue;
			subj = xasprintf("%s %s/%u", h->name, e->name, e->port);
			exp = xasprintf("on %s", want);
			found = xasprintf("on %s port %lld", on->name, port);
			check_fail(cc, subj, exp, found,
				   "the host port is cabled to another leaf than planned: move the cable "
				   "to its leaf, or correct the host's fabric_leaf");
			bad++;
			free(subj);
			free(exp);
			free(found);
		}
	}
	if (planned && !bad) {
		char *found = xasprintf("%zu host ports on their leaves", planned);

		check_pass(cc, "host ports", "each host port on the leaf its fabric_leaf names", found);
		free(found);
	}
}

void run_ib_fabric_cabling(struct check_ctx *cc)
{
	struct fabric fb;

	if (fabric_load(cc, &fb))
		return;
	if (!fb.leaves)
		check_fail(cc, NULL, "leaf switches with hosts", "no switch with a host cabled to it",
			   "iblinkinfo saw no CA on any switch: is the reading host's port up?");
	for (size_t i = 0; cc->inv->fabric.present && i < fb.nsw; i++)
		if (fb.sw[i].leaf)
			leaf_cabling(cc, &fb, &fb.sw[i]);
	host_leaves(cc, &fb);
	fabric_release(&fb);
}

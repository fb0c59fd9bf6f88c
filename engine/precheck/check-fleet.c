/*
 * The fleet checks' values, taken host by host from the facts. See
 * check-fleet.h.
 */
#include "check-fleet.h"
#include "../facts/parse-iblinkinfo.h"
#include "../base/xalloc.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct fleet *fleet_new(const struct inventory *inv, const size_t *hosts, size_t n)
{
	struct fleet *fl = xcalloc(1, sizeof(*fl));

	fl->inv = inv;
	/* a copy: the report, whose hosts these are, may go first */
	fl->hosts = xmalloc((n ? n : 1) * sizeof(*fl->hosts));
	if (n)
		memcpy(fl->hosts, hosts, n * sizeof(*hosts));
	fl->n = n;
	fl->h = xcalloc(n ? n : 1, sizeof(*fl->h));
	fl->masters = (struct strlist)STRLIST_INIT;
	return fl;
}

size_t fleet_pos(const struct fleet *fl, size_t host)
{
	size_t lo = 0, hi = fl->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fl->hosts[mid] < host)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fl->n && fl->hosts[lo] == host ? lo : fl->n;
}

const struct fleet_host *fleet_host(const struct fleet *fl, size_t host)
{
	size_t pos = fleet_pos(fl, host);

	return pos < fl->n ? &fl->h[pos] : NULL;
}

/* A node of the reading, by its description; equal ones in reading order. */
struct fabric_node {
	const char *desc;
	size_t i;
};

static int cmp_fabric_node(const void *a, const void *b)
{
	const struct fabric_node *x = a, *y = b;
	int c = strcmp(x->desc, y->desc);

	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* The first index of the nodes described desc (nn when none). */
static size_t fabric_first(const struct fabric_node *idx, size_t nn, const char *desc)
{
	size_t lo = 0, hi = nn;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(idx[mid].desc, desc) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The port (lid, port) of the first node described desc that has it. */
static const struct ibl_port *fabric_port_of(const struct ibl_fabric *fab,
					     const struct fabric_node *idx, size_t nn,
					     const char *desc, long long lid, long long port)
{
	for (size_t i = fabric_first(idx, nn, desc); i < nn && !strcmp(idx[i].desc, desc); i++) {
		const struct ibl_node *n = &fab->nodes[idx[i].i];

		for (size_t k = n->first; k < n->first + n->n; k++)
			if (fab->ports[k].lid == lid && fab->ports[k].port == port)
				return &fab->ports[k];
	}
	return NULL;
}

/* Host h's HCA e as the reading shows it: the CA "HOST HCA" (the node
 * description rdma-ndd sets), port e->port (the last such), and the switch
 * port at its far end. */
static void fabric_port_take(struct fabric_port *fp, const struct ibl_fabric *fab,
			     const struct fabric_node *idx, size_t nn,
			     const struct host *h, const struct hca_expect *e)
{
	char *desc = xasprintf("%s %s", h->name, e->name);
	const struct ibl_port *p = NULL, *far;

	for (size_t i = fabric_first(idx, nn, desc); i < nn && !strcmp(idx[i].desc, desc); i++) {
		const struct ibl_node *n = &fab->nodes[idx[i].i];

		for (size_t k = n->first; k < n->first + n->n; k++)
			if (fab->ports[k].port == (int)e->port)
				p = &fab->ports[k];
	}
	free(desc);
	if (!p)
		return;
	fp->seen = true;
	fp->width = dup_or_null(p->width);
	fp->lane_gbps = p->lane_gbps;
	fp->peer_desc = dup_or_null(p->peer_desc);
	fp->peer_lid = p->peer_lid;
	fp->peer_port = p->peer_port;
	far = fabric_port_of(fab, idx, nn, fp->peer_desc ? fp->peer_desc : "", fp->peer_lid,
			     fp->peer_port);
	if (far) {
		fp->far_seen = true;
		fp->far_width = dup_or_null(far->width);
		fp->far_lane_gbps = far->lane_gbps;
	}
}

static struct fabric_view *fabric_view_new(const struct fleet *fl, const struct ibl_fabric *fab)
{
	struct fabric_view *v = xcalloc(1, sizeof(*v));
	struct fabric_node *idx;
	size_t nn = 0;

	v->failed = json_is_false(json_object_get(fab->status, "ok"));
	v->error = dup_or_null(jstr(fab->status, "error"));
	v->ports = xcalloc(fl->n ? fl->n : 1, sizeof(*v->ports));
	if (v->failed)
		return v;
	/* an index by description: a host's ports are found without a scan
	 * of the whole fabric (ib.fabric_links on every host) */
	idx = xmalloc((fab->nnodes ? fab->nnodes : 1) * sizeof(*idx));
	for (size_t i = 0; i < fab->nnodes; i++)
		if (fab->nodes[i].desc)
			idx[nn++] = (struct fabric_node){ fab->nodes[i].desc, i };
	qsort(idx, nn, sizeof(*idx), cmp_fabric_node);
	for (size_t pos = 0; pos < fl->n; pos++) {
		const struct host *h = &fl->inv->hosts[fl->hosts[pos]];

		if (!h->nhcas)
			continue;
		v->ports[pos] = xcalloc(h->nhcas, sizeof(**v->ports));
		for (size_t k = 0; k < h->nhcas; k++)
			fabric_port_take(&v->ports[pos][k], fab, idx, nn, h, &h->hcas[k]);
	}
	free(idx);
	return v;
}

static void fabric_view_free(struct fabric_view *v, const struct fleet *fl)
{
	if (!v)
		return;
	for (size_t pos = 0; pos < fl->n; pos++) {
		const struct host *h = &fl->inv->hosts[fl->hosts[pos]];

		for (size_t k = 0; v->ports[pos] && k < h->nhcas; k++) {
			free(v->ports[pos][k].width);
			free(v->ports[pos][k].peer_desc);
			free(v->ports[pos][k].far_width);
		}
		free(v->ports[pos]);
	}
	free(v->ports);
	free(v->error);
	free(v);
}

void fleet_take(struct fleet *fl, size_t pos, const struct host_facts *hf)
{
	struct fleet_host *fh = &fl->h[pos];
	json_t *sm = fact_parsed(hf, "sminfo"), *ca;
	const char *g = jstr(sm, "sm_guid");
	size_t k;

	if (fh->taken || !hf)
		return;
	fh->taken = true;
	fh->ofed = dup_or_null(jstr(fact_parsed(hf, "ofed_info"), "version_string"));
	fact_output(hf, "ofed_info", &fh->ofed_rc);
	fh->driver = dup_or_null(jstr(fact_parsed(hf, "nvidia-smi-q"), "driver_version"));
	fact_output(hf, "nvidia-smi-q", &fh->driver_rc);
	if (json_is_true(json_object_get(sm, "ok")) && g &&
	    json_integer_value(json_object_get(sm, "state")) == 3)
		fh->sm_master = xstrdup(g);
	json_array_foreach(json_object_get(fact_parsed(hf, "ibstat"), "cas"), k, ca) {
		json_t *p;
		size_t j;

		json_array_foreach(json_object_get(ca, "ports"), j, p) {
			const char *guid = jstr(p, "port_guid");

			if (!guid)
				continue;
			fh->guids = xrealloc(fh->guids, (fh->nguids + 1) * sizeof(*fh->guids));
			fh->guids[fh->nguids++] = strtoull(guid, NULL, 16);
		}
	}
	if (hf->fabric)
		fh->fabric = fabric_view_new(fl, hf->fabric);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static const char *fleet_ofed(const struct fleet_host *fh)
{
	return fh->ofed;
}

static const char *fleet_driver(const struct fleet_host *fh)
{
	return fh->driver;
}

/* The value most of by[0..n) have (get's); of equal counts the first seen.
 * The string of the first host that has it: it outlives this. */
static const char *majority(const struct fleet_host *const *by, size_t n,
			    const char *(*get)(const struct fleet_host *))
{
	struct strlist values = STRLIST_INIT;
	size_t *count = NULL, best_n = 0, best = 0;
	const char *ret = NULL;

	for (size_t i = 0; i < n; i++) {
		const char *v = by[i] ? get(by[i]) : NULL;
		int at;

		if (!v)
			continue;
		if ((at = strlist_index(&values, v)) < 0) {
			strlist_push(&values, v);
			count = xrealloc(count, values.n * sizeof(*count));
			count[values.n - 1] = 0;
			at = (int)values.n - 1;
		}
		count[at]++;
	}
	for (size_t i = 0; i < values.n; i++)
		if (count[i] > best_n) {
			best_n = count[i];
			best = i;
		}
	for (size_t k = 0; best_n && k < n && !ret; k++)
		if (by[k] && get(by[k]) && !strcmp(get(by[k]), values.v[best]))
			ret = get(by[k]);
	strlist_clear(&values);
	free(count);
	return ret;
}

void fleet_ready(struct fleet *fl, const struct facts *f)
{
	/* per host of f, in its order: the values taken from it */
	const struct fleet_host **by = xcalloc(f && f->n ? f->n : 1, sizeof(*by));
	double *logins = xmalloc((f && f->n ? f->n : 1) * sizeof(*logins));
	size_t nlogins = 0;

	for (size_t i = 0; f && i < f->n; i++) {
		by[i] = fleet_host(fl, f->h[i].host);
		if (!f->h[i].rc)
			logins[nlogins++] = f->h[i].login_s;
	}
	qsort(logins, nlogins, sizeof(*logins), cmp_double);
	fl->login_median = nlogins ? logins[nlogins / 2] : 0;
	free(logins);

	fl->ofed_majority = majority(by, f ? f->n : 0, fleet_ofed);
	fl->driver_majority = majority(by, f ? f->n : 0, fleet_driver);

	/* Every master GUID any host's sminfo reports, and the host that owns it. */
	for (size_t i = 0; f && i < f->n; i++)
		if (by[i] && by[i]->sm_master && strlist_index(&fl->masters, by[i]->sm_master) < 0)
			strlist_push(&fl->masters, by[i]->sm_master);
	fl->master_owner = xcalloc(fl->masters.n ? fl->masters.n : 1, sizeof(*fl->master_owner));
	for (size_t m = 0; m < fl->masters.n; m++) {
		unsigned long long want = strtoull(fl->masters.v[m], NULL, 16);

		for (size_t i = 0; f && i < f->n && !fl->master_owner[m]; i++)
			for (size_t k = 0; by[i] && k < by[i]->nguids; k++)
				if (by[i]->guids[k] == want) {
					fl->master_owner[m] = &fl->inv->hosts[f->h[i].host];
					break;
				}
	}

	for (size_t i = 0; f && i < f->n && !fl->fabric; i++)
		if (by[i] && by[i]->fabric)
			fl->fabric = by[i]->fabric;
	free(by);
}

void fleet_free(struct fleet *fl)
{
	if (!fl)
		return;
	for (size_t i = 0; i < fl->n; i++) {
		free(fl->h[i].ofed);
		free(fl->h[i].driver);
		free(fl->h[i].sm_master);
		free(fl->h[i].guids);
		fabric_view_free(fl->h[i].fabric, fl);
	}
	free(fl->h);
	free(fl->hosts);
	strlist_clear(&fl->masters);
	free(fl->master_owner);
	free(fl);
}

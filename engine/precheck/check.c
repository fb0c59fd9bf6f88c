/*
 * The precheck engine: selection, severity overrides, requirements, and the
 * result list. The checks themselves are in check-defs.c; what they call to
 * record results, in check-result.c.
 *
 * A host is judged as soon as its facts are in (check_judge_host) so that
 * precheck keeps a host's parsed facts only as long as its own checks need
 * them; the fleet checks, which compare hosts, run at the end on the few
 * values taken of each host as it was judged (check-fleet.h). The report is then put in the order
 * of a run that judged everything at the end.
 */
#include "check.h"
#include "check-fleet.h"
#include "../base/xalloc.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const struct check_def *check_lookup(const char *id)
{
	for (size_t i = 0; i < check_ndefs; i++)
		if (!strcmp(check_defs[i].id, id))
			return &check_defs[i];
	return NULL;
}

enum check_status check_host_status(const struct check_report *rep, size_t host,
				    const char *id)
{
	enum check_status worst = CHECK_PASS;

	for (size_t i = 0; i < rep->n; i++) {
		const struct check_result *r = &rep->r[i];
		if (r->host != host || strcmp(r->def->id, id))
			continue;
		if (r->status == CHECK_FAIL)
			return CHECK_FAIL;
		if (r->status == CHECK_WARN || (r->status == CHECK_SKIP && worst == CHECK_PASS))
			worst = r->status;
	}
	return worst;
}

static bool matches_any(const struct strlist *globs, const char *id)
{
	for (size_t i = 0; i < globs->n; i++)
		if (!fnmatch(globs->v[i], id, 0))
			return true;
	return false;
}

static int validate_globs(const struct strlist *globs, const char *opt, struct err *err)
{
	for (size_t i = 0; i < globs->n; i++) {
		bool hit = false;
		for (size_t k = 0; k < check_ndefs && !hit; k++)
			hit = !fnmatch(globs->v[i], check_defs[k].id, 0);
		if (!hit)
			return err_set(err, ERR_USAGE,
				       "%s: no check matches '%s' (see bringup precheck --list-checks)",
				       opt, globs->v[i]);
	}
	return 0;
}

static int severity_for(const struct host *h, const struct check_def *d,
			enum severity *ret, struct err *err)
{
	json_t *map = h->vars ? json_object_get(h->vars, "precheck_severity") : NULL;
	json_t *v = json_is_object(map) ? json_object_get(map, d->id) : NULL;
	const char *s = json_string_value(v);

	*ret = d->severity;
	if (!v)
		return 0;
	if (s && (!strcmp(s, "warn") || !strcmp(s, "warning")))
		*ret = SEV_WARN;
	else if (s && (!strcmp(s, "fail") || !strcmp(s, "failure")))
		*ret = SEV_FAIL;
	else
		return err_set(err, ERR_INVENTORY,
			       "host %s: precheck_severity.%s must be warn or fail",
			       h->name, d->id);
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * One run of the checks: the report being filled, and what judging a host
 * before the others are in needs to give checks_run's results in its order.
 */
struct check_judge {
	const struct inventory *inv;
	const struct check_opts *opts;
	struct check_report *rep;
	bool *filtered;          /* per check: --checks/--skip-checks leave it out */
	bool *judged;            /* per position in rep->hosts: its own checks ran */
	/* per inventory host and check: a result failed (requirements) */
	unsigned char *failed;
	struct fleet *fleet;     /* what the fleet checks compare, host by host */
	/* per result: check index * hosts_n + position, the report's order */
	size_t *key;
	size_t key_alloc;
};

/* The first requirement that failed on this host, or NULL. */
static const char *failed_requirement(const struct check_judge *cj, size_t host,
				      const struct check_def *d)
{
	for (size_t i = 0; i < 3 && d->requires[i]; i++) {
		const struct check_def *r = check_lookup(d->requires[i]);

		if (r && cj->failed[host * check_ndefs + (size_t)(r - check_defs)])
			return d->requires[i];
	}
	return NULL;
}

/* Check k on the host at position pos of the report, with its facts hf. */
static void judge(struct check_judge *cj, size_t k, size_t pos, const struct host_facts *hf,
		  const struct facts *f)
{
	const struct check_def *d = &check_defs[k];
	struct check_report *rep = cj->rep;
	struct check_ctx cc = {
		.inv = cj->inv, .facts = d->fleet ? f : NULL,
		.host = &cj->inv->hosts[rep->hosts[pos]], .host_idx = rep->hosts[pos],
		.hf = hf, .def = d, .rep = rep, .opts = cj->opts,
		.fleet = d->fleet ? cj->fleet : NULL,
	};
	size_t before = rep->n;
	const char *req;

	/* A host that gave no facts is reported whatever --checks says:
	 * otherwise it would read as a host with nothing wrong. */
	if (cj->filtered[k] && (strcmp(d->id, "ssh.reachable") || !hf->rc ||
				hf->rc == ERR_CANCELLED))
		return;
	/* checked by check_judge_new */
	severity_for(cc.host, d, &cc.severity, NULL);
	if (d->applies && !d->applies(&cc))
		return;
	/* No facts: only ssh.reachable speaks for the host. */
	if (hf->rc && strcmp(d->id, "ssh.reachable"))
		return;
	if ((req = failed_requirement(cj, cc.host_idx, d))) {
		char *why = xasprintf("needs %s", req);
		check_skip(&cc, NULL, why);
		free(why);
	} else {
		d->run(&cc);
	}
	ALLOC_GROW(cj->key, rep->n, cj->key_alloc);
	for (size_t i = before; i < rep->n; i++) {
		cj->key[i] = k * rep->hosts_n + pos;
		if (rep->r[i].status == CHECK_FAIL)
			cj->failed[cc.host_idx * check_ndefs + k] = 1;
	}
}

/* A host's own checks (not .fleet), in table order. */
static void judge_position(struct check_judge *cj, size_t pos, const struct host_facts *hf)
{
	if (cj->judged[pos])
		return;
	cj->judged[pos] = true;
	fleet_take(cj->fleet, pos, hf);
	for (size_t k = 0; k < check_ndefs; k++)
		if (!check_defs[k].fleet)
			judge(cj, k, pos, hf, NULL);
}

int check_judge_new(const struct inventory *inv, const size_t *hosts, size_t n,
		    const struct check_opts *opts, struct check_judge **ret, struct err *err)
{
	struct check_judge *cj = xcalloc(1, sizeof(*cj));
	struct check_report *rep = xcalloc(1, sizeof(*rep));
	int rc;

	cj->inv = inv;
	cj->opts = opts;
	cj->rep = rep;
	rep->inv = inv;
	rep->hosts_n = n;
	rep->hosts = xmalloc((n ? n : 1) * sizeof(size_t));
	if (n)
		memcpy(rep->hosts, hosts, n * sizeof(size_t));
	qsort(rep->hosts, rep->hosts_n, sizeof(size_t), cmp_size);
	cj->filtered = xcalloc(check_ndefs ? check_ndefs : 1, sizeof(bool));
	cj->judged = xcalloc(n ? n : 1, sizeof(bool));
	cj->failed = xcalloc((inv->nhosts ? inv->nhosts : 1) * check_ndefs, 1);
	cj->fleet = fleet_new(inv, rep->hosts, n);
	if ((rc = validate_globs(&opts->only, "--checks", err)) ||
	    (rc = validate_globs(&opts->skip, "--skip-checks", err)))
		goto fail;
	/* Every override is read before any host is judged: a bad one is the
	 * inventory's error, found before the first login. */
	for (size_t k = 0; k < check_ndefs; k++) {
		const struct check_def *d = &check_defs[k];

		cj->filtered[k] = (opts->only.n && !matches_any(&opts->only, d->id)) ||
				  matches_any(&opts->skip, d->id);
		if (cj->filtered[k] && strcmp(d->id, "ssh.reachable"))
			continue;
		for (size_t i = 0; i < n; i++) {
			enum severity sev;

			if ((rc = severity_for(&inv->hosts[rep->hosts[i]], d, &sev, err)))
				goto fail;
		}
	}
	*ret = cj;
	return 0;
fail:
	check_judge_free(cj);
	*ret = NULL;
	return rc;
}

void check_judge_host(struct check_judge *cj, const struct host_facts *hf)
{
	const struct check_report *rep = cj->rep;
	size_t lo = 0, hi = rep->hosts_n;

	/* the first position of hf->host in the sorted hosts */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rep->hosts[mid] < hf->host)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < rep->hosts_n && rep->hosts[lo] == hf->host; lo++)
		judge_position(cj, lo, hf);
}

struct order {
	size_t key, seq;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void check_judge_finish(struct check_judge *cj, const struct facts *f,
			struct check_report **ret)
{
	struct check_report *rep = cj->rep;
	struct order *o;

	for (size_t i = 0; i < rep->hosts_n; i++)
		judge_position(cj, i, facts_for(f, rep->hosts[i]));
	fleet_ready(cj->fleet, f);
	for (size_t k = 0; k < check_ndefs; k++)
		if (check_defs[k].fleet)
			for (size_t i = 0; i < rep->hosts_n; i++)
				judge(cj, k, i, facts_for(f, rep->hosts[i]), f);
	for (size_t i = 0; i < f->n; i++)
		if (f->h[i].rc && f->h[i].rc != ERR_CANCELLED)
			rep->unreachable++;
	/* Check by check, host by host, each (check, host) in the order it
	 * spoke: the order of a run that judged every host at the end. */
	o = xmalloc((rep->n ? rep->n : 1) * sizeof(*o));
	for (size_t i = 0; i < rep->n; i++)
		o[i] = (struct order){ cj->key[i], i };
	qsort(o, rep->n, sizeof(*o), cmp_order);
	/* Result o[i].seq goes to i, cycle by cycle, in place: no second
	 * array of every result (some 5 MB at 1,000 hosts). A placed one's
	 * key becomes SIZE_MAX. */
	for (size_t i = 0; i < rep->n; i++) {
		struct check_result first;
		size_t at = i;

		if (o[i].key == SIZE_MAX)
			continue;
		first = rep->r[i];
		while (o[at].seq != i) {
			rep->r[at] = rep->r[o[at].seq];
			o[at].key = SIZE_MAX;
			at = o[at].seq;
		}
		rep->r[at] = first;
		o[at].key = SIZE_MAX;
	}
	free(o);
	/* the doubling's slack goes: the report lives until the end */
	rep->r = xrealloc(rep->r, (rep->n ? rep->n : 1) * sizeof(*rep->r));
	rep->alloc = rep->n ? rep->n : 1;
	cj->rep = NULL;
	*ret = rep;
}

void check_judge_free(struct check_judge *cj)
{
	if (!cj)
		return;
	check_report_free(cj->rep);
	free(cj->filtered);
	free(cj->judged);
	free(cj->failed);
	free(cj->key);
	fleet_free(cj->fleet);
	free(cj);
}

int checks_run(const struct inventory *inv, const struct facts *f,
	       const struct check_opts *opts, struct check_report **ret, struct err *err)
{
	struct check_judge *cj;
	size_t *hosts = xmalloc((f->n ? f->n : 1) * sizeof(*hosts));
	int rc;

	for (size_t i = 0; i < f->n; i++)
		hosts[i] = f->h[i].host;
	rc = check_judge_new(inv, hosts, f->n, opts, &cj, err);
	free(hosts);
	if (rc) {
		*ret = NULL;
		return rc;
	}
	check_judge_finish(cj, f, ret);
	check_judge_free(cj);
	return 0;
}

void check_report_map_strings(struct check_report *rep,
			      char *(*fn)(const char *s, void *arg), void *arg)
{
	struct strpool *p = &rep->strings;
	/* per slot: offered yet, and its new string */
	char **repl = xcalloc(p->cap ? p->cap : 1, sizeof(*repl));
	bool *seen = xcalloc(p->cap ? p->cap : 1, sizeof(*seen));
	bool any = false;

	for (size_t i = 0; i < rep->n; i++) {
		const char **field[] = { &rep->r[i].subject, &rep->r[i].expected,
					 &rep->r[i].found, &rep->r[i].detail };

		for (size_t k = 0; k < sizeof(field) / sizeof(field[0]); k++) {
			size_t slot;

			if (!*field[k])
				continue;
			slot = strpool_slot(p, *field[k]);
			if (!seen[slot]) {
				seen[slot] = true;
				repl[slot] = fn(*field[k], arg);
			}
			if (repl[slot])
				*field[k] = repl[slot];
		}
	}
	for (size_t i = 0; i < p->cap; i++)
		if (repl[i]) {
			explicit_bzero(p->slot[i], strlen(p->slot[i]));
			free(p->slot[i]);
			p->slot[i] = repl[i];
			any = true;
		}
	if (any)
		strpool_rehash(p);
	free(repl);
	free(seen);
}

void check_report_free(struct check_report *rep)
{
	if (!rep)
		return;
	strpool_clear(&rep->strings);
	free(rep->r);
	free(rep->hosts);
	free(rep);
}

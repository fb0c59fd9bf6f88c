/*
 * The precheck engine: selection, severity overrides, requirements, and the
 * result list. The checks themselves are in check-defs.c.
 */
#include "check.h"
#include "xalloc.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

const char *check_status_name(enum check_status st)
{
	static const char *const names[] = { "pass", "warn", "fail", "skip" };
	return names[st];
}

const struct check_def *check_lookup(const char *id)
{
	for (size_t i = 0; i < check_ndefs; i++)
		if (!strcmp(check_defs[i].id, id))
			return &check_defs[i];
	return NULL;
}

bool host_has_role(const struct host *h, enum role r)
{
	return h->roles & (1u << r);
}

void check_emit(struct check_ctx *cc, enum check_status st, const char *subject,
		const char *expected, const char *found, const char *detail)
{
	struct check_report *rep = cc->rep;
	struct check_result *res;

	ALLOC_GROW(rep->r, rep->n + 1, rep->alloc);
	res = &rep->r[rep->n++];
	res->def = cc->def;
	res->host = cc->host_idx;
	res->status = st;
	res->subject = subject ? xstrdup(subject) : NULL;
	res->expected = expected ? xstrdup(expected) : NULL;
	res->found = found ? xstrdup(found) : NULL;
	res->detail = detail ? xstrdup(detail) : NULL;
}

void check_pass(struct check_ctx *cc, const char *subject, const char *expected,
		const char *found)
{
	check_emit(cc, CHECK_PASS, subject, expected, found, NULL);
}

void check_fail(struct check_ctx *cc, const char *subject, const char *expected,
		const char *found, const char *detail)
{
	check_emit(cc, cc->severity == SEV_FAIL ? CHECK_FAIL : CHECK_WARN, subject,
		   expected, found, detail);
}

void check_skip(struct check_ctx *cc, const char *subject, const char *why)
{
	check_emit(cc, CHECK_SKIP, subject, NULL, NULL, why);
}

const char *check_var_str(const struct check_ctx *cc, const char *name)
{
	json_t *v = cc->host->vars ? json_object_get(cc->host->vars, name) : NULL;
	return json_is_string(v) ? json_string_value(v) : NULL;
}

double check_var_num(const struct check_ctx *cc, const char *name, double dflt)
{
	json_t *v = cc->host->vars ? json_object_get(cc->host->vars, name) : NULL;

	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_string(v))
		return strtod(json_string_value(v), NULL);
	return dflt;
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

/* The first requirement that failed on this host, or NULL. */
static const char *failed_requirement(const struct check_report *rep, size_t host,
				      const struct check_def *d)
{
	for (size_t i = 0; i < 3 && d->requires[i]; i++)
		if (check_host_status(rep, host, d->requires[i]) == CHECK_FAIL)
			return d->requires[i];
	return NULL;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

int checks_run(const struct inventory *inv, const struct facts *f,
	       const struct check_opts *opts, struct check_report **ret, struct err *err)
{
	struct check_report *rep = xcalloc(1, sizeof(*rep));
	int rc;

	if ((rc = validate_globs(&opts->only, "--checks", err)) ||
	    (rc = validate_globs(&opts->skip, "--skip-checks", err)))
		goto fail;
	rep->inv = inv;
	rep->hosts_n = f->n;
	rep->hosts = xmalloc((f->n ? f->n : 1) * sizeof(size_t));
	for (size_t i = 0; i < f->n; i++)
		rep->hosts[i] = f->h[i].host;
	qsort(rep->hosts, rep->hosts_n, sizeof(size_t), cmp_size);

	for (size_t k = 0; k < check_ndefs; k++) {
		const struct check_def *d = &check_defs[k];
		bool filtered = (opts->only.n && !matches_any(&opts->only, d->id)) ||
				matches_any(&opts->skip, d->id);
		/* A host that gave no facts is reported whatever --checks says:
		 * otherwise it would read as a host with nothing wrong. */
		bool reach = !strcmp(d->id, "ssh.reachable");

		if (filtered && !reach)
			continue;
		for (size_t i = 0; i < rep->hosts_n; i++) {
			struct check_ctx cc = {
				.inv = inv, .facts = f, .host = &inv->hosts[rep->hosts[i]],
				.host_idx = rep->hosts[i], .def = d, .rep = rep, .opts = opts,
			};
			const char *req;

			cc.hf = facts_for(f, cc.host_idx);
			if (filtered && (!cc.hf->rc || cc.hf->rc == ERR_CANCELLED))
				continue;
			if ((rc = severity_for(cc.host, d, &cc.severity, err)))
				goto fail;
			if (d->applies && !d->applies(&cc))
				continue;
			/* No facts: only ssh.reachable speaks for the host. */
			if (cc.hf->rc && strcmp(d->id, "ssh.reachable"))
				continue;
			if ((req = failed_requirement(rep, cc.host_idx, d))) {
				char *why = xasprintf("needs %s", req);
				check_skip(&cc, NULL, why);
				free(why);
				continue;
			}
			d->run(&cc);
		}
	}
	for (size_t i = 0; i < f->n; i++)
		if (f->h[i].rc && f->h[i].rc != ERR_CANCELLED)
			rep->unreachable++;
	*ret = rep;
	return 0;
fail:
	check_report_free(rep);
	*ret = NULL;
	return rc;
}

void check_report_free(struct check_report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->n; i++) {
		free(rep->r[i].subject);
		free(rep->r[i].expected);
		free(rep->r[i].found);
		free(rep->r[i].detail);
	}
	free(rep->r);
	free(rep->hosts);
	free(rep);
}

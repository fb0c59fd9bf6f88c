/*
 * What a check calls while it runs (check.h): recording its results into
 * the report and reading the host's expectations. Kept apart from the
 * engine that runs the checks (check.c), so that the checks (check-defs.c,
 * check-fabric.c) and the engine that holds their table do not depend on
 * each other in a circle.
 */
#include "check.h"
#include "../base/xalloc.h"

#include <stdlib.h>
#include <string.h>

const char *check_status_name(enum check_status st)
{
	static const char *const names[] = { "pass", "warn", "fail", "skip" };
	return names[st];
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
	res->subject = subject ? strpool_intern(&rep->strings, subject) : NULL;
	res->expected = expected ? strpool_intern(&rep->strings, expected) : NULL;
	res->found = found ? strpool_intern(&rep->strings, found) : NULL;
	res->detail = detail ? strpool_intern(&rep->strings, detail) : NULL;
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

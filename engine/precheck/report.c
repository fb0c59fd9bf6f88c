/*
 * Precheck report renderers; see report.h.
 */
#include "report.h"
#include "../base/jsontext.h"
#include "../base/nodeset.h"
#include "../base/xalloc.h"

#include <stdlib.h>
#include <string.h>

void report_index_init(struct report_index *ix, const struct check_report *rep)
{
	size_t nkeys = rep->hosts_n * check_ndefs, *at;

	ix->rep = rep;
	ix->first = xcalloc(nkeys + 1, sizeof(*ix->first));
	ix->idx = xmalloc((rep->n ? rep->n : 1) * sizeof(*ix->idx));
	ix->pos = xmalloc((rep->n ? rep->n : 1) * sizeof(*ix->pos));
	/* a counting sort by (position, check), stable: report order within */
	for (size_t i = 0; i < rep->n; i++) {
		size_t lo = 0, hi = rep->hosts_n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (rep->hosts[mid] < rep->r[i].host)
				lo = mid + 1;
			else
				hi = mid;
		}
		ix->pos[i] = lo;
		ix->first[lo * check_ndefs + (size_t)(rep->r[i].def - check_defs) + 1]++;
	}
	for (size_t c = 0; c < nkeys; c++)
		ix->first[c + 1] += ix->first[c];
	at = xmalloc((nkeys ? nkeys : 1) * sizeof(*at));
	memcpy(at, ix->first, nkeys * sizeof(*at));
	for (size_t i = 0; i < rep->n; i++)
		ix->idx[at[ix->pos[i] * check_ndefs + (size_t)(rep->r[i].def - check_defs)]++] = i;
	free(at);
}

void report_index_release(struct report_index *ix)
{
	free(ix->first);
	free(ix->idx);
	free(ix->pos);
}

/* Host position pos's results of check k: [*ret_b, *ret_e) of ix->idx. */
static void results_of(const struct report_index *ix, size_t pos, size_t k, size_t *ret_b,
		       size_t *ret_e)
{
	*ret_b = ix->first[pos * check_ndefs + k];
	*ret_e = ix->first[pos * check_ndefs + k + 1];
}

static bool host_unreachable(const struct report_index *ix, size_t pos)
{
	const struct check_def *d = check_lookup("ssh.reachable");
	size_t b, e;

	results_of(ix, pos, (size_t)(d - check_defs), &b, &e);
	return b < e && ix->rep->r[ix->idx[b]].status == CHECK_FAIL;
}

struct tally {
	size_t n[4];
};

/* What a host's results say: how many of each status, and the worst
 * (FAIL > WARN > PASS; skips do not count). */
static enum check_status tally_host(const struct report_index *ix, size_t pos, struct tally *t)
{
	size_t b = ix->first[pos * check_ndefs], e = ix->first[(pos + 1) * check_ndefs];

	memset(t, 0, sizeof(*t));
	for (size_t i = b; i < e; i++)
		t->n[ix->rep->r[ix->idx[i]].status]++;
	return t->n[CHECK_FAIL] ? CHECK_FAIL : t->n[CHECK_WARN] ? CHECK_WARN : CHECK_PASS;
}

static void count(const struct report_index *ix, struct report_counts *c)
{
	const struct check_report *rep = ix->rep;

	memset(c, 0, sizeof(*c));
	c->hosts = rep->hosts_n;
	c->unreachable = rep->unreachable;
	for (size_t i = 0; i < rep->n; i++) {
		switch (rep->r[i].status) {
		case CHECK_PASS: c->pass++; break;
		case CHECK_WARN: c->warn++; break;
		case CHECK_FAIL: c->fail++; break;
		case CHECK_SKIP: c->skip++; break;
		}
	}
	for (size_t i = 0; i < rep->hosts_n; i++) {
		struct tally t;
		enum check_status st = tally_host(ix, i, &t);

		if (st == CHECK_FAIL)
			c->hosts_failed++;
		else if (st == CHECK_WARN)
			c->hosts_warned++;
		else
			c->hosts_ok++;
	}
}

void report_count(const struct check_report *rep, struct report_counts *c)
{
	struct report_index ix;

	report_index_init(&ix, rep);
	count(&ix, c);
	report_index_release(&ix);
}

/* ---- text --------------------------------------------------------------- */

static const char *paint(bool colour, enum check_status st)
{
	static const char *const codes[] = { "\033[32m", "\033[33m", "\033[1;31m", "\033[2m" };
	return colour ? codes[st] : "";
}

static const char *reset(bool colour)
{
	return colour ? "\033[0m" : "";
}

static bool same_str(const char *a, const char *b)
{
	/* the report's strings are interned: equal ones are mostly the same */
	return a == b || (a && b && !strcmp(a, b));
}

/* Results that say the same thing about different hosts read as one line. */
static bool same_finding(const struct check_result *a, const struct check_result *b)
{
	return a->def == b->def && a->status == b->status && same_str(a->subject, b->subject) &&
	       same_str(a->expected, b->expected) && same_str(a->found, b->found);
}

static void text_findings(const struct check_report *rep, enum check_status which,
			  bool colour, struct strbuf *out)
{
	bool *done = xcalloc(rep->n ? rep->n : 1, sizeof(*done));
	/* per check, its results in report order: a finding is looked for
	 * among its own check's results, not the whole report's */
	size_t *first = xcalloc(check_ndefs + 1, sizeof(*first)), *at;
	size_t *by_def = xmalloc((rep->n ? rep->n : 1) * sizeof(*by_def));
	/* per inventory host: the finding that named it last (a host once a line) */
	size_t *named = xcalloc(rep->inv->nhosts ? rep->inv->nhosts : 1, sizeof(*named));
	size_t line = 0;

	for (size_t i = 0; i < rep->n; i++)
		first[(size_t)(rep->r[i].def - check_defs) + 1]++;
	for (size_t k = 0; k < check_ndefs; k++)
		first[k + 1] += first[k];
	at = xmalloc((check_ndefs ? check_ndefs : 1) * sizeof(*at));
	memcpy(at, first, check_ndefs * sizeof(*at));
	for (size_t i = 0; i < rep->n; i++)
		by_def[at[rep->r[i].def - check_defs]++] = i;
	free(at);
	for (size_t i = 0; i < rep->n; i++) {
		const struct check_result *r = &rep->r[i];
		size_t d = (size_t)(r->def - check_defs);
		struct strlist hosts = STRLIST_INIT;
		char *set;

		if (done[i] || r->status != which)
			continue;
		line++;
		for (size_t j = first[d]; j < first[d + 1]; j++) {
			size_t k = by_def[j];

			if (k < i || done[k] || !same_finding(r, &rep->r[k]))
				continue;
			done[k] = true;
			if (named[rep->r[k].host] != line) {
				named[rep->r[k].host] = line;
				strlist_push(&hosts, rep->inv->hosts[rep->r[k].host].name);
			}
		}
		set = nodeset_fold(hosts.v, hosts.n);
		strbuf_addf(out, "%s%-4s%s %-18s %s%s%s\n", paint(colour, which),
			    which == CHECK_FAIL ? "FAIL" : "WARN", reset(colour), r->def->id, set,
			    r->subject ? " " : "", r->subject ? r->subject : "");
		strbuf_addf(out, "     expected %s, found %s\n", r->expected ? r->expected : "-",
			    r->found ? r->found : "-");
		if (r->detail)
			strbuf_addf(out, "     %s\n", r->detail);
		strbuf_addf(out, "     hint: %s  [%s]\n", r->def->hint, r->def->id);
		free(set);
		strlist_clear(&hosts);
	}
	free(done);
	free(first);
	free(by_def);
	free(named);
}

void report_text(const struct check_report *rep, bool colour, struct strbuf *out)
{
	struct report_counts c;
	struct report_index ix;
	bool *done = xcalloc(rep->hosts_n ? rep->hosts_n : 1, sizeof(*done));
	/* per host position, worked out once: the fold compares every pair */
	struct tally *tl = xmalloc((rep->hosts_n ? rep->hosts_n : 1) * sizeof(*tl));
	enum check_status *stl = xmalloc((rep->hosts_n ? rep->hosts_n : 1) * sizeof(*stl));

	report_index_init(&ix, rep);
	count(&ix, &c);
	for (size_t i = 0; i < rep->hosts_n; i++)
		stl[i] = tally_host(&ix, i, &tl[i]);
	strbuf_addf(out, "%-24s %-7s %5s %5s %5s %5s\n", "HOSTS", "RESULT", "FAIL", "WARN",
		    "PASS", "SKIP");
	/* One line per host; hosts with the same result and counts fold. */
	for (size_t i = 0; i < rep->hosts_n; i++) {
		struct strlist names = STRLIST_INIT;
		struct tally ti = tl[i];
		enum check_status st = stl[i];
		char *set;

		if (done[i])
			continue;
		for (size_t k = i; k < rep->hosts_n; k++) {
			if (done[k] || memcmp(&ti, &tl[k], sizeof(ti)) || stl[k] != st)
				continue;
			done[k] = true;
			strlist_push(&names, rep->inv->hosts[rep->hosts[k]].name);
		}
		set = nodeset_fold(names.v, names.n);
		strbuf_addf(out, "%-24s %s%-7s%s %5zu %5zu %5zu %5zu\n", set, paint(colour, st),
			    host_unreachable(&ix, i) ? "DOWN" :
			    st == CHECK_FAIL ? "FAIL" : st == CHECK_WARN ? "warn" : "ok",
			    reset(colour), ti.n[CHECK_FAIL], ti.n[CHECK_WARN], ti.n[CHECK_PASS],
			    ti.n[CHECK_SKIP]);
		free(set);
		strlist_clear(&names);
	}
	free(done);
	free(tl);
	free(stl);
	report_index_release(&ix);

	if (c.fail || c.warn) {
		strbuf_addstr(out, "\n");
		text_findings(rep, CHECK_FAIL, colour, out);
		text_findings(rep, CHECK_WARN, colour, out);
	}
	strbuf_addf(out, "\nprecheck: %zu hosts: %zu ok, %zu failed, %zu with warnings, "
		    "%zu unreachable; checks: %zu passed, %zu failed, %zu warned, %zu skipped\n",
		    c.hosts, c.hosts_ok, c.hosts_failed, c.hosts_warned, c.unreachable, c.pass,
		    c.fail, c.warn, c.skip);
}

/* ---- JSON -------------------------------------------------------------- */

/* Appends one JSON value to out and drops it. */
static void dump_into(struct strbuf *out, json_t *j, size_t flags)
{
	char *s = json_dumps(j, flags | JSON_PRESERVE_ORDER);

	if (s)
		strbuf_addstr(out, s);
	free(s);
	json_decref(j);
}

static void spill(struct strbuf *out, FILE *f)
{
	if (f && out->len >= REPORT_CHUNK) {
		fwrite(out->buf, 1, out->len, f);
		strbuf_reset(out);
	}
}

/*
 * Written piece by piece: at hundreds of hosts a whole JSON tree of the
 * results, its dump and the copy of that would triple the peak memory.
 * With f, what is written goes to f every REPORT_CHUNK bytes, the rest is
 * left in out: at 1,000 hosts the report is some 20 MB.
 */
static void json_into(const struct check_report *rep, struct strbuf *out, FILE *f)
{
	struct report_counts c;
	struct report_index ix;

	report_index_init(&ix, rep);
	count(&ix, &c);
	strbuf_addstr(out, "{\n  \"summary\": ");
	dump_into(out, json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}",
				 "hosts", (json_int_t)c.hosts, "hosts_ok", (json_int_t)c.hosts_ok,
				 "hosts_failed", (json_int_t)c.hosts_failed,
				 "hosts_warned", (json_int_t)c.hosts_warned,
				 "unreachable", (json_int_t)c.unreachable, "passed", (json_int_t)c.pass,
				 "failed", (json_int_t)c.fail, "warned", (json_int_t)c.warn,
				 "skipped", (json_int_t)c.skip), JSON_COMPACT);
	strbuf_addstr(out, ",\n  \"hosts\": [");
	for (size_t i = 0; i < rep->hosts_n; i++) {
		struct tally t;
		enum check_status st = tally_host(&ix, i, &t);

		strbuf_addstr(out, i ? ",\n    " : "\n    ");
		dump_into(out, json_pack("{s:s, s:s, s:b, s:i, s:i, s:i, s:i}",
					 "host", rep->inv->hosts[rep->hosts[i]].name,
					 "status", check_status_name(st),
					 "reachable", !host_unreachable(&ix, i),
					 "fail", (json_int_t)t.n[CHECK_FAIL],
					 "warn", (json_int_t)t.n[CHECK_WARN],
					 "pass", (json_int_t)t.n[CHECK_PASS],
					 "skip", (json_int_t)t.n[CHECK_SKIP]), JSON_COMPACT);
		spill(out, f);
	}
	report_index_release(&ix);
	strbuf_addstr(out, "\n  ],\n  \"results\": [");
	for (size_t i = 0; i < rep->n; i++) {
		const struct check_result *r = &rep->r[i];

		strbuf_addstr(out, i ? ",\n    " : "\n    ");
		dump_into(out, json_pack(
			"{s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:s}",
			"host", rep->inv->hosts[r->host].name, "check", r->def->id,
			"status", check_status_name(r->status),
			"severity", r->def->severity == SEV_FAIL ? "fail" : "warn",
			"subject", json_text_or_null(r->subject), "expected", json_text_or_null(r->expected),
			"found", json_text_or_null(r->found), "detail", json_text_or_null(r->detail),
			"hint", r->def->hint), JSON_COMPACT);
		spill(out, f);
	}
	strbuf_addstr(out, "\n  ]\n}\n");
}

void report_json(const struct check_report *rep, struct strbuf *out)
{
	json_into(rep, out, NULL);
}

int report_json_to(const struct check_report *rep, FILE *f)
{
	struct strbuf out = STRBUF_INIT;

	json_into(rep, &out, f);
	fwrite(out.buf, 1, out.len, f);
	strbuf_release(&out);
	return ferror(f) ? -1 : 0;
}

/* ---- JUnit ------------------------------------------------------------- */

void report_xml_escape(struct strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': strbuf_addstr(out, "&amp;"); break;
		case '<': strbuf_addstr(out, "&lt;"); break;
		case '>': strbuf_addstr(out, "&gt;"); break;
		case '"': strbuf_addstr(out, "&quot;"); break;
		case '\n': strbuf_addstr(out, "&#10;"); break;
		default:
			/* XML 1.0 forbids most control characters outright. */
			if ((unsigned char)*s < 0x20 && *s != '\t')
				strbuf_addch(out, '?');
			else
				strbuf_addch(out, *s);
		}
	}
}

static void finding_line(struct strbuf *sb, const struct check_result *r)
{
	if (r->subject)
		strbuf_addf(sb, "%s: ", r->subject);
	strbuf_addf(sb, "expected %s, found %s", r->expected ? r->expected : "-",
		    r->found ? r->found : "-");
	if (r->detail)
		strbuf_addf(sb, " (%s)", r->detail);
}

/*
 * One testcase per host and check (several subjects of one check on one
 * host, the ports of an HCA say, make one testcase). Warnings pass, with the
 * warning in system-out: JUnit has no warning state.
 */
void report_junit(const struct check_report *rep, double elapsed_s, struct strbuf *out)
{
	struct report_counts c;
	size_t cases = 0, failures = 0;
	struct strbuf body = STRBUF_INIT;
	struct report_index ix;

	report_index_init(&ix, rep);
	count(&ix, &c);
	for (size_t hi = 0; hi < rep->hosts_n; hi++) {
		size_t host = rep->hosts[hi], tests = 0, fails = 0, skips = 0;
		struct strbuf suite = STRBUF_INIT;

		for (size_t k = 0; k < check_ndefs; k++) {
			const struct check_def *d = &check_defs[k];
			struct strbuf fail = STRBUF_INIT, warn = STRBUF_INIT, skip = STRBUF_INIT;
			bool any = false;
			size_t b, e;

			results_of(&ix, hi, k, &b, &e);
			for (size_t i = b; i < e; i++) {
				const struct check_result *r = &rep->r[ix.idx[i]];
				struct strbuf *dst;

				any = true;
				dst = r->status == CHECK_FAIL ? &fail : r->status == CHECK_WARN ? &warn :
				      r->status == CHECK_SKIP ? &skip : NULL;
				if (!dst)
					continue;
				if (dst->len)
					strbuf_addstr(dst, "; ");
				if (r->status == CHECK_SKIP)
					strbuf_addf(dst, "%s%s%s", r->subject ? r->subject : "",
						    r->subject ? ": " : "", r->detail ? r->detail : "skipped");
				else
					finding_line(dst, r);
			}
			if (any) {
				tests++;
				strbuf_addstr(&suite, "    <testcase classname=\"precheck.");
				report_xml_escape(&suite, rep->inv->hosts[host].name);
				strbuf_addf(&suite, "\" name=\"%s\" time=\"0\">", d->id);
				if (fail.len) {
					fails++;
					strbuf_addf(&suite, "\n      <failure type=\"%s\" message=\"", d->id);
					report_xml_escape(&suite, fail.buf);
					strbuf_addstr(&suite, "\">hint: ");
					report_xml_escape(&suite, d->hint);
					strbuf_addstr(&suite, "</failure>\n    ");
				} else if (skip.len && !warn.len) {
					skips++;
					strbuf_addstr(&suite, "\n      <skipped message=\"");
					report_xml_escape(&suite, skip.buf);
					strbuf_addstr(&suite, "\"/>\n    ");
				}
				if (warn.len) {
					strbuf_addstr(&suite, "\n      <system-out>warning: ");
					report_xml_escape(&suite, warn.buf);
					strbuf_addstr(&suite, "</system-out>\n    ");
				}
				strbuf_addstr(&suite, "</testcase>\n");
			}
			strbuf_release(&fail);
			strbuf_release(&warn);
			strbuf_release(&skip);
		}
		strbuf_addstr(&body, "  <testsuite name=\"");
		report_xml_escape(&body, rep->inv->hosts[host].name);
		strbuf_addf(&body, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" "
			    "hostname=\"", tests, fails, skips);
		report_xml_escape(&body, rep->inv->hosts[host].ssh.address);
		strbuf_addstr(&body, "\">\n");
		strbuf_addstr(&body, suite.buf);
		strbuf_addstr(&body, "  </testsuite>\n");
		cases += tests;
		failures += fails;
		strbuf_release(&suite);
	}
	strbuf_addf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<testsuites name=\"bringup precheck\" tests=\"%zu\" failures=\"%zu\" "
		    "errors=\"0\" time=\"%.3f\">\n", cases, failures, elapsed_s);
	strbuf_addstr(out, body.buf);
	strbuf_addstr(out, "</testsuites>\n");
	strbuf_release(&body);
	report_index_release(&ix);
}

/* ---- Prometheus -------------------------------------------------------- */

static void prom_label(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			strbuf_addch(out, '\\');
		if (*s == '\n')
			strbuf_addstr(out, "\\n");
		else
			strbuf_addch(out, *s);
	}
}

void report_prom(const struct check_report *rep, double now, struct strbuf *out)
{
	struct report_index ix;

	report_index_init(&ix, rep);
	strbuf_addstr(out,
		"# HELP bringup_precheck_check_ok 1 if the check passed (or only warned) on the host, 0 if it failed.\n"
		"# TYPE bringup_precheck_check_ok gauge\n");
	for (size_t hi = 0; hi < rep->hosts_n; hi++) {
		size_t host = rep->hosts[hi];

		for (size_t k = 0; k < check_ndefs; k++) {
			enum check_status st = CHECK_SKIP;
			size_t b, e;

			/* The worst of the check's results on the host; skips say nothing. */
			results_of(&ix, hi, k, &b, &e);
			for (size_t i = b; i < e; i++) {
				const struct check_result *r = &rep->r[ix.idx[i]];

				if (r->status == CHECK_FAIL)
					st = CHECK_FAIL;
				else if (r->status == CHECK_WARN && st != CHECK_FAIL)
					st = CHECK_WARN;
				else if (r->status == CHECK_PASS && st == CHECK_SKIP)
					st = CHECK_PASS;
			}
			if (st == CHECK_SKIP)
				continue;
			strbuf_addstr(out, "bringup_precheck_check_ok{host=\"");
			prom_label(out, rep->inv->hosts[host].name);
			strbuf_addf(out, "\",check=\"%s\",severity=\"%s\"} %d\n", check_defs[k].id,
				    check_defs[k].severity == SEV_FAIL ? "fail" : "warn",
				    st == CHECK_FAIL ? 0 : 1);
		}
	}
	strbuf_addstr(out,
		"# HELP bringup_precheck_host_reachable 1 if precheck could gather facts from the host.\n"
		"# TYPE bringup_precheck_host_reachable gauge\n");
	for (size_t hi = 0; hi < rep->hosts_n; hi++) {
		strbuf_addstr(out, "bringup_precheck_host_reachable{host=\"");
		prom_label(out, rep->inv->hosts[rep->hosts[hi]].name);
		strbuf_addf(out, "\"} %d\n", host_unreachable(&ix, hi) ? 0 : 1);
	}
	report_index_release(&ix);
	strbuf_addf(out,
		"# HELP bringup_precheck_last_run_timestamp_seconds When precheck last ran.\n"
		"# TYPE bringup_precheck_last_run_timestamp_seconds gauge\n"
		"bringup_precheck_last_run_timestamp_seconds %.3f\n", now);
}

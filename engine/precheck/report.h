/*
 * Renderers for a precheck report: text for people, JSON for scripts, JUnit
 * XML for CI servers, Prometheus text format for node_exporter's textfile
 * collector. They fill a strbuf (JSON can also go straight to a file); cmd/
 * decides where it goes.
 */
#ifndef BRINGUP_REPORT_H
#define BRINGUP_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "check.h"
#include "../base/strbuf.h"

struct report_counts {
	size_t hosts, hosts_ok, hosts_failed, hosts_warned, unreachable;
	size_t pass, warn, fail, skip;
};

void report_count(const struct check_report *rep, struct report_counts *ret);

/*
 * A report's results by host and check, so that a writer walks each host's
 * results of each check without scanning the whole report for every pair
 * (at 1,000 hosts: 90,000 results, 100 checks). Valid while rep is; the
 * hosts of rep->hosts are distinct and sorted (check_judge_new's).
 */
struct report_index {
	const struct check_report *rep;
	/* results of host position p, check k: idx[first[p * check_ndefs + k]]
	 * up to idx[first[p * check_ndefs + k + 1]], each in report order */
	size_t *first;
	size_t *idx;
	size_t *pos;             /* per result: its host's position in rep->hosts */
};
void report_index_init(struct report_index *ix, const struct check_report *rep);
void report_index_release(struct report_index *ix);

/* colour: ANSI colours for a terminal. */
void report_text(const struct check_report *rep, bool colour, struct strbuf *out);
void report_json(const struct check_report *rep, struct strbuf *out);
/* The same JSON written to f as it is made, REPORT_CHUNK bytes at a time,
 * so that a report of thousands of hosts is never whole in memory (20 MB
 * at 1,000 hosts). -1: f's error. */
#define REPORT_CHUNK 16384
int report_json_to(const struct check_report *rep, FILE *f);
/* Text for an XML attribute or element, control characters replaced. */
void report_xml_escape(struct strbuf *out, const char *s);
void report_junit(const struct check_report *rep, double elapsed_s, struct strbuf *out);
/* now: the run's Unix time, for the timestamp gauge. */
void report_prom(const struct check_report *rep, double now, struct strbuf *out);

#endif

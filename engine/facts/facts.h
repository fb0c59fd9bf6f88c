/*
 * Facts: what one round trip per host tells about it.
 *
 * templates/precheck/facts.sh runs on every host (sent on stdin, so nothing
 * shows in a process list); its framed sections are split here and fed to
 * the parsers of parse.h. The result is cached for the run: precheck reads
 * it, and later stages reuse it instead of asking again.
 */
#ifndef BRINGUP_FACTS_H
#define BRINGUP_FACTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"
#include "../base/event.h"
#include "../inventory/inventory.h"
#include "../ssh/runner.h"
#include "../base/strbuf.h"

struct ibl_fabric;

struct host_facts {
	size_t host;             /* index into inv->hosts */
	int rc;                  /* 0, or why there are no facts (ERR_CONNECT...) */
	struct err err;          /* when rc != 0 */
	bool timed_out;          /* connected, but the gathering ran out of time */
	double round_trip_s;     /* the whole gathering command */
	double login_s;          /* until its first output: the login and shell start */
	bool have_skew;
	double clock_skew_s;     /* host clock minus ours, at the same instant */
	double clock_skew_err_s; /* +/- bound: half the send-to-first-byte time */
	/*
	 * raw: { "<fact>": { "rc": N, "output": "..." } } for every section
	 * (the output is dropped once a parser has read it);
	 * parsed: { "<fact>": <parser JSON> } for sections with a parser that
	 * ran and parsed; parse_errors: { "<fact>": "message" }.
	 */
	json_t *raw, *parsed, *parse_errors;
	/* iblinkinfo, where it was read and parsed: compact (a JSON tree of a
	 * large fabric would be the most precheck holds); "iblinkinfo" in
	 * parse_errors when it did not parse */
	struct ibl_fabric *fabric;
};

struct facts {
	const struct inventory *inv;
	size_t n;
	struct host_facts *h;    /* one per selected host, in selection order */
};

/*
 * Gathers facts from the hosts idx[0..n-1] with runner r. Hosts that cannot
 * be reached are recorded (rc, err), not fatal. Returns 0 with *ret owned by
 * the caller (facts_free).
 */
int facts_gather(struct runner *r, const struct inventory *inv, const size_t *idx,
		 size_t n, struct facts **ret, struct err *err);
/* The same, closing each host's connection once its facts are in (precheck). */
int facts_gather_once(struct runner *r, const struct inventory *inv, const size_t *idx,
		      size_t n, struct facts **ret, struct err *err);
/* What more to gather (facts_gather_once_events). */
enum facts_flags {
	FACTS_DEEP = 1u << 0,  /* GPU diagnostics (dcgmi diag -r 1): up to two minutes */
};

/* A host's facts are in: rc, err and the facts themselves are final. The
 * function may drop what it has no more use for (facts_keep_only). */
typedef void (*facts_host_fn)(struct host_facts *hf, void *arg);

/*
 * facts_gather_once, telling cb (on this thread) as each host starts and
 * ends, as DEV_HOST_START / DEV_HOST_DONE events of stage `stage` (ok,
 * unreachable, or failed with the error as reason): precheck's live view.
 * on_host (may be NULL), on this thread too, is told right after a host's
 * DEV_HOST_DONE: precheck judges the host there and drops its facts, so
 * that memory follows the hosts in flight, not every host gathered.
 * flags: enum facts_flags.
 */
int facts_gather_once_events(struct runner *r, const struct inventory *inv, const size_t *idx,
			     size_t n, unsigned flags, size_t stage, const char *stage_name,
			     dep_event_fn cb, void *arg, facts_host_fn on_host, void *host_arg,
			     struct facts **ret, struct err *err);
void facts_free(struct facts *f);

/* The facts of inventory host `host`, or NULL when it was not gathered. */
const struct host_facts *facts_for(const struct facts *f, size_t host);

/* A section's raw output and exit status; NULL/-1 when absent. */
const char *fact_output(const struct host_facts *hf, const char *name, int *ret_rc);
/* A section's parsed JSON (borrowed), or NULL. */
json_t *fact_parsed(const struct host_facts *hf, const char *name);

/*
 * Splits facts.sh output into { name: { rc, output } }. Exposed for tests.
 * Returns ERR_PARSE naming the line when the framing is broken.
 */
int facts_split(const char *buf, size_t len, json_t **ret, struct err *err);

/*
 * facts.sh's compressed part (BRINGUP_GZIP=1: a marker line between
 * sections, then gzip's stream to the end) made plain again in place, so
 * that out reads as the uncompressed script's output would. Output without
 * the marker is left alone. ERR_PARSE when the part is not gzip, cut, corrupt,
 * followed by other bytes, or would grow past max bytes.
 */
#define FACTS_MAX_PLAIN ((size_t)256 << 20)
int facts_inflate(struct strbuf *out, size_t max, struct err *err);
/* Runs the parsers over raw sections (fills hf->parsed and parse_errors). */
void facts_parse(struct host_facts *hf);
/* Drops every section, raw, parsed or failed to parse, but those named in
 * keep (NULL-terminated). */
void facts_keep_only(struct host_facts *hf, const char *const *keep);

/*
 * The script sent to every host (sh -s; environment BRINGUP_FACTS with the
 * families "ib gpu scale", BRINGUP_USER the login user). Appended to out.
 */
void facts_script(struct strbuf *out);

/* The whole set as JSON, for --output and bundles; caller decrefs. */
json_t *facts_to_json(const struct facts *f);

#endif

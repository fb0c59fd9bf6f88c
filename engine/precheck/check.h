/*
 * Precheck: named checks over gathered facts.
 *
 * Every check has a stable id (runbooks link to it), a default severity, a
 * title and a remediation hint. A check may require others on the same
 * host: when one of those failed, it is skipped naming it, so that one fault
 * shows as one failure (a missing peer-memory module fails peermem.loaded;
 * gpudirect.usable then says "skipped: needs peermem.loaded").
 *
 * The table of checks is in check-defs.c, sorted by nothing but the order in
 * which they run (requirements first).
 */
#ifndef BRINGUP_CHECK_H
#define BRINGUP_CHECK_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "../base/err.h"
#include "../facts/facts.h"
#include "../inventory/inventory.h"
#include "../base/strlist.h"
#include "../base/strpool.h"

enum severity { SEV_WARN, SEV_FAIL };
enum check_status { CHECK_PASS, CHECK_WARN, CHECK_FAIL, CHECK_SKIP };

struct check_ctx;

struct check_def {
	const char *id;          /* stable: "ib.port_state" */
	enum severity severity;  /* default; the inventory may change it */
	const char *title;       /* "InfiniBand ports ACTIVE and LinkUp" */
	const char *hint;        /* what an admin does next when it fails */
	const char *requires[3]; /* ids that must not have failed on this host */
	bool (*applies)(const struct check_ctx *cc); /* NULL: every host */
	void (*run)(struct check_ctx *cc);
	/*
	 * Compares hosts (cc->fleet, cc->facts): runs once every host's facts
	 * are in, and reads of them only cc->fleet's values, the hosts' rc
	 * and times, and of its own the facts named in check_fleet_facts. A
	 * check without it sees its own host only (cc->facts and cc->fleet are
	 * NULL), as soon as that host's facts arrive, before they are dropped.
	 */
	bool fleet;
};

/* Its strings are the report's (check_report.strings): one copy of each.
 * Some 90 a host: 48 bytes, not 56 (host and status share a word). */
struct check_result {
	const struct check_def *def;
	const char *subject;     /* port, device...; NULL for the host itself */
	const char *expected, *found;  /* may be NULL */
	const char *detail;      /* reason for a skip, or more words on a failure */
	uint32_t host;           /* index into inv->hosts */
	enum check_status status;
};

struct check_opts {
	struct strlist only;     /* --checks: ids or globs ("gpu.*"); empty = all */
	struct strlist skip;     /* --skip-checks */
	/* An unfinished `bringup upgrade` moves OFED (the GPU driver) to this
	 * release (its state directory says so): the old and the new one are
	 * both expected. NULL when it does not move them. */
	const char *upgrade_ofed, *upgrade_driver;
};

struct check_report {
	const struct inventory *inv;
	struct check_result *r;
	size_t n, alloc;
	size_t hosts_n;
	size_t *hosts;           /* the hosts checked, in inventory order */
	size_t unreachable;      /* hosts without facts */
	struct strpool strings;  /* the results' strings, each once */
};

/* What checks see. */
struct check_ctx {
	const struct inventory *inv;
	const struct facts *facts;  /* fleet checks only; NULL for the others */
	const struct host *host;
	size_t host_idx;
	const struct host_facts *hf;
	const struct check_def *def;
	enum severity severity;  /* after inventory overrides */
	struct check_report *rep;
	const struct check_opts *opts;
	/* fleet checks only: the values of every host they compare
	 * (check-fleet.h); NULL for the others */
	const struct fleet *fleet;
};

/* The check table. */
extern const struct check_def check_defs[];
extern const size_t check_ndefs;
const struct check_def *check_lookup(const char *id);
/* The facts fleet checks read of their own host; NULL-terminated. The rest
 * of a host's facts can go once its own checks ran (check_judge_host):
 * what they compare across hosts is taken then (check-fleet.h). */
extern const char *const check_fleet_facts[];

/*
 * Runs every selected check on every gathered host. Severity overrides come
 * from the host's vars: precheck_severity: { "<id>": warn|fail }. Returns 0
 * with *ret owned by the caller (check_report_free), or ERR_USAGE for an
 * unknown id in opts or a bad override.
 */
int checks_run(const struct inventory *inv, const struct facts *f,
	       const struct check_opts *opts, struct check_report **ret, struct err *err);
void check_report_free(struct check_report *rep);
/*
 * Each distinct string of the results through fn once: where it returns a
 * new string (malloc'd, then the report's; NULL: unchanged), every result
 * that held the old one holds it, and the old bytes are wiped and freed
 * (redaction: they may hold a secret).
 */
void check_report_map_strings(struct check_report *rep,
			      char *(*fn)(const char *s, void *arg), void *arg);

/*
 * The same, judging each host as its facts arrive (precheck), so that a
 * host's facts need not outlive its own checks: check_judge_new before the
 * facts are gathered (the hosts are f's, in any order; ERR_USAGE and
 * ERR_INVENTORY as checks_run), check_judge_host as each host's facts are
 * in (its checks without .fleet), then check_judge_finish once every host
 * is in: the fleet checks, then the results in checks_run's order, byte for
 * byte. *ret of check_judge_new is owned by the caller (check_judge_free);
 * *ret of check_judge_finish too (check_report_free).
 */
struct check_judge;
int check_judge_new(const struct inventory *inv, const size_t *hosts, size_t n,
		    const struct check_opts *opts, struct check_judge **ret, struct err *err);
void check_judge_host(struct check_judge *cj, const struct host_facts *hf);
void check_judge_finish(struct check_judge *cj, const struct facts *f,
			struct check_report **ret);
void check_judge_free(struct check_judge *cj);

/* For checks: record one result. expected/found/detail are copied. */
void check_emit(struct check_ctx *cc, enum check_status st, const char *subject,
		const char *expected, const char *found, const char *detail);
/* Pass, or fail at the check's severity. */
void check_pass(struct check_ctx *cc, const char *subject, const char *expected,
		const char *found);
void check_fail(struct check_ctx *cc, const char *subject, const char *expected,
		const char *found, const char *detail);
void check_skip(struct check_ctx *cc, const char *subject, const char *why);

/* Helpers over host vars. */
const char *check_var_str(const struct check_ctx *cc, const char *name);
double check_var_num(const struct check_ctx *cc, const char *name, double dflt);
bool host_has_role(const struct host *h, enum role r);

const char *check_status_name(enum check_status st);
/* The worst status of a check on a host (PASS when nothing recorded). */
enum check_status check_host_status(const struct check_report *rep, size_t host,
				    const char *id);

#endif

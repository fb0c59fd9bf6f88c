/*
 * Baselines: the first passing validation of a cluster is kept in its
 * state directory (STATE/validate-baseline.json); later runs compare every
 * figure with it, and a figure that dropped by more than the margin is
 * reported (warn), even when it still clears its threshold.
 *
 * A figure's key names what was measured where, so that runs on a
 * different set of hosts compare only what they share:
 *   rdma:SERVER-CLIENT:HCA/PORT   Gb/s (the pair's order as scheduled)
 *   nccl:HOST:RUN                 GB/s bus bandwidth
 *   resnet:HOST:GPUS              images/sec
 *
 * Drops are folded before they are reported: a port below its baseline
 * against several peers (rdma pairs sharing one end's HCA/port) is one
 * line naming the port and its peers, and one host's several nccl runs or
 * resnet GPU counts are one line, so one bad port is not seven warnings.
 */
#include "validate.h"
#include "validate-int.h"
#include "../rundir/runlog.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put(json_t *figs, json_t *where, const char *key, json_t *val)
{
	if (json_is_number(val)) {
		json_object_set(figs, key, val);
		json_object_set_new(where, key, json_null());
	}
}

/* {key: value} of every figure in the report; where[key] is unused here. */
static json_t *figures(const json_t *report)
{
	json_t *figs = json_object(), *tmp = json_object(), *s, *r, *st;
	size_t i, k, m;

	json_array_foreach(json_object_get(report, "stages"), i, s) {
		const char *stage = json_string_value(json_object_get(s, "stage"));

		json_array_foreach(json_object_get(s, "results"), k, r) {
			char *key = NULL;

			if (!stage)
				continue;
			if (!strcmp(stage, "rdma")) {
				key = xasprintf("rdma:%s-%s:%s/%lld",
						json_string_value(json_object_get(r, "server")),
						json_string_value(json_object_get(r, "client")),
						json_string_value(json_object_get(r, "hca")),
						(long long)json_integer_value(json_object_get(r, "port")));
				put(figs, tmp, key, json_object_get(r, "gbps"));
			} else if (!strcmp(stage, "nccl")) {
				key = xasprintf("nccl:%s:%s", json_string_value(json_object_get(r, "host")),
						json_string_value(json_object_get(r, "run")));
				put(figs, tmp, key, json_object_get(r, "busbw_gbps"));
			} else if (!strcmp(stage, "resnet")) {
				json_array_foreach(json_object_get(r, "steps"), m, st) {
					free(key);
					key = xasprintf("resnet:%s:%lld",
							json_string_value(json_object_get(r, "host")),
							(long long)json_integer_value(json_object_get(st, "gpus")));
					put(figs, tmp, key, json_object_get(st, "images_per_sec"));
				}
			}
			free(key);
		}
	}
	json_decref(tmp);
	return figs;
}

/* The stage object a key's figure belongs to. */
static json_t *stage_of(json_t *report, const char *key)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(report, "stages"), i, s) {
		const char *name = json_string_value(json_object_get(s, "stage"));
		size_t n = name ? strlen(name) : 0;

		if (n && !strncmp(key, name, n) && key[n] == ':')
			return s;
	}
	return NULL;
}

/* "nccl:dgx01:net" -> host "dgx01", subject "net"; a pair is no host:
 * "rdma:dgx01-dgx02:mlx5_0/1" -> no host, subject "dgx01-dgx02 mlx5_0/1". */
static void split_key(const char *key, char **ret_host, char **ret_subject)
{
	const char *a = strchr(key, ':'), *b = a ? strchr(a + 1, ':') : NULL;

	if (!strncmp(key, "rdma:", 5) && b) {
		*ret_host = NULL;
		*ret_subject = xasprintf("%.*s %s", (int)(b - a - 1), a + 1, b + 1);
		return;
	}
	*ret_host = a && b ? xstrndup(a + 1, (size_t)(b - a - 1)) : xstrdup(key);
	*ret_subject = b ? xstrdup(b + 1) : NULL;
}

/* One figure below its baseline. An rdma pair has both ends (a, b) and
 * the HCA/port in subject; any other figure has its host and subject. */
struct drop {
	const char *key;
	json_t *stage;
	char *a, *b;       /* rdma: server and client; else NULL */
	char *host;        /* not rdma: the host */
	char *subject;     /* rdma: "mlx5_0/1"; else what split_key gives */
	double now, base;
	bool done;
};

static int cmp_drop(const void *x, const void *y)
{
	return strcmp(((const struct drop *)x)->key, ((const struct drop *)y)->key);
}

static void drop_init(struct drop *d, const char *key, json_t *stage, double now,
		      double base)
{
	const char *a = strchr(key, ':'), *b = a ? strchr(a + 1, ':') : NULL;
	const char *dash = a && b ? memchr(a + 1, '-', (size_t)(b - a - 1)) : NULL;

	memset(d, 0, sizeof(*d));
	d->key = key;
	d->stage = stage;
	d->now = now;
	d->base = base;
	if (!strncmp(key, "rdma:", 5) && dash) {
		d->a = xstrndup(a + 1, (size_t)(dash - a - 1));
		d->b = xstrndup(dash + 1, (size_t)(b - dash - 1));
		d->subject = xstrdup(b + 1);
		return;
	}
	split_key(key, &d->host, &d->subject);
}

static double pct_below(const struct drop *d)
{
	return (d->base - d->now) * 100 / d->base;
}

static void stage_restatus(json_t *stage)
{
	json_object_set_new(stage, "status", json_string(vstatus_name(
		validate_findings_status(json_object_get(stage, "findings")))));
}

static void warn_one(const struct drop *d)
{
	char *host = NULL, *subject = NULL;

	split_key(d->key, &host, &subject);
	validate_finding(json_object_get(d->stage, "findings"), VS_WARN, host, subject,
			 "%.1f, %.0f%% below the baseline's %.1f (%s)", d->now, pct_below(d),
			 d->base, d->key);
	stage_restatus(d->stage);
	free(host);
	free(subject);
}

/* How many open rdma drops have host at one end of port subject. */
static size_t port_drops(const struct drop *d, size_t n, const char *host, const char *subject)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		if (!d[i].done && d[i].a && !strcmp(d[i].subject, subject) &&
		    (!strcmp(d[i].a, host) || !strcmp(d[i].b, host)))
			c++;
	return c;
}

/* Folds the open drops that member(drop, host, key) picks into one warning
 * on host and subject (may be NULL); peer(drop, host) names each one's
 * peer or run. */
static void warn_folded(struct drop *d, size_t n, const char *host, const char *key,
			const char *subject,
			bool (*member)(const struct drop *, const char *, const char *),
			const char *(*peer)(const struct drop *, const char *), const char *prep,
			const char *noun)
{
	struct strbuf sb = STRBUF_INIT;
	double lo = 0, hi = 0;
	size_t count = 0;
	json_t *stage = NULL;

	for (size_t i = 0; i < n; i++) {
		double p;

		if (d[i].done || !member(&d[i], host, key))
			continue;
		p = pct_below(&d[i]);
		lo = count && lo < p ? lo : p;
		hi = count && hi > p ? hi : p;
		strbuf_addf(&sb, "%s%s %.1f of %.1f", count ? ", " : "", peer(&d[i], host),
			    d[i].now, d[i].base);
		stage = d[i].stage;
		d[i].done = true;
		count++;
	}
	if (lo > hi - 0.5)
		validate_finding(json_object_get(stage, "findings"), VS_WARN, host, subject,
				 "%.0f%% below the baseline %s %zu %s: %s", hi, prep, count, noun,
				 sb.buf);
	else
		validate_finding(json_object_get(stage, "findings"), VS_WARN, host, subject,
				 "%.0f-%.0f%% below the baseline %s %zu %s: %s", lo, hi, prep, count,
				 noun, sb.buf);
	stage_restatus(stage);
	strbuf_release(&sb);
}

static bool rdma_member(const struct drop *d, const char *host, const char *subject)
{
	return d->a && !strcmp(d->subject, subject) &&
	       (!strcmp(d->a, host) || !strcmp(d->b, host));
}

static const char *rdma_peer(const struct drop *d, const char *host)
{
	return !strcmp(d->a, host) ? d->b : d->a;
}

static bool host_member(const struct drop *d, const char *host, const char *stage)
{
	return !d->a && d->host && !strcmp(d->host, host) &&
	       !strcmp(json_string_value(json_object_get(d->stage, "stage")), stage);
}

static const char *host_subject(const struct drop *d, const char *host)
{
	(void)host;
	return d->subject ? d->subject : d->key;
}

/*
 * Reports the drops: an rdma port (one end's host and HCA/port) in two or
 * more dropped pairs first, the port with the most such pairs at a time,
 * as one warning naming its peers; then one warning per host and stage for
 * several nccl runs or resnet GPU counts; whatever is left, one each.
 */
static void report_drops(struct drop *d, size_t n)
{
	qsort(d, n, sizeof(*d), cmp_drop);
	for (;;) {
		const char *best_host = NULL, *best_port = NULL;
		size_t best = 1;

		for (size_t i = 0; i < n; i++) {
			const char *ends[2] = { d[i].a, d[i].b };

			if (d[i].done || !d[i].a)
				continue;
			for (int e = 0; e < 2; e++) {
				size_t c = port_drops(d, n, ends[e], d[i].subject);

				if (c > best) {
					best = c;
					best_host = ends[e];
					best_port = d[i].subject;
				}
			}
		}
		if (!best_host)
			break;
		warn_folded(d, n, best_host, best_port, best_port, rdma_member, rdma_peer, "against", "peers");
	}
	for (size_t i = 0; i < n; i++) {
		const char *stage = json_string_value(json_object_get(d[i].stage, "stage"));
		size_t same = 0;

		if (d[i].done || d[i].a || !d[i].host || !stage)
			continue;
		for (size_t k = i; k < n; k++)
			same += !d[k].done && host_member(&d[k], d[i].host, stage);
		if (same > 1)
			warn_folded(d, n, d[i].host, stage, NULL, host_member, host_subject, "in",
				    !strcmp(stage, "resnet") ? "GPU counts" : "runs");
	}
	for (size_t i = 0; i < n; i++)
		if (!d[i].done)
			warn_one(&d[i]);
}

int validate_baseline(json_t *report, const char *state_dir, unsigned drop_pct, struct err *err)
{
	char *path = xasprintf("%s/validate-baseline.json", state_dir);
	json_t *now = figures(report), *base, *info = json_object(), *v;
	struct drop *drops = NULL;
	size_t ndrops = 0;
	const char *key;
	json_error_t je;
	int rc = 0;

	base = json_load_file(path, 0, &je);
	if (!base && access(path, F_OK) == 0) {
		rc = err_set(err, ERR_PARSE, "%s: %s (line %d): remove it to store a new baseline",
			     path, je.text, je.line);
		goto out;
	}
	json_object_set_new(info, "path", json_string(path));
	if (!base) {
		enum vstatus st = validate_report_finish(report);

		if (st == VS_PASS || st == VS_WARN) {
			json_t *doc = json_pack("{s:O, s:O}", "cluster", json_object_get(report, "cluster"),
						"figures", now);

			if ((rc = mkdir_p(state_dir, err)) ||
			    (json_dump_file(doc, path, JSON_INDENT(1) | JSON_SORT_KEYS) &&
			     (rc = err_set(err, ERR_IO, "%s: cannot write: %s", path, strerror(errno))))) {
				json_decref(doc);
				goto out;
			}
			json_decref(doc);
			json_object_set_new(info, "stored", json_true());
		} else {
			json_object_set_new(info, "stored", json_false());
		}
		goto out;
	}
	json_object_set_new(info, "compared", json_integer((json_int_t)json_object_size(now)));
	drops = xcalloc(json_object_size(json_object_get(base, "figures")) + 1, sizeof(*drops));
	json_object_foreach(json_object_get(base, "figures"), key, v) {
		json_t *cur = json_object_get(now, key), *stage;
		double b = json_number_value(v), c;

		if (!json_is_number(cur) || b <= 0)
			continue;
		c = json_number_value(cur);
		if ((b - c) * 100 / b <= drop_pct || !(stage = stage_of(report, key)))
			continue;
		drop_init(&drops[ndrops++], key, stage, c, b);
	}
	report_drops(drops, ndrops);
out:
	for (size_t i = 0; i < ndrops; i++) {
		free(drops[i].a);
		free(drops[i].b);
		free(drops[i].host);
		free(drops[i].subject);
	}
	free(drops);
	json_object_set_new(report, "baseline", info);
	validate_report_finish(report);
	json_decref(base);
	json_decref(now);
	free(path);
	return rc;
}

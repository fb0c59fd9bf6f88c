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
 */
#include "validate.h"
#include "validate-int.h"
#include "../rundir/runlog.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <stdio.h>
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

int validate_baseline(json_t *report, const char *state_dir, unsigned drop_pct, struct err *err)
{
	char *path = xasprintf("%s/validate-baseline.json", state_dir);
	json_t *now = figures(report), *base, *info = json_object(), *v;
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
	json_object_foreach(json_object_get(base, "figures"), key, v) {
		json_t *cur = json_object_get(now, key), *stage;
		double b = json_number_value(v), c;
		char *host, *subject;

		if (!json_is_number(cur) || b <= 0)
			continue;
		c = json_number_value(cur);
		if ((b - c) * 100 / b <= drop_pct || !(stage = stage_of(report, key)))
			continue;
		split_key(key, &host, &subject);
		validate_finding(json_object_get(stage, "findings"), VS_WARN, host, subject,
				 "%.1f, %.0f%% below the baseline's %.1f (%s)", c, (b - c) * 100 / b, b,
				 key);
		json_object_set_new(stage, "status", json_string(vstatus_name(
			validate_findings_status(json_object_get(stage, "findings")))));
		free(host);
		free(subject);
	}
out:
	json_object_set_new(report, "baseline", info);
	validate_report_finish(report);
	json_decref(base);
	json_decref(now);
	free(path);
	return rc;
}

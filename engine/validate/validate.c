/*
 * What every validation stage shares: the pairing schedule, the check that
 * hosts answer before any benchmark is started on them, and the report's
 * overall status.
 */
#include "validate.h"
#include "validate-int.h"
#include "../inventory/inventory.h"
#include "../ssh/runner.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"

#include <stdlib.h>
#include <string.h>

static void push_pair(size_t **v, size_t *n, size_t *cap, size_t round, size_t a, size_t b)
{
	if (*n + 3 > *cap) {
		*cap = *cap ? *cap * 2 : 48;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = round;
	(*v)[(*n)++] = a;
	(*v)[(*n)++] = b;
}

size_t validate_schedule(size_t n, enum pairs_mode mode, size_t **ret_pairs, size_t *ret_n)
{
	size_t *v = NULL, len = 0, cap = 0, rounds = 0;

	*ret_pairs = NULL;
	*ret_n = 0;
	if (n < 2)
		return 0;
	if (n == 2) {
		push_pair(&v, &len, &cap, 0, 0, 1);
		rounds = 1;
	} else if (mode == PAIRS_RING) {
		/* Edge i joins i and i+1: alternate edges share no node; an odd
		 * ring needs a third round for its closing edge. */
		for (size_t i = 0; i < n; i++) {
			size_t r = (n % 2 && i == n - 1) ? 2 : i % 2;

			push_pair(&v, &len, &cap, r, i, (i + 1) % n);
		}
		rounds = n % 2 ? 3 : 2;
	} else {
		/* The circle method: one player fixed, the others rotate; an
		 * odd field gets a bye (index n) that sits the round out. */
		size_t m = n + n % 2, *arr = xmalloc(m * sizeof(*arr));

		for (size_t i = 0; i < m; i++)
			arr[i] = i;
		for (size_t r = 0; r + 1 < m; r++) {
			size_t last;

			for (size_t i = 0; i < m / 2; i++) {
				size_t a = arr[i], b = arr[m - 1 - i];

				if (a < n && b < n)
					push_pair(&v, &len, &cap, r, a < b ? a : b, a < b ? b : a);
			}
			last = arr[m - 1];
			memmove(arr + 2, arr + 1, (m - 2) * sizeof(*arr));
			arr[1] = last;
		}
		free(arr);
		rounds = m - 1;
	}
	/* Round by round (the ring lists its edges in ring order): a stable
	 * insertion sort on the round, the lists being short. */
	for (size_t i = 1; i < len / 3; i++) {
		size_t t[3] = { v[3 * i], v[3 * i + 1], v[3 * i + 2] }, j = i;

		for (; j > 0 && v[3 * (j - 1)] > t[0]; j--)
			memcpy(&v[3 * j], &v[3 * (j - 1)], sizeof(t));
		memcpy(&v[3 * j], t, sizeof(t));
	}
	*ret_pairs = v;
	*ret_n = len / 3;
	return rounds;
}

static int probe_task(struct task_ctx *t, void *arg)
{
	struct remote_cmd cmd = { .command = "true", .timeout_ms = 30000 };
	struct cmd_result res;
	int rc;

	(void)arg;
	cmd_result_init(&res);
	rc = task_exec(t, 0, &cmd, &res, task_err(t));
	cmd_result_release(&res);
	return rc;
}

size_t validate_reachable(struct runner *r, const size_t *hosts, size_t n,
			  size_t *ret_ok, json_t *findings, const struct inventory *inv)
{
	struct task *tasks = xcalloc(n, sizeof(*tasks));
	size_t nok = 0;

	for (size_t i = 0; i < n; i++) {
		tasks[i].hosts = &hosts[i];
		tasks[i].nhosts = 1;
		tasks[i].fn = probe_task;
	}
	runner_run(r, tasks, n, NULL, NULL);
	for (size_t i = 0; i < n; i++) {
		if (!tasks[i].rc) {
			ret_ok[nok++] = hosts[i];
		} else {
			enum vstatus st = tasks[i].rc == ERR_CONNECT ? VS_UNREACHABLE : VS_FAIL;

			validate_finding(findings, st, inv->hosts[hosts[i]].name, NULL,
					 "%s", err_msg(&tasks[i].err));
		}
		task_release(&tasks[i]);
	}
	free(tasks);
	return nok;
}

void validate_finding(json_t *findings, enum vstatus st, const char *host,
		      const char *subject, const char *fmt, ...)
{
	json_t *f = json_object();
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	json_object_set_new(f, "status", json_string(vstatus_name(st)));
	json_object_set_new(f, "host", host ? json_string(host) : json_null());
	json_object_set_new(f, "subject", subject ? json_string(subject) : json_null());
	json_object_set_new(f, "message", json_string(msg ? msg : "out of memory"));
	free(msg);
	json_array_append_new(findings, f);
}

enum vstatus vstatus_parse(const char *s)
{
	for (int i = VS_PASS; i <= VS_UNREACHABLE; i++)
		if (s && !strcmp(s, vstatus_name(i)))
			return i;
	return VS_FAIL;
}

enum vstatus validate_findings_status(const json_t *findings)
{
	enum vstatus worst = VS_PASS;
	size_t i;
	json_t *f;

	json_array_foreach(findings, i, f) {
		enum vstatus s = vstatus_parse(json_string_value(json_object_get(f, "status")));

		if (s > worst)
			worst = s;
	}
	return worst;
}

enum vstatus validate_report_finish(json_t *report)
{
	enum vstatus worst = VS_PASS;
	json_t *stages = json_object_get(report, "stages"), *s;
	size_t i;

	json_array_foreach(stages, i, s) {
		enum vstatus st = vstatus_parse(json_string_value(json_object_get(s, "status")));

		if (st > worst)
			worst = st;
	}
	json_object_set_new(report, "status", json_string(vstatus_name(worst)));
	return worst;
}

/* GPUs whose hardware slowdown is active, as "GPU 3, GPU 5"; NULL if none. */
char *validate_slow_gpus(struct task_ctx *t, size_t i)
{
	struct remote_cmd cmd = {
		.command = "nvidia-smi --query-gpu=index,clocks_throttle_reasons.hw_slowdown "
			   "--format=csv,noheader",
		.timeout_ms = 30000,
	};
	struct cmd_result res;
	struct err e = ERR_INIT;
	struct strbuf sb = STRBUF_INIT;

	cmd_result_init(&res);
	if (!task_exec(t, i, &cmd, &res, &e) && res.outcome == CMD_EXITED && res.out.buf) {
		char *save = NULL;

		for (char *l = strtok_r(res.out.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char *comma = strchr(l, ',');

			if (comma && strstr(comma, "Active") && !strstr(comma, "Not Active")) {
				*comma = '\0';
				strbuf_addf(&sb, "%sGPU %s", sb.len ? ", " : "", l);
			}
		}
	}
	err_clear(&e);
	cmd_result_release(&res);
	return sb.len ? strbuf_detach(&sb, NULL) : (strbuf_release(&sb), NULL);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double validate_median(const double *v, size_t n)
{
	double *s, med;

	if (!n)
		return 0;
	s = xmalloc(n * sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_dbl);
	med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return med;
}

double validate_outliers_low(const double *v, size_t n, double min_drop_pct, bool *low)
{
	double med = validate_median(v, n), *dev, mad;

	for (size_t i = 0; i < n; i++)
		low[i] = false;
	if (n < 3 || med <= 0)
		return med;
	dev = xmalloc(n * sizeof(*dev));
	for (size_t k = 0; k < n; k++)
		dev[k] = v[k] > med ? v[k] - med : med - v[k];
	mad = validate_median(dev, n);
	free(dev);
	/* 1.4826 MAD estimates sigma for normal data; 3.5 is the usual cut
	 * (Iglewicz and Hoaglin). A floor on the drop keeps a fleet whose
	 * figures are all alike (MAD near 0) from calling noise an outlier. */
	for (size_t i = 0; i < n; i++)
		low[i] = med - v[i] > 3.5 * 1.4826 * mad && (med - v[i]) * 100 / med > min_drop_pct;
	return med;
}

const char *vstatus_name(enum vstatus s)
{
	static const char *const names[] = { "pass", "warn", "fail", "unreachable" };

	return s <= VS_UNREACHABLE ? names[s] : "?";
}

/*
 * Training-fabric benchmarks: nccl-tests (all_reduce_perf and friends, both
 * the pre-2021 layout with an "error" column and the newer one with "root"
 * and "#wrong"), tf_cnn_benchmarks (also under horovod/mpirun) and NVIDIA
 * DeepLearningExamples' PyTorch ResNet-50 v1.5 (DLLogger lines).
 */
#include "parse.h"
#include "parse-util.h"
#include "../base/strbuf.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- nccl-tests ---- */

struct nccl_state {
	json_t *root, *rows;
	int has_root;       /* -1 until the column header tells */
	const char *check;  /* "error" (old) or "wrong" (new) */
};

/* "#  Rank  0 Group  0 Pid 6899 on host device  0 [0000:04:00] NAME";
 * before 2.10 there is no Group. */
static int nccl_device(json_t *root, const char *s)
{
	long long rank, group = -1, pid, dev;
	char host[256], bus[64];
	int used = 0;
	json_t *d;

	if (sscanf(s, "Rank %lld Group %lld Pid %lld on %255s device %lld [%63[^]]] %n",
		   &rank, &group, &pid, host, &dev, bus, &used) != 6) {
		group = -1;
		if (sscanf(s, "Rank %lld Pid %lld on %255s device %lld [%63[^]]] %n",
			   &rank, &pid, host, &dev, bus, &used) != 5)
			return -1;
	}
	d = jarray_new_object(jarray_at(root, "devices"));
	jset_int(d, "rank", rank);
	if (group >= 0)
		jset_int(d, "group", group);
	jset_int(d, "pid", pid);
	jset_str(d, "host", host);
	jset_int(d, "device", dev);
	jset_str(d, "bus_id", bus);
	jset_str(d, "name", s + used);
	return 0;
}

/* "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) ..." */
static void nccl_params(json_t *root, char *s)
{
	static const char *const keys[] = { "nThread", "nGpus", "minBytes", "maxBytes" };
	json_t *params = jobject_at(root, "params");
	char *tok[32];
	size_t n;

	jset_str(params, "line", s);
	n = split_ws(s, tok, ARRAY_SIZE(tok));
	for (size_t i = 0; i + 1 < n; i++)
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
			if (!strcmp(tok[i], keys[k]))
				jset_num(params, keys[k], tok[i + 1]);
}

static int nccl_comment(struct nccl_state *st, struct pline *ln, char *s,
			struct err *err)
{
	char word[8];
	long long oob;
	double avg;
	char *p;

	if ((p = skip_prefix(s, "Out of bounds values :"))) {
		if (sscanf(p, "%lld %7s", &oob, word) != 2)
			return pline_error(ln, err, "bad 'Out of bounds' line");
		jset_int(st->root, "out_of_bounds", oob);
		jset_bool(st->root, "out_of_bounds_ok", !strcmp(word, "OK"));
	} else if ((p = skip_prefix(s, "Avg bus bandwidth"))) {
		p = strchr(p, ':');
		if (!p || parse_dbl(trim(p + 1), &avg))
			return pline_error(ln, err, "bad 'Avg bus bandwidth' line");
		jset_real(st->root, "avg_bus_bandwidth", avg);
	} else if (skip_prefix(s, "Rank ")) {
		if (nccl_device(st->root, s))
			return pline_error(ln, err, "bad device line");
	} else if (skip_prefix(s, "nThread ")) {
		nccl_params(st->root, s);
	} else if (strstr(s, "size") && strstr(s, "redop")) {
		st->has_root = strstr(s, "root") != NULL;
		st->check = strstr(s, "#wrong") ? "wrong" : "error";
	}
	/* other comment lines (titles, units, version banners) carry nothing */
	return 0;
}

static void nccl_half(json_t *row, const char *key, char **tok, const char *check)
{
	json_t *h = jobject_at(row, key);

	jset_num(h, "time_us", tok[0]);
	jset_num(h, "algbw", tok[1]);
	jset_num(h, "busbw", tok[2]);
	jset_num(h, check, tok[3]);
}

static int nccl_row(struct nccl_state *st, char *s)
{
	static const char *const keys[] = { "size", "count", "type", "redop", "root" };
	char *tok[14];
	size_t n = split_ws(s, tok, ARRAY_SIZE(tok)), fixed;
	json_t *row;

	if (st->has_root < 0)
		st->has_root = n == 13;
	fixed = st->has_root ? 5 : 4;
	if (n != fixed + 8 || !isdigit((unsigned char)*tok[0]))
		return -1;
	row = jarray_add_row(st->rows, keys, fixed, tok, fixed);
	nccl_half(row, "out_of_place", tok + fixed, st->check);
	nccl_half(row, "in_place", tok + fixed + 4, st->check);
	return 0;
}

/*
 * NCCL_DEBUG=INFO lines ("host:pid:tid [dev] NCCL INFO ..."): what the
 * transport verdict needs goes to "nccl_info": the network NCCL chose
 * ("Using network IB|Socket"), the IB devices it found (empty after "NET/IB :
 * No device found."), and for every channel or ring line its transport
 * ("via NET/IB/0/GDRDMA", "via P2P/IPC"), counted by kind.
 */
/*
 * The host a line came from ("dgx03:1234:1234 [0] NCCL INFO ..."): under
 * mpirun every rank prints its own lines, so "nccl_info"."hosts"."dgx03"
 * holds that host's network and transports too. NULL without a prefix.
 */
static json_t *nccl_info_host(json_t *info, const char *s)
{
	size_t n;
	char host[256];

	s += strspn(s, " \t");
	n = strcspn(s, ": \t");

	if (!n || s[n] != ':' || n >= sizeof(host) || !isdigit((unsigned char)s[n + 1]))
		return NULL;
	memcpy(host, s, n);
	host[n] = '\0';
	return jobject_at(jobject_at(info, "hosts"), host);
}

static void count_transport(json_t *counts, const char *kind)
{
	json_t *c = json_object_get(counts, kind);

	json_object_set_new(counts, kind, json_integer(c ? json_integer_value(c) + 1 : 1));
}

static void nccl_info(struct nccl_state *st, const char *s)
{
	json_t *info = jobject_at(st->root, "nccl_info");
	json_t *host = nccl_info_host(info, s);
	const char *p;

	if ((p = strstr(s, " NCCL INFO Using network "))) {
		jset_str(info, "network", p + strlen(" NCCL INFO Using network "));
		/* One rank on sockets makes the host's verdict, whatever the others say. */
		if (host && (!json_object_get(host, "network") ||
			     strcmp(p + strlen(" NCCL INFO Using network "), "IB")))
			jset_str(host, "network", p + strlen(" NCCL INFO Using network "));
	} else if (strstr(s, " NCCL INFO NET/IB : No device found")) {
		jarray_at(info, "ib_devices");
	} else if ((p = strstr(s, " NCCL INFO NET/IB : Using "))) {
		json_t *devs = jarray_at(info, "ib_devices");
		char tok[128];
		int used;

		p += strlen(" NCCL INFO NET/IB : Using ");
		if (json_array_size(devs))
			return; /* one line per rank: the first tells */
		while (*p == '[' && sscanf(p, "[%*d]%127s%n", tok, &used) == 1) {
			json_array_append_new(devs, json_string(tok));
			p += used;
			while (*p == ' ')
				p++;
		}
	} else if ((p = strstr(s, " NCCL INFO NCCL version "))) {
		jset_str(st->root, "nccl_version", p + strlen(" NCCL INFO NCCL version "));
	} else if ((p = strstr(s, " via ")) && (strstr(s, " NCCL INFO Channel ") ||
						 strstr(s, " NCCL INFO Ring "))) {
		json_t *counts = jobject_at(info, "transports");
		char kind[64];
		size_t n = strcspn(p + 5, " \t");

		if (n >= sizeof(kind))
			n = sizeof(kind) - 1;
		memcpy(kind, p + 5, n);
		kind[n] = '\0';
		/* NET/IB/3/GDRDMA counts as NET/IB/GDRDMA: the device index
		 * says which HCA, not which kind of path. */
		if (!strncmp(kind, "NET/", 4)) {
			char *d = strchr(kind + 4, '/');

			if (d && d[1] >= '0' && d[1] <= '9') {
				char *e = d + 1 + strspn(d + 1, "0123456789");

				memmove(d, e, strlen(e) + 1);
			}
		}
		count_transport(counts, kind);
		if (host)
			count_transport(jobject_at(host, "transports"), kind);
	}
}

/*
 * A diagnostic of Open MPI's launcher, "[HOST:PID] plm:rsh: Warning: ...",
 * which mpirun writes into the same stream as the ranks' output: kept as
 * a warning, never read as a row.
 */
static bool mpi_diag_line(const char *s)
{
	const char *close = *s == '[' ? strchr(s, ']') : NULL;
	const char *colon = close ? memchr(s, ':', (size_t)(close - s)) : NULL;

	return colon && colon > s + 1 && colon + 1 < close &&
	       strspn(colon + 1, "0123456789") == (size_t)(close - colon - 1) && close[1] == ' ';
}

static int nccl_line(void *state, struct pline *ln, struct err *err)
{
	struct nccl_state *st = state;
	char *s = ln->text, *p;

	if (!*s)
		return 0;
	if (*s == '#')
		return nccl_comment(st, ln, trim(s + 1), err);
	if (strstr(s, " NCCL WARN ") || mpi_diag_line(s)) {
		json_array_append_new(jarray_at(st->root, "warnings"), json_string(s));
		return 0;
	}
	if (strstr(s, " NCCL INFO ")) {
		nccl_info(st, s);
		return 0;
	}
	if ((p = skip_prefix(s, "NCCL version "))) { /* with NCCL_DEBUG=VERSION */
		jset_str(st->root, "nccl_version", p);
		return 0;
	}
	if (nccl_row(st, s))
		return pline_error(ln, err, "not a result row");
	return 0;
}

int parse_nccl_tests(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct nccl_state st = { NULL, NULL, -1, "error" };
	int rc;

	st.root = json_object();
	st.rows = jarray_at(st.root, "rows");
	rc = parse_lines("nccl-tests", buf, len, nccl_line, &st, err);
	if (!rc && !json_array_size(st.rows) &&
	    !json_object_get(st.root, "avg_bus_bandwidth"))
		rc = parse_error_end("nccl-tests", err, "no result rows");
	if (!rc)
		jset_str(st.root, "format", st.has_root ? "new" : "old");
	return parse_done(rc, st.root, ret);
}

/* ---- tf_cnn_benchmarks ---- */

struct tfcnn_state {
	json_t *root, *header, *steps;
};

/* Progress lines the benchmark prints between header and steps. */
static const char *const tfcnn_progress[] = {
	"Generating", "Initializing", "Running warm up", "Done warm up", "...",
	"Step\t", "Step ",
};

static int tfcnn_step(struct tfcnn_state *st, const char *s)
{
	long long step;
	double ips, dev, jitter, loss;
	int used = 0;
	json_t *o;

	if (sscanf(s, "%lld images/sec: %lf +/- %lf (jitter = %lf) %lf%n", &step,
		   &ips, &dev, &jitter, &loss, &used) != 5 || s[used])
		return -1;
	o = jarray_new_object(st->steps);
	jset_int(o, "step", step);
	jset_real(o, "images_per_sec", ips);
	jset_real(o, "stddev", dev);
	jset_real(o, "jitter", jitter);
	jset_real(o, "loss", loss);
	return 0;
}

/* "Batch size:  128 global" then "             64 per device" */
static void tfcnn_header(struct tfcnn_state *st, char *key, char *val)
{
	char *name = slug(key);
	long long n;

	jset_str(st->header, name, val);
	if (!strcmp(name, "model"))
		jset_str(st->root, "model", val);
	if (!strcmp(name, "batch_size") && sscanf(val, "%lld", &n) == 1)
		jset_int(st->root, "batch_size", n);
	if (!strcmp(name, "devices")) {
		size_t quotes = 0;

		for (const char *p = val; *p; p++)
			quotes += *p == '\'';
		jset_int(st->root, "num_gpus", quotes / 2);
	}
	free(name);
}

static int tfcnn_line(void *state, struct pline *ln, struct err *err)
{
	struct tfcnn_state *st = state;
	char *s = ln->text, *key, *val, *p;
	long long n;
	double total;

	/* Rules: dashes, and the "====" under the header of newer releases. */
	if (!*s || all_of(s, '-') || all_of(s, '=') ||
	    has_prefix_in(s, tfcnn_progress, ARRAY_SIZE(tfcnn_progress)) ||
	    strstr(s, " tensorflow/"))
		return 0;
	if ((p = skip_prefix(s, "total images/sec:"))) {
		if (parse_dbl(trim(p), &total))
			return pline_error(ln, err, "bad total");
		jset_real(st->root, "total_images_per_sec", total);
		return 0;
	}
	if (isdigit((unsigned char)*s)) {
		int used = 0;

		if (ln->indent > 0 && sscanf(s, "%lld per device%n", &n, &used) == 1 &&
		    !s[used]) {
			jset_int(st->root, "batch_per_device", n);
			return 0;
		}
		if (tfcnn_step(st, s))
			return pline_error(ln, err, "bad step row");
		return 0;
	}
	if (ln->indent == 0 && split_kv(s, ':', &key, &val)) {
		tfcnn_header(st, key, val);
		return 0;
	}
	return pline_error(ln, err, "not a tf_cnn_benchmarks line");
}

int parse_tf_cnn_benchmarks(const char *buf, size_t len, json_t **ret,
			    struct err *err)
{
	struct tfcnn_state st;
	int rc;

	st.root = json_object();
	st.header = jobject_at(st.root, "header");
	st.steps = jarray_at(st.root, "steps");
	rc = parse_lines("tf_cnn_benchmarks", buf, len, tfcnn_line, &st, err);
	if (!rc && !json_object_get(st.root, "total_images_per_sec") &&
	    !json_array_size(st.steps))
		rc = parse_error_end("tf_cnn_benchmarks", err, "no steps and no total");
	return parse_done(rc, st.root, ret);
}

/* ---- NVIDIA DeepLearningExamples ResNet-50 v1.5 (PyTorch) ----
 *
 * main.py logs through DLLogger's stdout backend, one line a step:
 * "DLL <date> <time> - <step> <name> : <value> [unit]" with the pairs two
 * spaces apart, the step being "PARAMETER", "Epoch: E Iteration: I",
 * "Epoch: E" or "Summary:" (DLE's format_step). Besides those, the
 * training script and its libraries print a few known lines, recognised
 * and dropped; libibverbs and Python warnings go to "warnings"; any other
 * line is kept as a warning too when it is a bare number (the capture has
 * two such debug prints), else it fails the parse. A traceback, a CUDA
 * error or the shell's "command not found" is the tool's own failure. */

struct dle_state {
	json_t *root, *params, *iters;
	bool in_traceback;  /* between "Traceback ..." and its exception line */
	bool in_warning;    /* after a Python warning: its indented source line */
};

static const char *const dle_noise[] = {
	"=> creating model", "Version: {", "Config: {", "RUNNING EPOCHS FROM ",
	"! Weight decay NOT applied to BN parameters", "+ ",
};

static const char *const dle_failures[] = {
	"RuntimeError: ", "CUDA error: ", "python: can't open file", "python3: can't open file",
	"ModuleNotFoundError: ", "ImportError: ",
};

/* "read 886372 files from 698 directories" (DALI's file reader). */
static int dle_read_files(const char *s)
{
	long long a, b;
	int used = 0;

	return sscanf(s, "read %lld files from %lld directories%n", &a, &b, &used) == 2 && !s[used];
}

/* Python's "Error: ..." / "...Exception: ..." line ending a traceback. */
static int dle_exception_line(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
	const char *c = s + n;

	return n >= 5 && c[0] == ':' && (c[1] == ' ' || !c[1]) &&
	       (!strncmp(c - 5, "Error", 5) || (n >= 9 && !strncmp(c - 9, "Exception", 9)) ||
		(n >= 9 && !strncmp(c - 9, "Interrupt", 9)));
}

/* The pairs after the step: "train.loss : 7.09304  train.total_ips : 267.44 img/s". */
static int dle_pairs(json_t *o, char *s)
{
	char *tok[128];
	size_t n = split_columns(s, tok, ARRAY_SIZE(tok));

	for (size_t i = 0; i < n; i++) {
		char *key, *val, *unit;

		if (!split_kv(tok[i], ':', &key, &val) || !*key)
			return -1;
		/* DLLogger prints "value unit"; keep the number, drop the unit. */
		unit = strrchr(val, ' ');
		if (unit && (!strcmp(unit + 1, "img/s") || !strcmp(unit + 1, "s")))
			*unit = '\0';
		jset_num(o, key, trim(val));
	}
	return 0;
}

static int dle_dll(struct dle_state *st, char *s)
{
	char *step = strstr(s, " - "), *rest;
	long long epoch, iter;
	int used = 0;
	json_t *o;

	if (!step)
		return -1;
	step += 3;
	if ((rest = skip_prefix(step, "PARAMETER "))) {
		/* Values may be empty ("pretrained_weights :   fp16 : False"). */
		char *tok[256];
		size_t n = split_columns(rest, tok, ARRAY_SIZE(tok));

		for (size_t i = 0; i < n; i++) {
			char *key, *val;

			if (!split_kv(tok[i], ':', &key, &val) || !*key)
				return -1;
			jset_num(st->params, key, val);
		}
		return 0;
	}
	if ((rest = skip_prefix(step, "Summary:")))
		return dle_pairs(jobject_at(st->root, "summary"), rest);
	if (sscanf(step, "Epoch: %lld Iteration: %lld %n", &epoch, &iter, &used) == 2 && used) {
		o = jarray_new_object(st->iters);
		jset_int(o, "epoch", epoch);
		jset_int(o, "iteration", iter);
		return dle_pairs(o, step + used);
	}
	if (sscanf(step, "Epoch: %lld %n", &epoch, &used) == 1 && used) {
		o = jarray_new_object(jarray_at(st->root, "epochs"));
		jset_int(o, "epoch", epoch);
		return dle_pairs(o, step + used);
	}
	return -1;
}

static int dle_line(void *state, struct pline *ln, struct err *err)
{
	struct dle_state *st = state;
	char *s = ln->text;
	long long n;

	if (!*s)
		return 0;
	if (st->in_traceback) {
		/* "  File ...", its source line, then the exception. */
		if (ln->indent > 0)
			return 0;
		st->in_traceback = false;
		parse_failure(st->root, s);
		return 0;
	}
	if (st->in_warning && ln->indent > 0)
		return 0;
	st->in_warning = false;
	if (!strcmp(s, "Traceback (most recent call last):")) {
		st->in_traceback = true;
		return 0;
	}
	if (parse_tool_line(st->root, s, dle_failures, ARRAY_SIZE(dle_failures), "libibverbs: Warning:"))
		return 0;
	if (dle_exception_line(s)) {
		parse_failure(st->root, s);
		return 0;
	}
	if (strstr(s, "Warning: ")) {
		/* "/path/x.py:12: UserWarning: ..." then the line that warned. */
		parse_warning(st->root, s);
		st->in_warning = true;
		return 0;
	}
	if (skip_prefix(s, "DLL ")) {
		if (dle_dll(st, s))
			return pline_error(ln, err, "not a DLLogger line");
		return 0;
	}
	if (has_prefix_in(s, dle_noise, ARRAY_SIZE(dle_noise)) || dle_read_files(s))
		return 0;
	if (!parse_ll(s, 10, &n)) {
		parse_warning(st->root, s);
		return 0;
	}
	return pline_error(ln, err, "not a DeepLearningExamples ResNet-50 line");
}

/*
 * The figure: the mean train.total_ips of the second half of the
 * iterations, the first half being warm-up (cuDNN autotuning, data
 * pipelines: the capture's first iteration runs at 3% of the rate); the
 * summary's train.total_ips when there are no iterations.
 */
static void dle_figure(struct dle_state *st)
{
	size_t n = json_array_size(st->iters), from = n / 2, used = 0;
	double sum = 0;
	json_t *v;

	for (size_t i = from; i < n; i++) {
		v = json_object_get(json_array_get(st->iters, i), "train.total_ips");
		if (json_is_number(v)) {
			sum += json_number_value(v);
			used++;
		}
	}
	if (used) {
		jset_real(st->root, "images_per_sec", sum / (double)used);
		jset_int(st->root, "warmup_iterations", (long long)from);
		return;
	}
	v = json_object_get(json_object_get(st->root, "summary"), "train.total_ips");
	if (json_is_number(v))
		jset_real(st->root, "images_per_sec", json_number_value(v));
}

int parse_dle_resnet50(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct dle_state st = { 0 };
	int rc;

	st.root = json_object();
	st.params = jobject_at(st.root, "parameters");
	st.iters = jarray_at(st.root, "iterations");
	rc = parse_lines("dle-resnet50", buf, len, dle_line, &st, err);
	if (!rc && st.in_traceback)
		parse_failure(st.root, "Traceback (most recent call last): (output ends in it)");
	if (!rc) {
		dle_figure(&st);
		if (!parse_failed(st.root) && !json_object_get(st.root, "images_per_sec"))
			rc = parse_error_end("dle-resnet50", err, "no train.total_ips (no iteration, no summary)");
	}
	return parse_done(rc, st.root, ret);
}

/*
 * Training-fabric benchmarks: nccl-tests (all_reduce_perf and friends, both
 * the pre-2021 layout with an "error" column and the newer one with "root"
 * and "#wrong"), a bare NCCL_DEBUG=INFO log (nccl-debug), tf_cnn_benchmarks
 * (also under horovod/mpirun), Horovod's synthetic benchmarks and NVIDIA
 * DeepLearningExamples' PyTorch ResNet-50 v1.5 (DLLogger lines).
 */
#include "parse.h"
#include "parse-util.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"

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

/* NCCL_VERSION_CODE as "2.19.3": major*10000+minor*100+patch since 2.9,
 * major*1000+minor*100+patch before (nccl.h). */
static char *nccl_version_code(const char *s)
{
	long long c;

	if (parse_ll(s, 10, &c) || c < 1000)
		return NULL;
	if (c >= 10000)
		return xasprintf("%lld.%lld.%lld", c / 10000, c % 10000 / 100, c % 100);
	return xasprintf("%lld.%lld.%lld", c / 1000, c % 1000 / 100, c % 100);
}

/* "nccl-tests version 2.18.3 nccl-headers=23003 nccl-library=23003" (newer
 * nccl-tests, src/util.cu): its own version and NCCL's, built against and
 * run with; the library's is the run's NCCL version unless a "NCCL version"
 * line says more (its +cuda suffix). */
static void nccl_tests_version(json_t *root, char *s)
{
	char *tok[6];
	size_t n = split_ws(s, tok, ARRAY_SIZE(tok));

	if (n)
		jset_str(root, "nccl_tests_version", tok[0]);
	for (size_t i = 1; i < n; i++) {
		char *v, *key = NULL;

		if ((v = skip_prefix(tok[i], "nccl-headers=")))
			key = "nccl_headers_version";
		else if ((v = skip_prefix(tok[i], "nccl-library=")))
			key = "nccl_library_version";
		if (key && (v = nccl_version_code(v))) {
			jset_str(root, key, v);
			if (!strcmp(key, "nccl_library_version") &&
			    !json_object_get(root, "nccl_version"))
				jset_str(root, "nccl_version", v);
			free(v);
		}
	}
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
	} else if ((p = skip_prefix(s, "nccl-tests version "))) {
		nccl_tests_version(st->root, p);
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

/* "10[89000]" or "3": the rank before any bracket, as a string. */
static void nccl_rank(char *out, size_t size, const char *s, size_t n)
{
	size_t k = strcspn(s, "[");

	if (k < n)
		n = k;
	if (n >= size)
		n = size - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

/*
 * A path line: "Channel 00/0 : 7[7] -> 14[6] [receive] via NET/IB/6/GDRDMA",
 * "Ring 00 : 0[0] -> 1[1] via P2P/IPC", or NCCL 2.3's bare "3 -> 0 via
 * NET/IB/3/GDRDMA" (transport.cu's "%d -> %d via NET/%s/%d%s"). Counts its
 * kind of transport, and keeps each network path once per host: "net_peers"
 * [{"from", "to", "via", "gdr"}] (GDR per peer).
 */
static void nccl_path(json_t *info, json_t *host, const char *msg, const char *via)
{
	json_t *counts = jobject_at(info, "transports"), *peers, *pe;
	const char *arrow = strstr(msg, " -> "), *from;
	char kind[64], full[64], a[32], b[32];
	size_t n = strcspn(via, " \t"), i;

	if (n >= sizeof(kind))
		n = sizeof(kind) - 1;
	memcpy(kind, via, n);
	kind[n] = '\0';
	memcpy(full, kind, n + 1);
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
	if (!host || strncmp(full, "NET/", 4) || !arrow)
		return;
	from = strchr(msg, ':') && strchr(msg, ':') < arrow ? strchr(msg, ':') + 1 : msg;
	from += strspn(from, " ");
	nccl_rank(a, sizeof(a), from, (size_t)(arrow - from));
	nccl_rank(b, sizeof(b), arrow + 4, strcspn(arrow + 4, " "));
	peers = jarray_at(host, "net_peers");
	json_array_foreach(peers, i, pe)
		if (!strcmp(json_string_value(json_object_get(pe, "from")), a) &&
		    !strcmp(json_string_value(json_object_get(pe, "to")), b) &&
		    !strcmp(json_string_value(json_object_get(pe, "via")), full))
			return;
	json_array_append_new(peers, json_pack("{s:s, s:s, s:s, s:b}", "from", a, "to", b,
					       "via", full, "gdr", strstr(full, "/GDRDMA") != NULL));
}

/* "CUDA Dev 0, IB Ports : mlx5_3/1(SOC) mlx5_2/1(SOC) ..." (NCCL 2.x before
 * 2.4): the HCA ports a GPU may use and their PCI distance. */
static void nccl_ib_ports(json_t *info, const char *msg)
{
	const char *p = strstr(msg, "IB Ports :");
	long long dev;
	json_t *ports;
	char tok[128];
	int used;

	if (sscanf(msg, "CUDA Dev %lld,", &dev) != 1 || !p)
		return;
	snprintf(tok, sizeof(tok), "%lld", dev);
	if (json_object_get(jobject_at(info, "ib_ports"), tok))
		return;
	ports = jarray_at(jobject_at(info, "ib_ports"), tok);
	p += strlen("IB Ports :");
	while (sscanf(p, " %127s%n", tok, &used) == 1) {
		char *open = strchr(tok, '(');
		json_t *o = jarray_new_object(ports);

		if (open && tok[strlen(tok) - 1] == ')') {
			tok[strlen(tok) - 1] = '\0';
			*open++ = '\0';
		} else {
			open = NULL;
		}
		jset_str(o, "port", tok);
		jset_str(o, "path", open);
		p += used;
	}
}

/* "NET/IB : GPU Direct RDMA Disabled for GPU 2[2] / HCA 0 (distance 3 >= 2)"
 * or "... Enabled for GPU 0 / HCA 0": per host, GPU and HCA. */
static void nccl_gdr(json_t *host, const char *msg)
{
	const char *p = strstr(msg, "GPU Direct RDMA ");
	char state[16], gpu[32], hca[64];
	json_t *list, *o;
	size_t i;
	int used = 0;

	if (!host || !p || sscanf(p, "GPU Direct RDMA %15s for GPU %31s / HCA %63s%n", state,
				  gpu, hca, &used) != 3)
		return;
	nccl_rank(gpu, sizeof(gpu), gpu, strlen(gpu));
	list = jarray_at(host, "gdr");
	json_array_foreach(list, i, o)
		if (!strcmp(json_string_value(json_object_get(o, "gpu")), gpu) &&
		    !strcmp(json_string_value(json_object_get(o, "hca")), hca))
			return;
	o = json_pack("{s:s, s:s, s:b}", "gpu", gpu, "hca", hca, "enabled",
		      !strcmp(state, "Enabled"));
	p += used;
	p += strspn(p, " ");
	if (*p == '(' && p[strlen(p) - 1] == ')') {
		char *why = xstrndup(p + 1, strlen(p) - 2);

		jset_str(o, "why", why);
		free(why);
	}
	json_array_append_new(list, o);
}

/*
 * One NCCL_DEBUG line ("host:pid:tid [dev] NCCL INFO MSG"; prefix may be
 * missing) into info: the network, IB devices and ports, transports, GDR,
 * version (into root). The per-host parts go under info."hosts".HOST.
 */
static void nccl_info(json_t *root, json_t *info, const char *s)
{
	json_t *host = nccl_info_host(info, s);
	const char *p, *msg = strstr(s, "NCCL INFO ");

	msg = msg ? msg + strlen("NCCL INFO ") : s;
	if ((p = skip_prefix(msg, "Using network "))) {
		jset_str(info, "network", p);
		/* One rank on sockets makes the host's verdict, whatever the others say. */
		if (host && (!json_object_get(host, "network") || strcmp(p, "IB")))
			jset_str(host, "network", p);
	} else if (skip_prefix(msg, "NET/IB : No device found")) {
		jarray_at(info, "ib_devices");
		jset_str(info, "ib_error", msg);
	} else if (strstr(msg, "Failed to open libibverbs")) {
		/* NCCL could not load verbs at all: no IB, whatever the HCAs */
		jset_str(info, "ib_error", msg);
	} else if ((p = skip_prefix(msg, "NET/IB : Using "))) {
		json_t *devs = jarray_at(info, "ib_devices");
		char tok[128];
		int used;

		if (json_array_size(devs))
			return; /* one line per rank: the first tells */
		while (*p == '[' && sscanf(p, "[%*d]%127s%n", tok, &used) == 1) {
			json_array_append_new(devs, json_string(tok));
			p += used;
			while (*p == ' ')
				p++;
		}
	} else if ((p = skip_prefix(msg, "NCCL version "))) {
		jset_str(root, "nccl_version", p);
	} else if (strstr(msg, "IB Ports :")) {
		nccl_ib_ports(info, msg);
	} else if (strstr(msg, "GPU Direct RDMA ")) {
		nccl_gdr(host, msg);
	} else if ((p = strstr(msg, " via ")) &&
		   (skip_prefix(msg, "Channel ") || skip_prefix(msg, "Ring ") ||
		    (isdigit((unsigned char)*msg) && strstr(msg, " -> ")))) {
		nccl_path(info, host, msg, p + 5);
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
	if (strstr(s, " NCCL WARN ") || skip_prefix(s, "NCCL WARN ") || mpi_diag_line(s)) {
		json_array_append_new(jarray_at(st->root, "warnings"), json_string(s));
		return 0;
	}
	if (strstr(s, " NCCL INFO ")) {
		nccl_info(st->root, jobject_at(st->root, "nccl_info"), s);
		return 0;
	}
	/* nccl-tests' own failure ("Test NCCL failure common.cu:958 'internal
	 * error'", common.h's NCCLCHECK/CUDACHECK) */
	if (skip_prefix(s, "Test NCCL failure") || skip_prefix(s, "Test CUDA failure") ||
	    skip_prefix(s, "Test failure")) {
		parse_failure(st->root, s);
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
	/* no table: the test's own failure line names why (parse.h); else
	 * this is no nccl-tests output (a bare NCCL log: nccl-debug) */
	if (!rc && !json_array_size(st.rows) &&
	    !json_object_get(st.root, "avg_bus_bandwidth") && !parse_failed(st.root))
		rc = parse_error_end("nccl-tests", err, "no result rows");
	if (!rc && st.has_root >= 0)
		jset_str(st.root, "format", st.has_root ? "new" : "old");
	return parse_done(rc, st.root, ret);
}

/* ---- NCCL_DEBUG=INFO log (no results table needed) ---- */

/*
 * A NCCL debug log on its own: what nccl-tests keeps under "nccl_info"
 * (network, IB devices, IB ports, transports, GDR per GPU/HCA and per
 * network peer, per host), at the top level, plus "nccl_version",
 * "warnings" (NCCL WARN lines) and the run's failure: a WARN line that
 * reports an error or a failed call, or nccl-tests' "Test NCCL failure",
 * makes "ok": false with that line. Lines that are not NCCL's (the
 * program's own output around them) are counted in "other_lines", never
 * read; a text without any NCCL line is not a NCCL log.
 */
struct ncclog_state {
	json_t *root;
	size_t nccl, other;
};

static bool nccl_warn_is_failure(const char *msg)
{
	return strstr(msg, "error") || strstr(msg, "Error") || strstr(msg, "failed") ||
	       strstr(msg, "Failed") || strstr(msg, "Unable") || strstr(msg, "Duplicate GPU");
}

static int ncclog_line(void *state, struct pline *ln, struct err *err)
{
	struct ncclog_state *st = state;
	const char *s = ln->text, *p;

	(void)err;
	if (!*s)
		return 0;
	if ((p = strstr(s, "NCCL WARN ")) && (p == s || p[-1] == ' ')) {
		st->nccl++;
		parse_warning(st->root, s);
		if (strstr(p, "libibverbs"))
			jset_str(st->root, "ib_error", p + strlen("NCCL WARN "));
		if (nccl_warn_is_failure(p + strlen("NCCL WARN ")) && !strstr(p, "libibverbs"))
			parse_failure(st->root, s);
		return 0;
	}
	if ((p = strstr(s, "NCCL INFO ")) && (p == s || p[-1] == ' ')) {
		st->nccl++;
		nccl_info(st->root, st->root, s);
		return 0;
	}
	if ((p = skip_prefix(s, "NCCL version "))) {
		st->nccl++;
		jset_str(st->root, "nccl_version", p);
		return 0;
	}
	if (skip_prefix(s, "Test NCCL failure") || skip_prefix(s, "Test CUDA failure")) {
		parse_failure(st->root, s);
		return 0;
	}
	st->other++;
	return 0;
}

int parse_nccl_debug(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct ncclog_state st = { json_object(), 0, 0 };
	int rc = parse_lines("nccl-debug", buf, len, ncclog_line, &st, err);

	if (!rc && !st.nccl)
		rc = parse_not_tool("nccl-debug", err, "no NCCL INFO, NCCL WARN or "
				    "'NCCL version' line");
	if (!rc) {
		jset_int(st.root, "other_lines", (long long)st.other);
		parse_failed(st.root);
	}
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

/* ---- Horovod's synthetic benchmarks (TensorFlow, TensorFlow 2, PyTorch) ---- */

/*
 * examples/tensorflow2/tensorflow2_synthetic_benchmark.py and its PyTorch
 * and TF1 siblings log "Model: X", "Batch size: N", "Number of GPUs: N",
 * then "Iter #I: X img/sec per GPU" and at the end "Img/sec per GPU: X +-C"
 * and "Total img/sec on N GPU(s): X +-C" (log() in the scripts; C is 1.96
 * standard deviations). Under mpirun --tag-output each line carries
 * "[1,0]<stdout>:". {"model", "batch_size", "num_devices", "device",
 * "iterations": [{"iter", "images_per_sec"}], "images_per_sec_per_device",
 * "total_images_per_sec", "total_conf", "total_devices"}.
 */
struct hvdsyn_state {
	json_t *root;
	bool total;
};

/* "[1,0]<stdout>:" of Open MPI's --tag-output */
static const char *skip_mpi_tag(const char *s)
{
	const char *close = *s == '[' ? strstr(s, "]<std") : NULL;
	const char *colon = close ? strchr(close, ':') : NULL;

	return colon && colon - close == 9 ? colon + 1 : s;
}

static int hvdsyn_line(void *state, struct pline *ln, struct err *err)
{
	struct hvdsyn_state *st = state;
	const char *s = skip_mpi_tag(ln->text), *p;
	char dev[16];
	long long n;
	double x, c;
	int used = 0;

	s += strspn(s, " \t");
	/* blank, the authors' elisions ("...", ":"), progress, NCCL's banner */
	if (!*s || strspn(s, ".:") == strlen(s) || !strcmp(s, "Running warmup...") ||
	    !strcmp(s, "Running benchmark..."))
		return 0;
	if ((p = skip_prefix(s, "NCCL version "))) {
		jset_str(st->root, "nccl_version", p);
		return 0;
	}
	if ((p = skip_prefix(s, "Model: "))) {
		jset_str(st->root, "model", p);
		return 0;
	}
	if ((p = skip_prefix(s, "Batch size: ")) && !parse_ll(p, 10, &n)) {
		jset_int(st->root, "batch_size", n);
		return 0;
	}
	if (sscanf(s, "Number of %15[A-Z]s: %lld%n", dev, &n, &used) == 2 && !s[used]) {
		jset_int(st->root, "num_devices", n);
		jset_str(st->root, "device", dev);
		return 0;
	}
	if (sscanf(s, "Iter #%lld: %lf img/sec per %15s%n", &n, &x, dev, &used) == 3 && !s[used]) {
		json_t *it = jarray_new_object(jarray_at(st->root, "iterations"));

		jset_int(it, "iter", n);
		jset_real(it, "images_per_sec", x);
		return 0;
	}
	if (sscanf(s, "Img/sec per %15[A-Z]: %lf +-%lf%n", dev, &x, &c, &used) == 3) {
		jset_real(st->root, "images_per_sec_per_device", x);
		jset_real(st->root, "per_device_conf", c);
		return 0;
	}
	if (sscanf(s, "Total img/sec on %lld %15[A-Z](s): %lf +-%lf%n", &n, dev, &x, &c,
		   &used) == 4) {
		jset_int(st->root, "total_devices", n);
		jset_real(st->root, "total_images_per_sec", x);
		jset_real(st->root, "total_conf", c);
		st->total = true;
		return 0;
	}
	return pline_error(ln, err, "not a Horovod synthetic benchmark line");
}

int parse_horovod_synthetic(const char *buf, size_t len, json_t **ret, struct err *err)
{
	struct hvdsyn_state st = { json_object(), false };
	int rc = parse_lines("horovod-synthetic", buf, len, hvdsyn_line, &st, err);

	if (!rc && !st.total && !json_array_size(json_object_get(st.root, "iterations")))
		rc = parse_not_tool("horovod-synthetic", err,
				    "no 'Iter #N' and no 'Total img/sec on N GPU(s)' line");
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
	if (parse_tool_line(st->root, ln->tool, s, dle_failures, ARRAY_SIZE(dle_failures), "libibverbs: Warning:"))
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

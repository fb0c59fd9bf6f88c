/*
 * The validation report as one self-contained HTML file (no script, no
 * network: inline CSS and SVG): the findings, the RDMA pair matrix per port
 * as a heat map with failing cells crossed, NCCL bus bandwidth against
 * message size (log x axis) per node and run, ResNet-50 throughput against
 * ideal linear scaling, and the storage figures.
 */
#include "validate.h"
#include "../precheck/report.h"
#include "../base/strbuf.h"

#include <stdio.h>
#include <string.h>

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static void esc(struct strbuf *out, const char *s)
{
	report_xml_escape(out, s);
}

static const char *palette[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
				 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };

/* log2 without libm, for the size axis. */
static double lg2(double x)
{
	double r = 0;

	while (x >= 2) {
		x /= 2;
		r++;
	}
	return r + (x - 1); /* linear between powers of two */
}

#define PW 640
#define PH 300
#define PL 70
#define PB 50

/* Room for the legend to the right of the plot: one row per line, the
 * longest label at about 7 px a character, so that none is clipped. */
struct legend_size {
	int rows;
	size_t chars;
};

static void legend_fit(struct legend_size *ls, const char *label)
{
	size_t n = strlen(label);

	ls->rows++;
	ls->chars = n > ls->chars ? n : ls->chars;
}

/* Axes and labels of a plot box; x and y maxima for the tick labels. */
static void axes(struct strbuf *o, const char *title, const char *xl, const char *yl, double ymax,
		 const struct legend_size *ls)
{
	int w = PL + PW + 36 + 7 * (int)ls->chars + 10, h = 40 + 16 * ls->rows + 10;

	if (w < PW + PL + 160)
		w = PW + PL + 160;
	if (h < PH + PB + 30)
		h = PH + PB + 30;
	strbuf_addf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		    "font-family=\"sans-serif\" font-size=\"12\">\n", w, h);
	strbuf_addf(o, "<text x=\"%d\" y=\"16\" font-weight=\"bold\">", PL);
	esc(o, title);
	strbuf_addf(o, "</text>\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>"
		    "<line x1=\"%d\" y1=\"30\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
		    PL, PH + 30, PL + PW, PH + 30, PL, PL, PH + 30);
	for (int k = 0; k <= 4; k++) {
		double v = ymax * k / 4;
		int y = PH + 30 - PH * k / 4;

		strbuf_addf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f</text>"
			    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n",
			    PL - 6, y + 4, v, PL, y, PL + PW, y);
	}
	strbuf_addf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", PL + PW / 2, PH + 30 + 40);
	esc(o, xl);
	strbuf_addf(o, "</text><text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">",
		    30 + PH / 2);
	esc(o, yl);
	strbuf_addstr(o, "</text>\n");
}

/* A legend row: the palette's i-th colour, or black; dashed like its line. */
static void legend(struct strbuf *o, int i, const char *name, bool dashed, bool black)
{
	int y = 40 + 16 * i;

	strbuf_addf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>"
		    "<text x=\"%d\" y=\"%d\">", PL + PW + 10, y, PL + PW + 30, y,
		    black ? "black" : palette[i % 10], dashed ? " stroke-dasharray=\"6,3\"" : "",
		    PL + PW + 36, y + 4);
	esc(o, name);
	strbuf_addstr(o, "</text>\n");
}

static void rdma_html(const json_t *s, struct strbuf *o)
{
	const json_t *mx = json_object_get(s, "matrix"), *hosts = json_object_get(mx, "hosts");
	const json_t *grid, *results = json_object_get(s, "results");
	const char *port;
	size_t n = json_array_size(hosts);
	int cell = 26, left = 90, top = 90;

	json_object_foreach((json_t *)json_object_get(mx, "gbps"), port, grid) {
		double link = 0, pass = json_integer_value(json_object_get(json_object_get(s, "thresholds"), "pass_pct"));
		double warn = json_integer_value(json_object_get(json_object_get(s, "thresholds"), "warn_pct"));
		size_t i, j;
		const json_t *r;

		json_array_foreach(results, i, r) {
			char key[96];

			snprintf(key, sizeof(key), "%s/%lld", str(r, "hca"),
				 (long long)json_integer_value(json_object_get(r, "port")));
			if (!strcmp(key, port))
				link = (double)json_integer_value(json_object_get(r, "link_gbps"));
		}
		strbuf_addf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%zu\" "
			    "font-family=\"sans-serif\" font-size=\"11\">\n<text x=\"4\" y=\"14\" "
			    "font-weight=\"bold\">ib_write_bw ", left + n * cell + 240 > 620 ?
			    left + n * cell + 240 : (size_t)620, top + n * cell + 20);
		esc(o, port);
		strbuf_addf(o, ", Gb/s of %.0f (green >= %.0f%%, amber >= %.0f%%, red: fail, crossed)</text>\n",
			    link, warn, pass);
		for (i = 0; i < n; i++) {
			strbuf_addf(o, "<text x=\"%d\" y=\"%zu\" text-anchor=\"end\">", left - 4,
				    top + i * cell + cell / 2 + 4);
			esc(o, json_string_value(json_array_get(hosts, i)));
			strbuf_addf(o, "</text><text transform=\"translate(%zu,%d) rotate(-60)\">",
				    left + i * cell + cell / 2, top - 4);
			esc(o, json_string_value(json_array_get(hosts, i)));
			strbuf_addstr(o, "</text>\n");
			for (j = 0; j < n; j++) {
				const json_t *v = json_array_get(json_array_get(grid, i), j);
				double g = json_number_value(v), pct = link > 0 ? g * 100 / link : 0;
				const char *fill = !json_is_number(v) ? "#eee" : pct >= warn ? "#4caf50" :
						   pct >= pass ? "#ffb300" : "#e53935";
				size_t x = left + j * cell, y = top + i * cell;

				strbuf_addf(o, "<rect x=\"%zu\" y=\"%zu\" width=\"%d\" height=\"%d\" fill=\"%s\" "
					    "stroke=\"white\"><title>%.1f Gb/s</title></rect>", x, y, cell, cell,
					    fill, g);
				if (json_is_number(v) && pct < pass)
					strbuf_addf(o, "<path d=\"M%zu %zu l%d %d M%zu %zu l%d -%d\" stroke=\"black\" "
						    "stroke-width=\"2\"/>", x + 5, y + 5, cell - 10, cell - 10,
						    x + 5, y + cell - 5, cell - 10, cell - 10);
			}
			strbuf_addch(o, '\n');
		}
		strbuf_addstr(o, "</svg>\n");
	}
}

/* The per-node runs, then the mpirun variants across nodes (multi_node). */
static const char *const nccl_sets[] = { "results", "multi_node" };

/* A curve's legend: "HOST RUN" per node, "mpirun VARIANT" across nodes. */
static void nccl_name(const json_t *r, int set, char *name, size_t size)
{
	if (set)
		snprintf(name, size, "mpirun %s", str(r, "variant"));
	else
		snprintf(name, size, "%s %s", str(r, "host"), str(r, "run"));
}

static void nccl_html(const json_t *s, struct strbuf *o)
{
	const json_t *r, *pt;
	double ymax = 1, xmin = 1e30, xmax = 1;
	struct legend_size ls = { 0, 0 };
	size_t i, k;
	int line = 0;

	for (int set = 0; set < 2; set++)
	json_array_foreach(json_object_get(s, nccl_sets[set]), i, r)
		json_array_foreach(json_object_get(r, "curve"), k, pt) {
			double x = json_number_value(json_array_get(pt, 0)), y = json_number_value(json_array_get(pt, 1));

			ymax = y > ymax ? y : ymax;
			xmin = x < xmin ? x : xmin;
			xmax = x > xmax ? x : xmax;
		}
	if (xmin >= xmax)
		return;
	ymax *= 1.1;
	for (int set = 0; set < 2; set++)
	json_array_foreach(json_object_get(s, nccl_sets[set]), i, r) {
		char name[128];

		if (json_array_size(json_object_get(r, "curve"))) {
			nccl_name(r, set, name, sizeof(name));
			legend_fit(&ls, name);
		}
	}
	axes(o, "all_reduce_perf bus bandwidth per node and across nodes", "message size (bytes, log scale)",
	     "bus bandwidth (GB/s)", ymax, &ls);
	for (double x = xmin; x <= xmax; x *= 64) {
		int px = PL + (int)(PW * (lg2(x) - lg2(xmin)) / (lg2(xmax) - lg2(xmin)));
		const char *u = x >= 1 << 30 ? "G" : x >= 1 << 20 ? "M" : x >= 1024 ? "K" : "";
		double d = x >= 1 << 30 ? x / (1 << 30) : x >= 1 << 20 ? x / (1 << 20) : x >= 1024 ? x / 1024 : x;

		strbuf_addf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.0f%s</text>\n", px,
			    PH + 30 + 16, d, u);
	}
	for (int set = 0; set < 2; set++)
	json_array_foreach(json_object_get(s, nccl_sets[set]), i, r) {
		char name[128];

		if (!json_array_size(json_object_get(r, "curve")))
			continue;
		strbuf_addf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
			    palette[line % 10], !strcmp(str(r, "run"), "net") ? " stroke-dasharray=\"6,3\"" : "");
		json_array_foreach(json_object_get(r, "curve"), k, pt) {
			double x = json_number_value(json_array_get(pt, 0)), y = json_number_value(json_array_get(pt, 1));

			strbuf_addf(o, "%.1f,%.1f ", PL + PW * (lg2(x) - lg2(xmin)) / (lg2(xmax) - lg2(xmin)),
				    PH + 30 - PH * y / ymax);
		}
		strbuf_addstr(o, "\"/>\n");
		nccl_name(r, set, name, sizeof(name));
		legend(o, line++, name, !strcmp(str(r, "run"), "net"), false);
	}
	strbuf_addstr(o, "</svg>\n");
}

#define IDEAL_LABEL "ideal linear (best 1-GPU x N)"

#define CLUSTER_IDEAL "ideal linear (the fleet's median 1-GPU x N)"

/*
 * The run across nodes: the measured figure at every GPU of the cluster
 * against ideal linear scaling from the fleet's median 1-GPU figure, on a
 * GPU axis from 1 to all (the per-node plot's axis stops at 8).
 */
static void resnet_cluster_html(const json_t *m, struct strbuf *o)
{
	double one = json_number_value(json_object_get(m, "one_gpu_images_per_sec"));
	double ideal = json_number_value(json_object_get(m, "ideal_images_per_sec"));
	double got = json_number_value(json_object_get(m, "images_per_sec"));
	double gpus = (double)json_integer_value(json_object_get(m, "gpus")), ymax;
	struct legend_size ls = { 0, 0 };
	char label[96], xl[64];

	if (!json_is_number(json_object_get(m, "images_per_sec")) || one <= 0 || gpus < 2)
		return;
	ymax = 1.1 * (ideal > got ? ideal : got);
	snprintf(label, sizeof(label), "all nodes (%.0f GPUs): %.0f images/sec, %.0f%% of ideal",
		 gpus, got, json_number_value(json_object_get(m, "efficiency_pct")));
	snprintf(xl, sizeof(xl), "GPUs (1 to %.0f)", gpus);
	legend_fit(&ls, CLUSTER_IDEAL);
	legend_fit(&ls, label);
	axes(o, "ResNet-50 training throughput across nodes (mpirun)", xl, "images/sec", ymax, &ls);
	strbuf_addf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">1</text>\n"
		    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.0f</text>\n",
		    PL, PH + 30 + 16, PL + PW, PH + 30 + 16, gpus);
	strbuf_addf(o, "<polyline fill=\"none\" stroke=\"black\" stroke-dasharray=\"5,4\" "
		    "points=\"%d,%.1f %d,%.1f\"/>\n", PL, PH + 30 - PH * one / ymax, PL + PW,
		    PH + 30 - PH * ideal / ymax);
	legend(o, 0, CLUSTER_IDEAL, true, true);
	strbuf_addf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		    "points=\"%d,%.1f %d,%.1f\"/>\n<circle cx=\"%d\" cy=\"%.1f\" r=\"4\" "
		    "fill=\"%s\"/>\n", palette[1], PL, PH + 30 - PH * one / ymax, PL + PW,
		    PH + 30 - PH * got / ymax, PL + PW, PH + 30 - PH * got / ymax, palette[1]);
	legend(o, 1, label, false, false);
	strbuf_addstr(o, "</svg>\n");
}

static void resnet_html(const json_t *s, struct strbuf *o)
{
	const json_t *r, *st;
	double ymax = 1, ideal1 = 0;
	struct legend_size ls = { 0, 0 };
	size_t i, k;
	int line = 0;

	json_array_foreach(json_object_get(s, "results"), i, r)
		json_array_foreach(json_object_get(r, "steps"), k, st) {
			double y = json_number_value(json_object_get(st, "images_per_sec"));
			double id = json_number_value(json_object_get(st, "ideal"));

			ymax = y > ymax ? y : ymax;
			ymax = id > ymax ? id : ymax;
			if (k == 0 && (ideal1 == 0 || y > ideal1))
				ideal1 = y;
		}
	ymax *= 1.1;
	legend_fit(&ls, IDEAL_LABEL);
	json_array_foreach(json_object_get(s, "results"), i, r)
		legend_fit(&ls, str(r, "host") ? str(r, "host") : "");
	axes(o, "ResNet-50 training throughput per node", "GPUs (1, 2, 4, 8)", "images/sec", ymax, &ls);
	for (int g = 1; g <= 8; g *= 2)
		strbuf_addf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
			    PL + PW * (g - 1) / 7, PH + 30 + 16, g);
	strbuf_addf(o, "<polyline fill=\"none\" stroke=\"black\" stroke-dasharray=\"5,4\" points=\"%d,%.1f %d,%.1f\"/>\n",
		    PL, PH + 30 - PH * ideal1 / ymax, PL + PW, PH + 30 - PH * ideal1 * 8 / ymax);
	legend(o, line++, IDEAL_LABEL, true, true);
	json_array_foreach(json_object_get(s, "results"), i, r) {
		strbuf_addf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", palette[line % 10]);
		json_array_foreach(json_object_get(r, "steps"), k, st) {
			double g = (double)json_integer_value(json_object_get(st, "gpus"));
			double y = json_number_value(json_object_get(st, "images_per_sec"));

			strbuf_addf(o, "%.1f,%.1f ", PL + PW * (g - 1) / 7, PH + 30 - PH * y / ymax);
		}
		strbuf_addstr(o, "\"/>\n");
		legend(o, line++, str(r, "host"), false, false);
	}
	strbuf_addstr(o, "</svg>\n");
	resnet_cluster_html(json_object_get(s, "multi_node"), o);
}

static void storage_html(const json_t *s, struct strbuf *o)
{
	const json_t *r;
	size_t i;

	strbuf_addstr(o, "<table><tr><th>host</th><th>write MB/s</th><th>read MB/s</th></tr>\n");
	json_array_foreach(json_object_get(s, "results"), i, r) {
		strbuf_addstr(o, "<tr><td>");
		esc(o, str(r, "host"));
		strbuf_addf(o, "</td><td>%.0f</td><td>%.0f</td></tr>\n",
			    json_number_value(json_object_get(r, "write_mbps")),
			    json_number_value(json_object_get(r, "read_mbps")));
	}
	strbuf_addstr(o, "</table>\n<table><tr><th>nodes at once</th><th>aggregate read MB/s</th>"
		      "<th>expected at least</th></tr>\n");
	json_array_foreach(json_object_get(s, "scaling"), i, r) {
		double want = json_number_value(json_object_get(r, "expected_min_mbps"));

		strbuf_addf(o, "<tr><td>%lld</td><td>%.0f</td>",
			    (long long)json_integer_value(json_object_get(r, "nodes")),
			    json_number_value(json_object_get(r, "read_mbps")));
		/* The first step is what the others are measured against. */
		if (want > 0)
			strbuf_addf(o, "<td>%.0f</td></tr>\n", want);
		else
			strbuf_addstr(o, "<td>(the base)</td></tr>\n");
	}
	strbuf_addstr(o, "</table>\n");
}

/* dcgm: one row a node, its tests passed, skipped, and why none ran. */
static void dcgm_html(const json_t *s, struct strbuf *o)
{
	const json_t *r;
	size_t i;

	strbuf_addstr(o, "<table><tr><th>host</th><th>level</th><th>tests</th><th>passed</th>"
		      "<th>skipped</th><th>status</th><th>error</th></tr>\n");
	json_array_foreach(json_object_get(s, "results"), i, r) {
		strbuf_addstr(o, "<tr><td>");
		esc(o, str(r, "host"));
		strbuf_addf(o, "</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td>"
			    "<td class=\"%s\">%s</td><td>",
			    (long long)json_integer_value(json_object_get(r, "level")),
			    (long long)json_integer_value(json_object_get(r, "tests")),
			    (long long)json_integer_value(json_object_get(r, "passed")),
			    (long long)json_integer_value(json_object_get(r, "skipped")),
			    str(r, "status"), str(r, "status"));
		esc(o, str(r, "error"));
		strbuf_addstr(o, "</td></tr>\n");
	}
	strbuf_addstr(o, "</table>\n");
}

void validate_report_html(const json_t *report, struct strbuf *o)
{
	const json_t *s, *f;
	size_t i, k;

	strbuf_addstr(o, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>bringup validate: ");
	esc(o, str(report, "cluster"));
	strbuf_addstr(o, "</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:"
		      "collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
		      ".pass{color:#2e7d32}.warn{color:#ef6c00}.fail,.unreachable{color:#c62828;"
		      "font-weight:bold}svg{display:block;margin:1em 0}</style></head><body>\n<h1>");
	esc(o, str(report, "cluster"));
	strbuf_addf(o, ": <span class=\"%s\">%s</span></h1>\n", str(report, "status"), str(report, "status"));
	json_array_foreach(json_object_get(report, "stages"), i, s) {
		strbuf_addstr(o, "<h2>");
		esc(o, str(s, "stage"));
		strbuf_addf(o, ": <span class=\"%s\">%s</span></h2>\n", str(s, "status"), str(s, "status"));
		if (json_array_size(json_object_get(s, "findings"))) {
			strbuf_addstr(o, "<table><tr><th>status</th><th>host</th><th>port / GPU</th><th>finding</th></tr>\n");
			json_array_foreach(json_object_get(s, "findings"), k, f) {
				strbuf_addf(o, "<tr><td class=\"%s\">%s</td><td>", str(f, "status"), str(f, "status"));
				esc(o, str(f, "host"));
				strbuf_addstr(o, "</td><td>");
				esc(o, str(f, "subject"));
				strbuf_addstr(o, "</td><td>");
				esc(o, str(f, "message"));
				strbuf_addstr(o, "</td></tr>\n");
			}
			strbuf_addstr(o, "</table>\n");
		}
		if (!strcmp(str(s, "stage"), "rdma"))
			rdma_html(s, o);
		else if (!strcmp(str(s, "stage"), "nccl"))
			nccl_html(s, o);
		else if (!strcmp(str(s, "stage"), "resnet"))
			resnet_html(s, o);
		else if (!strcmp(str(s, "stage"), "storage"))
			storage_html(s, o);
		else if (!strcmp(str(s, "stage"), "dcgm"))
			dcgm_html(s, o);
		/* any other stage: its findings above are the whole of it */
	}
	strbuf_addstr(o, "</body></html>\n");
}

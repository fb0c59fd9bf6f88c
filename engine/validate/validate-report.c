/*
 * The validation report (a JSON object built by the stages) as plain text
 * and as JUnit XML: one line or one testcase per stage, then what each
 * finding names (host, port or GPU) and why.
 */
#include "validate.h"
#include "../precheck/report.h"
#include "../base/strbuf.h"

#include <string.h>

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

void validate_report_text(const json_t *report, struct strbuf *out)
{
	const json_t *stages = json_object_get(report, "stages"), *s, *f;
	size_t i, k;

	json_array_foreach(stages, i, s) {
		const json_t *fs = json_object_get(s, "findings");

		strbuf_addf(out, "%-8s %-11s", str(s, "stage"), str(s, "status"));
		if (json_object_get(s, "round_count"))
			strbuf_addf(out, " %lld nodes, %lld rounds (%s), %zu measurements",
				    (long long)json_integer_value(json_object_get(s, "nodes")),
				    (long long)json_integer_value(json_object_get(s, "round_count")),
				    str(s, "pairs_mode"), json_array_size(json_object_get(s, "results")));
		else if (json_object_get(s, "results"))
			strbuf_addf(out, " %zu runs", json_array_size(json_object_get(s, "results")));
		strbuf_addf(out, " in %.1f s\n", json_real_value(json_object_get(s, "wall_s")));
		if (json_is_number(json_object_get(s, "cluster_images_per_sec"))) {
			/* resnet: the figure of the run across nodes, against ideal */
			const json_t *m = json_object_get(s, "multi_node");

			strbuf_addf(out, "  cluster     %.0f images/sec",
				    json_number_value(json_object_get(s, "cluster_images_per_sec")));
			if (json_is_number(json_object_get(m, "efficiency_pct")))
				strbuf_addf(out, " on %lld GPUs, %.0f%% of %.0f (ideal)",
					    (long long)json_integer_value(json_object_get(m, "gpus")),
					    json_number_value(json_object_get(m, "efficiency_pct")),
					    json_number_value(json_object_get(m, "ideal_images_per_sec")));
			strbuf_addch(out, '\n');
		}
		json_array_foreach(fs, k, f) {
			strbuf_addf(out, "  %-11s %s", str(f, "status"),
				    json_is_string(json_object_get(f, "host")) ? str(f, "host") : "-");
			if (json_is_string(json_object_get(f, "subject")))
				strbuf_addf(out, " %s", str(f, "subject"));
			strbuf_addf(out, ": %s\n", str(f, "message"));
		}
	}
	strbuf_addf(out, "validate: %s\n", str(report, "status"));
}

/* One testsuite per stage, one testcase per finding's host (a stage with
 * no finding is one passing testcase). Warnings pass with system-out. */
void validate_report_junit(const json_t *report, struct strbuf *out)
{
	const json_t *stages = json_object_get(report, "stages"), *s, *f;
	size_t i, k, failures = 0, tests = 0;
	struct strbuf body = STRBUF_INIT;

	json_array_foreach(stages, i, s) {
		const json_t *fs = json_object_get(s, "findings");
		size_t sf = 0, st = json_array_size(fs) ? json_array_size(fs) : 1;

		strbuf_addstr(&body, "  <testsuite name=\"validate.");
		report_xml_escape(&body, str(s, "stage"));
		json_array_foreach(fs, k, f)
			sf += strcmp(str(f, "status"), "warn") != 0;
		strbuf_addf(&body, "\" tests=\"%zu\" failures=\"%zu\" time=\"%.2f\">\n", st, sf,
			    json_real_value(json_object_get(s, "wall_s")));
		if (!json_array_size(fs)) {
			strbuf_addstr(&body, "    <testcase classname=\"validate.");
			report_xml_escape(&body, str(s, "stage"));
			strbuf_addstr(&body, "\" name=\"cluster\"/>\n");
		}
		json_array_foreach(fs, k, f) {
			bool warn = !strcmp(str(f, "status"), "warn");

			strbuf_addstr(&body, "    <testcase classname=\"validate.");
			report_xml_escape(&body, str(s, "stage"));
			strbuf_addstr(&body, "\" name=\"");
			report_xml_escape(&body, json_is_string(json_object_get(f, "host")) ? str(f, "host") : "cluster");
			if (json_is_string(json_object_get(f, "subject"))) {
				strbuf_addch(&body, ' ');
				report_xml_escape(&body, str(f, "subject"));
			}
			strbuf_addstr(&body, "\">\n");
			if (warn) {
				strbuf_addstr(&body, "      <system-out>warn: ");
				report_xml_escape(&body, str(f, "message"));
				strbuf_addstr(&body, "</system-out>\n");
			} else {
				strbuf_addstr(&body, "      <failure type=\"");
				report_xml_escape(&body, str(f, "status"));
				strbuf_addstr(&body, "\" message=\"");
				report_xml_escape(&body, str(f, "message"));
				strbuf_addstr(&body, "\"/>\n");
			}
			strbuf_addstr(&body, "    </testcase>\n");
		}
		strbuf_addstr(&body, "  </testsuite>\n");
		tests += st;
		failures += sf;
	}
	strbuf_addf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<testsuites name=\"bringup validate\" tests=\"%zu\" failures=\"%zu\">\n",
		    tests, failures);
	strbuf_add(out, body.buf ? body.buf : "", body.len);
	strbuf_addstr(out, "</testsuites>\n");
	strbuf_release(&body);
}

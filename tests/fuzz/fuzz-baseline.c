/*
 * libFuzzer target: engine/validate/validate-baseline.c, the comparison of
 * a validate report with STATE_DIR/validate-baseline.json (a file from an
 * earlier run, perhaps edited), then the text and JUnit renderings of the
 * report it annotated. Input: the report (JSON), a line "--", the stored
 * baseline (seeds/baseline). Traps on a broken contract: a failure without
 * a message. See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/base/strbuf.h"
#include "../../engine/validate/validate.h"
#include "fuzz-tmpdir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *sep = memmem(p, size, "\n--\n", 4);
	struct strbuf text = STRBUF_INIT;
	struct err e = ERR_INIT;
	json_t *report;

	if (!sep)
		return 0;
	report = json_loadb(p, (size_t)(sep - p), 0, NULL);
	if (!json_is_object(report)) {
		json_decref(report);
		return 0;
	}
	fuzz_file("validate-baseline.json", sep + 4, size - (size_t)(sep + 4 - p));
	if (validate_baseline(report, fuzz_dir(), 10, &e) && !err_msg(&e)[0])
		__builtin_trap();
	validate_report_text(report, &text);
	validate_report_junit(report, &text);
	strbuf_release(&text);
	json_decref(report);
	err_clear(&e);
	return 0;
}

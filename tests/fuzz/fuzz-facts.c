/*
 * libFuzzer target: engine/facts/facts.c, what precheck does with a remote
 * host's output of templates/precheck/facts.sh: facts_inflate makes its
 * compressed part (BRINGUP_GZIP=1) plain, facts_split cuts the framed
 * sections, facts_parse hands each to its parser (the per-port counters
 * and the iblinkinfo fabric reading included), facts_keep_only drops the
 * rest. The host controls every byte. Traps on a broken contract: an
 * inflate or split that fails without a message, or a split that succeeds
 * with no object. The plain size is held to 1 MiB here (256 MiB in
 * precheck) so that a small input's bomb stays quick. See
 * tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../engine/base/strbuf.h"
#include "../../engine/facts/facts.h"
#include "../../engine/facts/parse-iblinkinfo.h"

static const char *const keep[] = { "nvidia-smi-q", "ibstat", NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct host_facts hf;
	struct err e = ERR_INIT;
	json_t *raw = NULL;
	struct strbuf out = STRBUF_INIT;
	int rc;

	strbuf_add(&out, data, size);
	rc = facts_inflate(&out, (size_t)1 << 20, &e);
	if (!rc)
		rc = facts_split(out.buf, out.len, &raw, &e);
	strbuf_release(&out);
	if (rc) {
		if (!err_msg(&e)[0])
			__builtin_trap();
		err_clear(&e);
		return 0;
	}
	if (!json_is_object(raw))
		__builtin_trap();
	memset(&hf, 0, sizeof(hf));
	hf.raw = raw;
	facts_parse(&hf);
	facts_keep_only(&hf, keep);
	json_decref(hf.raw);
	json_decref(hf.parsed);
	json_decref(hf.parse_errors);
	iblinkinfo_free(hf.fabric);
	return 0;
}

/*
 * libFuzzer target: engine/rundir/journal.c, what `deploy --resume` reads
 * back from RUN_DIR/journal.json (a file a person may have edited, or a
 * crash may have left). Loads the document, then does what a resumed run
 * does with it: declares each stage it names (with another module version
 * for every other stage, which clears its hosts), asks and records each host,
 * records a value and serialises the result. Traps on a broken contract: a
 * load that fails without a message, a host recorded as done that then
 * reads as something else. See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/rundir/journal.h"

static const char *const hosts[] = { "dgx01", "dgx02", "" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal *j = NULL;
	struct strlist stages = STRLIST_INIT;
	struct err e = ERR_INIT;
	char *text;

	if (journal_load_buf("fuzz/journal.json", (const char *)data, size, &j, &e)) {
		if (!err_msg(&e)[0])
			__builtin_trap();
		err_clear(&e);
		return 0;
	}
	journal_stages(j, &stages);
	(void)journal_state(j);
	(void)journal_get(j, "run_id");
	for (size_t i = 0; i < stages.n; i++) {
		const char *s = stages.v[i];
		int v = journal_stage_version(j, s);

		journal_stage(j, s, "mod", i % 2 ? (unsigned)v + 1 : (unsigned)v);
		for (size_t k = 0; k < sizeof(hosts) / sizeof(hosts[0]); k++) {
			(void)journal_host_status(j, s, hosts[k]);
			(void)journal_host_completed(j, s, hosts[k]);
			journal_host_start(j, s, hosts[k]);
			journal_host_done(j, s, hosts[k], k ? "changed" : "failed", NULL,
					  k ? NULL : "why", 0.5);
			if (k && !journal_host_completed(j, s, hosts[k]))
				__builtin_trap();
		}
	}
	journal_stage(j, "fuzz-new", "mod", 1);
	journal_host_done(j, "fuzz-new", "dgx01", "ok", NULL, NULL, 0.1);
	journal_attempt(j);
	journal_record(j, "scale.cluster_id", "1");
	journal_set_state(j, "interrupted");
	text = json_dumps(journal_json(j), JSON_COMPACT);
	free(text);
	strlist_clear(&stages);
	journal_free(j);
	return 0;
}

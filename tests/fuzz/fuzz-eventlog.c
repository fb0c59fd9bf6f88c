/*
 * libFuzzer target: engine/base/eventlog.c's reader (replay_load_buf), which
 * `bringup tui --replay` runs on RUN_DIR/events.jsonl, a file anyone with
 * the run directory may have edited. See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../engine/base/eventlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay *r = NULL;
	struct err e = ERR_INIT;
	int rc = replay_load_buf("fuzz", (const char *)data, size, &r, &e);

	/* the contract: an error says why, a success has a matrix and events in range */
	if (rc && !err_msg(&e)[0])
		abort();
	if (!rc) {
		for (size_t i = 0; i < r->n; i++)
			if (r->ev[i].kind != DEV_RUN_DONE && r->ev[i].stage >= r->info.nstages)
				abort();
		replay_free(r);
	}
	err_clear(&e);
	return 0;
}

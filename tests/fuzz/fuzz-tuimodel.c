/*
 * libFuzzer target: the TUI's replay path without a terminal: a recorded
 * RUN_DIR/events.jsonl (replay_load_buf) applied event by event to the
 * model the views draw from (tui/model.c), then its rows as the grid shows
 * them (all, failures only, folded, filtered by node set and by text) and
 * each host's state signature. The ncurses drawing itself (tui/view.c)
 * needs a terminal and is not reached. Traps on a broken contract: a row
 * naming a host past the model's. See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../engine/base/eventlog.h"
#include "../../tui/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay *r = NULL;
	struct err e = ERR_INIT;
	struct model m;
	struct strlist open = STRLIST_INIT;
	const struct view_opts vos[] = {
		{ NULL, false, 0, NULL },
		{ NULL, true, 2, NULL },
		{ "dgx[01-04]", false, 0, NULL },
		{ "fail", false, 1, &open },
	};

	if (replay_load_buf("fuzz", (const char *)data, size, &r, &e)) {
		err_clear(&e);
		return 0;
	}
	model_init(&m, &r->info);
	for (size_t i = 0; i < r->n; i++)
		model_apply(&m, &r->ev[i]);
	for (size_t h = 0; h < m.nh && h < 64; h++) {
		char *sig = model_signature(&m, h);

		if (h == 0 && sig)
			strlist_push(&open, sig);
		free(sig);
		(void)model_host_failed(&m, h);
	}
	for (size_t v = 0; v < sizeof(vos) / sizeof(vos[0]); v++) {
		struct mrow *rows = NULL;
		size_t n = model_rows(&m, &vos[v], &rows);

		for (size_t i = 0; i < n; i++)
			if (rows[i].host >= m.nh || rows[i].n > m.nh)
				__builtin_trap();
		model_rows_free(rows, n);
	}
	strlist_clear(&open);
	model_release(&m);
	replay_free(r);
	return 0;
}

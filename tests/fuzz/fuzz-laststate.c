/*
 * libFuzzer target: the last-run state (engine/rundir/runlog.c's run_last,
 * engine/kube/kube-objects.c's kube_records_load): STATE_DIR/last, a link
 * naming the last run, and that run's journal.json whose records `apply`
 * and `render` read. Input: the link's target on the first line, then the
 * journal. Traps on a broken contract: a run id holding a '/', records
 * that are not an object. See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../engine/kube/kube-objects.h"
#include "../../engine/rundir/runlog.h"
#include "fuzz-tmpdir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *nl = memchr(p, '\n', size);
	size_t tl = nl ? (size_t)(nl - p) : size;
	char target[1024], link[4200], runs[4200];
	struct err e = ERR_INIT;
	char *id = NULL;
	json_t *rec;

	if (!tl || tl >= sizeof(target) || memchr(p, '\0', tl))
		return 0;
	memcpy(target, p, tl);
	target[tl] = '\0';
	snprintf(link, sizeof(link), "%s/last", fuzz_dir());
	snprintf(runs, sizeof(runs), "%s/runs/fuzz-run", fuzz_dir());
	unlink(link);
	if (symlink(target, link))
		return 0;
	mkdir_p(runs, &e);
	err_clear(&e);
	fuzz_file("runs/fuzz-run/journal.json", nl ? nl + 1 : p + size,
		  nl ? size - tl - 1 : 0);
	if (!run_last(fuzz_dir(), &id, &e) && strchr(id, '/'))
		__builtin_trap();
	free(id);
	err_clear(&e);
	rec = kube_records_load(fuzz_dir(), &e);
	if (rec && !json_is_object(rec))
		__builtin_trap();
	if (!rec && !err_msg(&e)[0])
		__builtin_trap();
	json_decref(rec);
	err_clear(&e);
	return 0;
}

/*
 * libFuzzer target: the playbook loader (engine/deploy/playbook.c) with the real
 * stage modules, then resolved against a small fixed inventory and each
 * stage's parameters computed per host, as `deploy -p` does before it
 * contacts anyone. See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../engine/inventory/inventory.h"
#include "../../engine/deploy/playbook.h"
#include "../../engine/deploy/module.h"

static const char inv_yaml[] =
	"cluster:\n  name: t\n  vars: { memlock_limit: 1024 }\n"
	"hosts:\n  dgx[01-02]: { address: \"10.0.0.[1-2]\" }\n  ibsw01:\n"
	"groups:\n  gpu_worker: { hosts: \"dgx[01-02]\" }\n  sm_host: { hosts: dgx01 }\n"
	"  ib_switch: { hosts: ibsw01 }\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct inventory *inv;
	struct playbook *pb = NULL;
	struct err e = ERR_INIT;

	if (!inv && inventory_load_buf("inv.yaml", inv_yaml, strlen(inv_yaml), &inv, &e))
		__builtin_trap();
	if (!playbook_load_buf("fuzz.yaml", (const char *)data, size, stage_modules,
			       stage_nmodules, &pb, &e) &&
	    !playbook_resolve(pb, inv, &e)) {
		for (size_t s = 0; s < pb->nstages; s++)
			for (size_t h = 0; h < inv->nhosts; h++)
				json_decref(stage_params(pb, &pb->stages[s], &inv->hosts[h], &e));
	}
	playbook_free(pb);
	err_clear(&e);
	return 0;
}

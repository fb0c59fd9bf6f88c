/*
 * libFuzzer target: the inventory loader (engine/inventory/inventory.c), its JSON view
 * and the fold of its host names, as `bringup inventory show` runs them.
 * See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../engine/inventory/inventory.h"
#include "../../engine/base/nodeset.h"
#include "../../engine/base/xalloc.h"
#include "../../engine/validate/validate.h"

/* The whole JSON view of 65,536 hosts takes a minute under ASan on a busy
 * machine: beyond this many hosts only the first host's view is built. */
#define FULL_VIEW_MAX 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inventory *inv = NULL;
	struct err e = ERR_INIT;

	if (!inventory_load_buf("fuzz.yaml", (const char *)data, size, &inv, &e)) {
		json_t *j = inventory_to_json(inv, inv->nhosts > FULL_VIEW_MAX ?
					      &inv->hosts[0] : NULL);
		char *s = json_dumps(j, JSON_COMPACT);
		char **names = xmalloc(inv->nhosts * sizeof(*names));
		struct validate_cfg cfg;
		struct err ve = ERR_INIT;

		/* The validate: section the inventory kept, read as every command
		 * reads it (cmd_inventory_load): a failure says why, too. */
		validate_cfg_defaults(&cfg);
		if (validate_config_load(inv, &cfg, &ve) && !ve.msg)
			__builtin_trap();
		validate_cfg_release(&cfg);
		err_clear(&ve);

		for (size_t i = 0; i < inv->nhosts; i++)
			names[i] = inv->hosts[i].name;
		free(nodeset_fold(names, inv->nhosts));
		free(names);
		free(s);
		json_decref(j);
		inventory_free(inv);
	} else if (!e.msg) {
		__builtin_trap(); /* a failure always says why */
	}
	err_clear(&e);
	return 0;
}

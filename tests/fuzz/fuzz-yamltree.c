/* libFuzzer target: engine/base/yamltree.c, a document loaded and converted to
 * JSON as an inventory's vars are. See tests/fuzz/README.md. */
#include <stddef.h>
#include <stdint.h>

#include "../../engine/base/yamltree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e = ERR_INIT;
	struct ytree t;

	if (!ytree_load(&t, "fuzz.yaml", (const char *)data, size, &e) && ytree_root(&t)) {
		json_t *j = ytree_to_json(&t, ytree_root(&t), "the document");

		json_decref(j);
		if (!j && !e.msg)
			__builtin_trap(); /* NULL must come with a message */
	}
	ytree_release(&t);
	err_clear(&e);
	return 0;
}

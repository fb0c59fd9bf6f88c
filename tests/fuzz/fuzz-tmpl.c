/* libFuzzer target: engine/kube/tmpl-render.c, a manifest template parsed,
 * expanded over a fixed context shaped like the render's, and re-parsed as
 * YAML. See tests/fuzz/README.md. */
#include <stddef.h>
#include <stdint.h>

#include "../../engine/kube/tmpl-render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static json_t *ctx;
	struct strbuf sb = STRBUF_INIT;
	struct err e = ERR_INIT;
	json_t *obj = NULL;

	if (!ctx) {
		json_error_t je;

		ctx = json_loads("{\"name\": \"mpi\", \"n\": 4, \"on\": true, \"off\": false, "
				 "\"ns\": [\"adas\", \"ml\"], \"hcas\": [{\"dev\": \"ib0\", "
				 "\"resource\": \"shared_ib0\"}], \"scale\": {\"id\": \"1621\", "
				 "\"uid\": \"099B6A7A:5EB99743\"}, \"nl\": \"a\\nb: c\"}", 0, &je);
		if (!ctx)
			__builtin_trap();
	}
	int rc = tmpl_render_yaml("fuzz.yaml", (const char *)data, size, ctx, &sb, &obj, &e);

	if (rc && !e.msg)
		__builtin_trap(); /* a failure must come with a message */
	if (!rc && (!obj || !json_is_object(obj)))
		__builtin_trap(); /* success means one mapping */
	if (rc && sb.len)
		__builtin_trap(); /* nothing half-rendered is kept */
	json_decref(obj);
	strbuf_release(&sb);
	err_clear(&e);
	return 0;
}

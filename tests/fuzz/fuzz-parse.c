/*
 * libFuzzer target: every tool-output parser (engine/parse-*.c). The first
 * byte picks the parser by its index in `bringup parse --list` order
 * (modulo their number; run.sh writes that byte from the parser's name for
 * the seeds and the regression inputs, so both follow the table as it
 * grows); the rest is the tool's output. See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>

#include "../../engine/facts/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n;
	const struct parser *list = parser_list(&n);
	struct err e = ERR_INIT;
	json_t *j = NULL;
	int rc;

	if (!size)
		return 0;
	rc = list[data[0] % n].fn((const char *)data + 1, size - 1, &j, &e);
	if (rc ? j != NULL || !e.msg : j == NULL)
		__builtin_trap(); /* JSON or an error with a message, not both */
	json_decref(j);
	err_clear(&e);
	return 0;
}

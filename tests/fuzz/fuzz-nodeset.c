/*
 * libFuzzer target: engine/nodeset.c. The input up to the first 0xff byte
 * is a node set to expand; the rest, if any, is appended to each name
 * ("n[1-4]" 0xff "-ib0" gives n1-ib0 ... n4-ib0), and the names are folded,
 * as `inventory show` folds a group's hosts. See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/base/nodeset.h"
#include "../../engine/base/strlist.h"
#include "../../engine/base/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memchr(data, 0xff, size);
	size_t plen = sep ? (size_t)(sep - data) : size;
	char *pattern = xstrndup((const char *)data, plen);
	char *suffix = sep ? xstrndup((const char *)sep + 1, size - plen - 1) : xstrdup("");
	struct strlist names = STRLIST_INIT;
	struct err e = ERR_INIT;

	if (!nodeset_expand(pattern, &names, &e)) {
		char *folded;

		if (*suffix)
			for (size_t i = 0; i < names.n; i++) {
				char *n = xasprintf("%s%s", names.v[i], suffix);

				free(names.v[i]);
				names.v[i] = n;
			}
		folded = nodeset_fold(names.v, names.n);
		free(folded);
	}
	strlist_clear(&names);
	err_clear(&e);
	free(pattern);
	free(suffix);
	return 0;
}

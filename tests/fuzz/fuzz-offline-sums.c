/*
 * libFuzzer target: offline_sums_parse (modules/offline.c), the reader of
 * an air-gap bundle's SHA256SUMS, which arrives from a file. Contract: a
 * failure has a message; every path handed on is relative, without "..".
 * See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../modules/offline.h"

static int check(const char *path, const char *hex, void *arg)
{
	(void)arg;
	if (strlen(hex) != 64 || path[0] == '/' || !strncmp(path, "../", 3) || strstr(path, "/../") ||
	    !strcmp(path, ".."))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e = ERR_INIT;

	if (offline_sums_parse((const char *)data, size, check, NULL, &e) && !e.msg)
		abort();
	err_clear(&e);
	return 0;
}

/*
 * libFuzzer target: engine/ssh/ssh-knownhosts.c, the `@revoked` and
 * `@cert-authority` lines bringup reads itself from a known_hosts file
 * (libssh skips them), and OpenSSH's host pattern lists. Input: the host
 * on the first line, the key blob on the second, then the file. Traps on a
 * broken contract: a marker line number past the file's lines. See
 * tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../engine/base/xalloc.h"
#include "../../engine/ssh/ssh-knownhosts.h"
#include "fuzz-tmpdir.h"

/* The next line of [*p, end) as a string (caller frees); *p moves past it. */
static char *next_line(const char **p, const char *end)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	char *s = xstrndup(*p, (size_t)((nl ? nl : end) - *p));

	*p = nl ? nl + 1 : end;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	char *host = next_line(&p, end), *key = next_line(&p, end);
	struct kh_markers m;
	struct err e = ERR_INIT;
	unsigned lines = 1;

	for (const char *q = p; q < end; q++)
		lines += *q == '\n';
	(void)kh_host_matches(key, host);
	if (!kh_scan_markers(fuzz_file("known_hosts", p, (size_t)(end - p)), host, key, &m, &e) &&
	    (m.revoked_line > lines || m.ca_line > lines))
		__builtin_trap();
	err_clear(&e);
	free(host);
	free(key);
	return 0;
}

/*
 * For the targets whose code reads a file by name (known_hosts, a
 * kubeconfig, STATE_DIR's files): one private directory per process under
 * $TMPDIR, made on first use, and a way to put an input in it.
 */
#ifndef BRINGUP_FUZZ_TMPDIR_H
#define BRINGUP_FUZZ_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *fuzz_dir(void)
{
	static char dir[4096];

	if (!dir[0]) {
		const char *t = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/bringup-fuzz.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir)) {
			perror("fuzz: mkdtemp");
			abort();
		}
	}
	return dir;
}

/* Writes len bytes to fuzz_dir()/name; returns the path (static, reused). */
static const char *fuzz_file(const char *name, const void *buf, size_t len)
{
	static char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		abort();
	}
	return path;
}

#endif

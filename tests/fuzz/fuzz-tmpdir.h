/*
 * For the targets whose code reads a file by name (known_hosts, a
 * kubeconfig, STATE_DIR's files): one private directory per process under
 * $TMPDIR, made on first use and removed with what is in it at exit, and a
 * way to put an input in it.
 */
#ifndef BRINGUP_FUZZ_TMPDIR_H
#define BRINGUP_FUZZ_TMPDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir_path[4096];

static int fuzz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void fuzz_dir_remove(void)
{
	nftw(fuzz_dir_path, fuzz_rm, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *fuzz_dir(void)
{
	char *dir = fuzz_dir_path;

	if (!dir[0]) {
		const char *t = getenv("TMPDIR");

		snprintf(dir, sizeof(fuzz_dir_path), "%s/bringup-fuzz.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(dir)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(fuzz_dir_remove);
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

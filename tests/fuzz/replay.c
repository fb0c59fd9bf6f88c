/*
 * A plain main() for the libFuzzer targets: runs LLVMFuzzerTestOneInput
 * once over each file named (a directory: each file in it), with no
 * sanitizer and no libFuzzer runtime, so that valgrind can watch every
 * access, those inside libjansson and libyaml included (ASan does not
 * see them: they are not instrumented). `make fuzz-valgrind` links each
 * target with it; see tests/fuzz/README.md.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input in a buffer of exactly its size, so that a read past it is an error. */
static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *buf;
	size_t len;

	if (!f || fstat(fileno(f), &st)) {
		perror(path);
		if (f)
			fclose(f);
		return 1;
	}
	len = (size_t)st.st_size;
	buf = malloc(len ? len : 1);
	if (!buf || fread(buf, 1, len, f) != len) {
		perror(path);
		free(buf);
		fclose(f);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int run_path(const char *path)
{
	struct stat st;
	struct dirent **ents;
	int n, rc = 0;

	if (stat(path, &st)) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		perror(path);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			size_t l = strlen(path) + strlen(ents[i]->d_name) + 2;
			char *p = malloc(l);

			if (!p)
				abort();
			snprintf(p, l, "%s/%s", path, ents[i]->d_name);
			rc |= run_path(p);
			free(p);
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;

	for (int i = 1; i < argc; i++)
		rc |= run_path(argv[i]);
	return rc;
}

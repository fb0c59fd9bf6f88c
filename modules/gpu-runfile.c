/*
 * Reading an NVIDIA driver runfile's Makeself header (gpu-runfile.h).
 */
#include "gpu-runfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../engine/ssh/ssh.h"
#include "../engine/base/strbuf.h"
#include "../engine/base/xalloc.h"

/* The header is a few dozen lines of shell before the payload. */
#define HEAD_MAX 16384

#define DRIVER_LABEL "NVIDIA Accelerated Graphics Driver for Linux-"

void gpu_runfile_release(struct gpu_runfile *r)
{
	free(r->version);
	free(r->arch);
	free(r->sha256);
	memset(r, 0, sizeof(*r));
}

/* The value of the header line KEY=VALUE (quotes removed), or NULL; caller frees. */
static char *head_value(const char *head, size_t len, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = head, *end = head + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			const char *v = p + klen + 1;
			size_t vn = n - klen - 1;

			if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"') {
				v++;
				vn -= 2;
			}
			return xstrndup(v, vn);
		}
		p += n + 1;
	}
	return NULL;
}

int gpu_runfile_parse(const char *name, const char *head, size_t len, struct gpu_runfile *ret,
		      struct err *err)
{
	char *label = NULL;
	int rc = 0;

	memset(ret, 0, sizeof(*ret));
	if (len < 2 || strncmp(head, "#!", 2))
		return err_set(err, ERR_PARSE, "%s is not an NVIDIA driver runfile (no shell "
			       "archive header)", name);
	label = head_value(head, len, "label");
	ret->version = head_value(head, len, "version_string");
	ret->arch = head_value(head, len, "TARGET_ARCH");
	if (!label || strncmp(label, DRIVER_LABEL, strlen(DRIVER_LABEL)))
		rc = err_set(err, ERR_PARSE, "%s is not an NVIDIA driver runfile (its label is "
			     "'%s', expected '" DRIVER_LABEL "ARCH VERSION')", name,
			     label ? label : "missing");
	else if (!ret->version || !*ret->version)
		rc = err_set(err, ERR_PARSE, "%s: no version_string in its header", name);
	else if (!ret->arch || !*ret->arch)
		rc = err_set(err, ERR_PARSE, "%s: no TARGET_ARCH in its header", name);
	free(label);
	return rc;
}

/* A name NVIDIA-Linux-ARCH-VERSION.run must be the header's. */
static int check_name(const char *path, const struct gpu_runfile *r, struct err *err)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *want = xasprintf("NVIDIA-Linux-%s-%s.run", r->arch, r->version);
	size_t blen = strlen(base);
	int rc = 0;

	if (!strncmp(base, "NVIDIA-Linux-", 13) && blen > 4 && !strcmp(base + blen - 4, ".run") &&
	    strcmp(base, want))
		rc = err_set(err, ERR_PARSE, "%s: its header says driver %s for %s (%s), not what "
			     "its name says", path, r->version, r->arch, want);
	free(want);
	return rc;
}

int gpu_runfile_inspect(const char *path, struct gpu_runfile *ret, struct err *err)
{
	char *head = xmalloc(HEAD_MAX), hex[65];
	FILE *f = fopen(path, "rb");
	struct stat st;
	size_t n = 0;
	int rc;

	memset(ret, 0, sizeof(*ret));
	if (!f || fstat(fileno(f), &st)) {
		rc = err_set(err, ERR_IO, "%s: %s", path, strerror(errno));
		goto out;
	}
	n = fread(head, 1, HEAD_MAX, f);
	if (ferror(f)) {
		rc = err_set(err, ERR_IO, "%s: read error", path);
		goto out;
	}
	rc = gpu_runfile_parse(path, head, n, ret, err);
	if (!rc)
		rc = check_name(path, ret, err);
	if (!rc)
		rc = upload_local_sha256(path, hex, err);
	if (!rc) {
		ret->sha256 = xstrdup(hex);
		ret->size = st.st_size;
	}
out:
	if (f)
		fclose(f);
	free(head);
	return rc;
}

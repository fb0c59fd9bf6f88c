/*
 * MLNX_OFED tarballs read with libarchive on the admin host (ofed-tarball.h):
 * one pass over the entries for the top directory and the small files that
 * say what the bundle is, the checksum (ssh.h's upload_local_sha256, which
 * the upload then reuses), and a cache so that every host of a stage shares
 * one reading.
 */
#include "ofed-tarball.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../engine/ssh/ssh.h"
#include "../engine/base/lazylib.h"
#include "../engine/base/xalloc.h"

/* Bigger than any of the small files we read: a bundle is not trusted. */
#define MAX_SMALL_FILE 4096

void ofed_release(const char *version, struct strbuf *out)
{
	const char *p = version;
	size_t len;

	while (*p && !isdigit((unsigned char)*p))
		p++;
	len = strcspn(p, ":\n");
	strbuf_add(out, p, len);
}

bool ofed_split_top(const char *top, struct strbuf *version, struct strbuf *distro,
		    struct strbuf *arch)
{
	const char *last = strrchr(top, '-'), *prev = NULL;

	if (!last || !last[1])
		return false;
	for (const char *p = top; p < last; p++)
		if (*p == '-')
			prev = p;
	/* A version before the distro, with a release number in it. */
	if (!prev || prev + 1 == last || strcspn(top, "0123456789") >= (size_t)(prev - top))
		return false;
	strbuf_add(version, top, (size_t)(prev - top));
	strbuf_add(distro, prev + 1, (size_t)(last - prev - 1));
	strbuf_addstr(arch, last + 1);
	return true;
}

void ofed_tarball_release(struct ofed_tarball *t)
{
	if (!t)
		return;
	free(t->top);
	free(t->version);
	free(t->distro);
	free(t->arch);
	free(t->sha256);
	strlist_clear(&t->kernels);
	memset(t, 0, sizeof(*t));
}

static void copy_tarball(struct ofed_tarball *dst, const struct ofed_tarball *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->top = xstrdup(src->top);
	dst->version = xstrdup(src->version);
	dst->distro = xstrdup(src->distro);
	dst->arch = xstrdup(src->arch);
	dst->sha256 = xstrdup(src->sha256);
	dst->size = src->size;
	for (size_t i = 0; i < src->kernels.n; i++)
		strlist_push(&dst->kernels, src->kernels.v[i]);
}

/* What the entries say, gathered in one pass. */
struct scan {
	struct strbuf top, mlnx, distro, arch, kernels;
	bool have_mlnx, have_distro, have_installer;
};

/* "TOP/NAME" (with or without "./") -> NAME under the one top directory. */
static int entry_name(struct scan *sc, const char *path, const char **ret_rest,
		      const char *file, struct err *err)
{
	size_t len;

	if (!strncmp(path, "./", 2))
		path += 2;
	len = strcspn(path, "/");
	if (!len)
		return 0;
	if (!sc->top.len)
		strbuf_add(&sc->top, path, len);
	else if (sc->top.len != len || strncmp(sc->top.buf, path, len))
		return err_set(err, ERR_PARSE, "%s: more than one top directory ('%s', '%.*s')",
			       file, sc->top.buf, (int)len, path);
	*ret_rest = path[len] == '/' ? path + len + 1 : "";
	return 0;
}

static int read_small(struct archive *a, struct strbuf *out, const char *name,
		      const char *file, struct err *err)
{
	char buf[MAX_SMALL_FILE + 1];
	la_ssize_t n = archive_read_data(a, buf, sizeof(buf));

	if (n < 0)
		return err_set(err, ERR_IO, "%s: reading %s: %s", file, name,
			       archive_error_string(a));
	if (n > MAX_SMALL_FILE)
		return err_set(err, ERR_PARSE, "%s: %s is larger than %d bytes", file, name,
			       MAX_SMALL_FILE);
	strbuf_add(out, buf, (size_t)n);
	strbuf_rtrim(out);
	return 0;
}

static int scan_entry(struct archive *a, struct archive_entry *e, struct scan *sc,
		      const char *file, struct err *err)
{
	const char *rest = NULL;
	int rc = entry_name(sc, archive_entry_pathname(e), &rest, file, err);

	if (rc || !rest)
		return rc;
	if (!strcmp(rest, "mlnxofedinstall"))
		sc->have_installer = true;
	else if (!strcmp(rest, ".mlnx") && (sc->have_mlnx = true))
		return read_small(a, &sc->mlnx, rest, file, err);
	else if (!strcmp(rest, "distro") && (sc->have_distro = true))
		return read_small(a, &sc->distro, rest, file, err);
	else if (!strcmp(rest, ".arch"))
		return read_small(a, &sc->arch, rest, file, err);
	else if (!strcmp(rest, ".supported_kernels"))
		return read_small(a, &sc->kernels, rest, file, err);
	return 0;
}

static int scan_archive(const char *file, struct scan *sc, struct err *err)
{
	int lib = lazylib_archive(err);

	if (lib)
		return lib;

	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int rc = 0, r;

	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, file, 65536) != ARCHIVE_OK) {
		rc = err_set(err, ERR_IO, "%s: %s", file, archive_error_string(a));
		goto out;
	}
	while (!rc && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK)
		rc = scan_entry(a, e, sc, file, err);
	if (!rc && r != ARCHIVE_EOF)
		rc = err_set(err, ERR_PARSE, "%s: not a readable tarball: %s", file,
			     archive_error_string(a));
out:
	archive_read_free(a);
	return rc;
}

/* The scan must describe one consistent MLNX_OFED bundle. */
static int judge(const char *file, struct scan *sc, struct ofed_tarball *t, struct err *err)
{
	struct strbuf ver = STRBUF_INIT, distro = STRBUF_INIT, arch = STRBUF_INIT;
	struct strbuf rel = STRBUF_INIT;
	int rc = 0;

	if (!sc->top.len || !ofed_split_top(sc->top.buf, &ver, &distro, &arch))
		rc = err_set(err, ERR_PARSE, "%s: top directory '%s' is not named like "
			     "MLNX_OFED_LINUX-VERSION-DISTRO-ARCH", file, sc->top.buf);
	else if (!sc->have_installer || !sc->have_mlnx || !sc->have_distro)
		rc = err_set(err, ERR_PARSE, "%s: not an MLNX_OFED bundle: %s/%s missing", file,
			     sc->top.buf, !sc->have_installer ? "mlnxofedinstall" :
			     !sc->have_mlnx ? ".mlnx" : "distro");
	if (rc)
		goto out;
	ofed_release(ver.buf, &rel);
	if (strcmp(rel.buf, sc->mlnx.buf))
		rc = err_set(err, ERR_PARSE, "%s: .mlnx says %s but the directory is %s", file,
			     sc->mlnx.buf, sc->top.buf);
	else if (strcmp(distro.buf, sc->distro.buf))
		rc = err_set(err, ERR_PARSE, "%s: distro file says %s but the directory is %s",
			     file, sc->distro.buf, sc->top.buf);
	else if (sc->arch.len && strcmp(arch.buf, sc->arch.buf))
		rc = err_set(err, ERR_PARSE, "%s: .arch says %s but the directory is %s", file,
			     sc->arch.buf, sc->top.buf);
	if (rc)
		goto out;
	t->top = strbuf_detach(&sc->top, NULL);
	t->version = strbuf_detach(&ver, NULL);
	t->distro = strbuf_detach(&distro, NULL);
	t->arch = strbuf_detach(&arch, NULL);
	for (char *save = NULL, *k = strtok_r(sc->kernels.buf, " \t\n", &save); k;
	     k = strtok_r(NULL, " \t\n", &save))
		strlist_push(&t->kernels, k);
out:
	strbuf_release(&ver);
	strbuf_release(&distro);
	strbuf_release(&arch);
	strbuf_release(&rel);
	return rc;
}

/* The same cached reading the upload compares each host's copy with. */
static int sha256_of(const char *file, char **ret, struct err *err)
{
	char hex[65];
	int rc = upload_local_sha256(file, hex, err);

	if (!rc)
		*ret = xstrdup(hex);
	return rc;
}

static int inspect(const char *file, struct ofed_tarball *t, struct err *err)
{
	struct scan sc = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	int rc = scan_archive(file, &sc, err);

	if (!rc)
		rc = judge(file, &sc, t, err);
	if (!rc)
		rc = sha256_of(file, &t->sha256, err);
	if (rc)
		ofed_tarball_release(t);
	strbuf_release(&sc.top);
	strbuf_release(&sc.mlnx);
	strbuf_release(&sc.distro);
	strbuf_release(&sc.arch);
	strbuf_release(&sc.kernels);
	return rc;
}

/* The last tarball read, by path, size and mtime (a stage uses one). */
static struct {
	pthread_mutex_t lock;
	char *path;
	off_t size;
	struct timespec mtime;
	struct ofed_tarball t;
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

int ofed_tarball_inspect(const char *path, struct ofed_tarball *ret, struct err *err)
{
	struct stat st;
	int rc = 0;

	memset(ret, 0, sizeof(*ret));
	if (stat(path, &st))
		return err_set(err, ERR_IO, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(err, ERR_IO, "%s: not a regular file", path);
	pthread_mutex_lock(&cache.lock);
	if (!cache.path || strcmp(cache.path, path) || cache.size != st.st_size ||
	    cache.mtime.tv_sec != st.st_mtim.tv_sec || cache.mtime.tv_nsec != st.st_mtim.tv_nsec) {
		free(cache.path);
		cache.path = NULL;
		ofed_tarball_release(&cache.t);
		rc = inspect(path, &cache.t, err);
		if (!rc) {
			cache.t.size = st.st_size;
			cache.path = xstrdup(path);
			cache.size = st.st_size;
			cache.mtime = st.st_mtim;
		}
	}
	if (!rc)
		copy_tarball(ret, &cache.t);
	pthread_mutex_unlock(&cache.lock);
	return rc;
}

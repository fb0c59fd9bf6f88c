/*
 * Support bundles with libarchive; see bundle.h.
 */
#include "bundle.h"
#include "../base/lazylib.h"
#include "../base/strbuf.h"
#include "../base/xalloc.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole file, redacted; -1 with errno on a read error. */
static int read_redacted(int fd, const struct redactor *red, struct strbuf *out)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(out, buf, (size_t)n);
	if (n < 0)
		return -1;
	redact_strbuf(red, out);
	return 0;
}

static int add_file(struct archive *a, const char *path, const char *name,
		    const struct stat *st, const struct redactor *red, struct err *err)
{
	struct archive_entry *e = archive_entry_new();
	struct strbuf data = STRBUF_INIT;
	char buf[65536];
	ssize_t n;
	int fd = -1, rc = 0;

	archive_entry_copy_stat(e, st);
	archive_entry_set_pathname(e, name);
	archive_entry_set_uname(e, "bringup");
	archive_entry_set_gname(e, "bringup");
	if (S_ISREG(st->st_mode) && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = err_set(err, ERR_IO, "cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	if (fd >= 0 && red) {
		if (read_redacted(fd, red, &data)) {
			rc = err_set(err, ERR_IO, "cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		archive_entry_set_size(e, (la_int64_t)data.len);
	}
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		rc = err_set(err, ERR_IO, "bundle: %s: %s", name, archive_error_string(a));
		goto out;
	}
	if (fd >= 0 && red) {
		if (data.len && archive_write_data(a, data.buf, data.len) < 0)
			rc = err_set(err, ERR_IO, "bundle: %s: %s", name, archive_error_string(a));
		goto out;
	}
	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		if (archive_write_data(a, buf, (size_t)n) < 0) {
			rc = err_set(err, ERR_IO, "bundle: %s: %s", name, archive_error_string(a));
			break;
		}
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&data);
	archive_entry_free(e);
	return rc;
}

static int add_tree(struct archive *a, const char *path, const char *name,
		    const struct redactor *red, struct err *err)
{
	struct stat st;
	struct dirent *de;
	DIR *dir;
	int rc;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : err_set(err, ERR_IO, "cannot stat %s: %s", path,
						     strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return S_ISREG(st.st_mode) ? add_file(a, path, name, &st, red, err) : 0;
	if ((rc = add_file(a, path, name, &st, red, err)))
		return rc;
	if (!(dir = opendir(path)))
		return err_set(err, ERR_IO, "cannot list %s: %s", path, strerror(errno));
	while (!rc && (de = readdir(dir))) {
		char *p, *n;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", path, de->d_name);
		n = xasprintf("%s/%s", name, de->d_name);
		rc = add_tree(a, p, n, red, err);
		free(p);
		free(n);
	}
	closedir(dir);
	return rc;
}

int bundle_write(const char *out, const struct bundle_item *items, size_t nitems,
		 const struct redactor *red, struct err *err)
{
	int lib = lazylib_archive(err);

	if (lib)
		return lib;

	char *tmp = xasprintf("%s.tmp.%ld", out, (long)getpid());
	struct archive *a = archive_write_new();
	/* A support bundle holds command logs and facts: for its owner's eyes only
	 * (libarchive's own open would create it 0666 & ~umask). */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600), rc = 0;

	if (fd < 0) {
		rc = err_set(err, ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
		archive_write_free(a);
		goto out;
	}
	if (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_open_fd(a, fd) != ARCHIVE_OK) {
		rc = err_set(err, ERR_IO, "cannot write %s: %s", tmp, archive_error_string(a));
		archive_write_free(a);
		close(fd);
		unlink(tmp);
		goto out;
	}
	for (size_t i = 0; i < nitems && !rc; i++)
		rc = add_tree(a, items[i].path, items[i].name, red, err);
	if (archive_write_close(a) != ARCHIVE_OK && !rc)
		rc = err_set(err, ERR_IO, "cannot finish %s: %s", tmp, archive_error_string(a));
	archive_write_free(a);
	if (close(fd) && !rc)
		rc = err_set(err, ERR_IO, "cannot finish %s: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, out))
		rc = err_set(err, ERR_IO, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
	if (rc)
		unlink(tmp);
out:
	free(tmp);
	return rc;
}

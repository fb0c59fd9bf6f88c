/* Small file and directory helpers for the simulator; see sim-int.h. */
#include "sim-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../engine/base/xalloc.h"

int simfs_write(const char *path, const void *data, size_t len, unsigned mode, struct err *err)
{
	const char *p = data;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0)
		return err_set(err, ERR_IO, "cannot write %s: %s", path, strerror(errno));
	/* The umask must not widen or narrow what the caller asked for. */
	if (fchmod(fd, mode))
		goto fail;
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			goto fail;
		p += w;
		len -= (size_t)w;
	}
	if (close(fd))
		return err_set(err, ERR_IO, "cannot write %s: %s", path, strerror(errno));
	return 0;
fail:
	err_set(err, ERR_IO, "cannot write %s: %s", path, strerror(errno));
	close(fd);
	return ERR_IO;
}

int simfs_read(const char *path, struct strbuf *out, struct err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return err_set(err, errno == ENOENT ? ERR_NOTFOUND : ERR_IO, "cannot read %s: %s",
			       path, strerror(errno));
	for (;;) {
		ssize_t r;

		strbuf_grow(out, 4096);
		r = read(fd, out->buf + out->len, out->alloc - out->len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err_set(err, ERR_IO, "cannot read %s: %s", path, strerror(errno));
			close(fd);
			return ERR_IO;
		}
		if (!r)
			break;
		strbuf_setlen(out, out->len + (size_t)r);
	}
	close(fd);
	return 0;
}

int simfs_mkdirs(const char *path, unsigned mode, struct err *err)
{
	char *p = xstrdup(path);
	int ret = 0;

	for (char *s = p + 1;; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST) {
			ret = err_set(err, ERR_IO, "cannot create %s: %s", p, strerror(errno));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

bool simfs_exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static int remove_at(int dirfd, const char *name, struct err *err);

static int remove_dir_contents(int fd, const char *name, struct err *err)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		close(fd);
		return err_set(err, ERR_IO, "cannot read %s: %s", name, strerror(errno));
	}
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = remove_at(dirfd(d), de->d_name, err);
	}
	closedir(d);
	return ret;
}

static int remove_at(int dirfd, const char *name, struct err *err)
{
	struct stat st;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : err_set(err, ERR_IO, "cannot remove %s: %s", name,
						     strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) && errno != ENOENT)
			return err_set(err, ERR_IO, "cannot remove %s: %s", name, strerror(errno));
		return 0;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		/* overlayfs leaves its work/work dir with mode 000; when the
		 * chmod fails, its errno is what the message says. */
		if (!fchmodat(dirfd, name, 0700, 0))
			fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return err_set(err, ERR_IO, "cannot remove %s: %s", name, strerror(errno));
	int ret = remove_dir_contents(fd, name, err);

	if (ret)
		return ret;
	if (unlinkat(dirfd, name, AT_REMOVEDIR) && errno != ENOENT)
		return err_set(err, ERR_IO, "cannot remove %s: %s", name, strerror(errno));
	return 0;
}

int simfs_remove_tree(const char *path, struct err *err)
{
	int ret = remove_at(AT_FDCWD, path, err);

	if (ret)
		err_prefix(err, "%s: ", path);
	return ret;
}

/* Where this machine keeps OpenSSH's server programs (Debian and RHEL paths). */
static const char *const sshd_paths[] = {
	"/usr/sbin/sshd", "/usr/local/sbin/sshd", "/sbin/sshd", NULL,
};
static const char *const sftp_paths[] = {
	"/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server",
	"/usr/libexec/sftp-server", "/usr/lib/ssh/sftp-server", NULL,
};
static const char *first_existing(const char *const *paths)
{
	for (; *paths; paths++)
		if (!access(*paths, X_OK))
			return *paths;
	return NULL;
}

const char *sim_sshd_binary(void)
{
	return first_existing(sshd_paths);
}

const char *sim_sftp_server(void)
{
	return first_existing(sftp_paths);
}

/*
 * Unlinked temporary files. See tmpfile.h.
 */
#include "tmpfile.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tmpfile_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

int tmpfile_open(void)
{
	const char *dir = tmpfile_dir();
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC | O_EXCL, 0600);

	/* File systems without O_TMPFILE: a name, gone at once. */
	if (fd < 0) {
		char *path = xasprintf("%s/bringup-out.XXXXXX", dir);

		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
		free(path);
	}
	return fd;
}

/* One pread or pwrite until len is done: what both directions share. */
static int whole(int fd, char *buf, size_t len, off_t off, bool writing)
{
	while (len) {
		ssize_t n = writing ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return -1;
		}
		buf += n;
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

int tmpfile_write(int fd, const void *buf, size_t len, off_t off)
{
	return whole(fd, (char *)buf, len, off, true);
}

int tmpfile_read(int fd, void *buf, size_t len, off_t off)
{
	return whole(fd, buf, len, off, false);
}

int tmpfile_read_all(int fd, struct strbuf *sb)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	strbuf_grow(sb, (size_t)st.st_size);
	if (tmpfile_read(fd, sb->buf + sb->len, (size_t)st.st_size, 0))
		return -1;
	sb->len += (size_t)st.st_size;
	sb->buf[sb->len] = '\0';
	return 0;
}

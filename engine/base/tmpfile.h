/*
 * Unlinked temporary files: where output too large to hold for every host
 * at once waits (exec's fold, precheck's facts). Unlinked from the start,
 * so that a file goes when its descriptor does and no other user can open
 * it (host output may hold what only root should see).
 */
#ifndef BRINGUP_TMPFILE_H
#define BRINGUP_TMPFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "strbuf.h"

/* A new file of mode 0600 in $TMPDIR (else /tmp), opened read-write and
 * close-on-exec: its descriptor, or -1 with errno set. */
int tmpfile_open(void);

/* The directory tmpfile_open uses, for messages. */
const char *tmpfile_dir(void);

/* Writes all of buf at offset off: 0, or -1 with errno set. */
int tmpfile_write(int fd, const void *buf, size_t len, off_t off);
/* Reads exactly len bytes at offset off: 0, or -1 with errno set (EIO
 * when the file ends first). */
int tmpfile_read(int fd, void *buf, size_t len, off_t off);

/* Appends the whole file (from offset 0) to sb: 0, or -1 with errno set. */
int tmpfile_read_all(int fd, struct strbuf *sb);

#endif

/*
 * Support bundles: a deploy run's directory (journal, command logs) and the
 * facts gathered from the hosts, packed into one .tar.gz with libarchive to
 * attach to a support case. Logs are already redacted when written.
 */
#ifndef BRINGUP_BUNDLE_H
#define BRINGUP_BUNDLE_H

#include <stddef.h>

#include "err.h"

struct bundle_item {
	const char *path;     /* a file or directory on disk */
	const char *name;     /* its name inside the archive */
};

/*
 * Writes OUT (gzip-compressed pax tar) with every item, directories
 * recursively; an item whose path does not exist is left out. The archive
 * is written beside OUT and renamed over it when complete. Returns 0 or
 * ERR_IO naming the file at fault.
 */
int bundle_write(const char *out, const struct bundle_item *items, size_t nitems,
		 struct err *err);

#endif

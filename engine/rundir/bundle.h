/*
 * Support bundles: a deploy run's directory (journal, command logs) and the
 * facts gathered from the hosts, packed into one .tar.gz with libarchive to
 * attach to a support case. Logs are already redacted when written; with
 * the inventory's secrets at hand, every file is redacted again on the way
 * in (runs written before a secret was declared, or by older versions).
 */
#ifndef BRINGUP_BUNDLE_H
#define BRINGUP_BUNDLE_H

#include <stddef.h>

#include "../base/err.h"
#include "../inventory/redact.h"

struct bundle_item {
	const char *path;     /* a file or directory on disk */
	const char *name;     /* its name inside the archive */
};

/*
 * Writes OUT (gzip-compressed pax tar) with every item, directories
 * recursively; an item whose path does not exist is left out. The archive
 * is written beside OUT and renamed over it when complete. Returns 0 or
 * ERR_IO naming the file at fault. With `red` (may be NULL), each file's
 * contents go in redacted (read whole into memory first: the size comes
 * before the data in a tar header).
 */
int bundle_write(const char *out, const struct bundle_item *items, size_t nitems,
		 const struct redactor *red, struct err *err);

#endif

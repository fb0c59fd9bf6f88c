/*
 * What an MLNX_OFED tarball is, read on the admin host with libarchive
 * before anything is sent: the top directory's name
 * (MLNX_OFED_LINUX-4.7-3.2.9.0-rhel7.6-x86_64), its .mlnx (version),
 * distro and .arch files, the kernels it was built for
 * (.supported_kernels, when the bundle lists them) and its SHA-256.
 */
#ifndef BRINGUP_OFED_TARBALL_H
#define BRINGUP_OFED_TARBALL_H

#include <stdbool.h>
#include <sys/types.h>

#include "../engine/base/err.h"
#include "../engine/base/strbuf.h"
#include "../engine/base/strlist.h"

struct ofed_tarball {
	char *top;            /* top directory name */
	char *version;        /* as ofed_info -s names it: MLNX_OFED_LINUX-4.7-3.2.9.0 */
	char *distro;         /* rhel7.6, ubuntu22.04 ... */
	char *arch;           /* x86_64, aarch64 ... */
	struct strlist kernels; /* empty when the bundle does not say */
	char *sha256;         /* hex, 64 characters */
	off_t size;
};

/*
 * Reads `path`. Fills *ret (release with ofed_tarball_release) or fails
 * with ERR_IO (unreadable), ERR_PARSE (not an MLNX_OFED tarball: what is
 * missing or inconsistent, e.g. .mlnx against the directory name). Results
 * are cached by path, size and mtime, so that a stage over many hosts reads
 * a large tarball once; safe to call from several threads.
 */
int ofed_tarball_inspect(const char *path, struct ofed_tarball *ret, struct err *err);
void ofed_tarball_release(struct ofed_tarball *t);

/*
 * Splits a top directory name NAME-VERSION-DISTRO-ARCH into its parts
 * (version keeps NAME: MLNX_OFED_LINUX-4.7-3.2.9.0). Returns false when the
 * name has not that shape.
 */
bool ofed_split_top(const char *top, struct strbuf *version, struct strbuf *distro,
		    struct strbuf *arch);

/*
 * The release number of an OFED version as any of its namings write it:
 * "MLNX_OFED_LINUX-4.7-3.2.9.0", "MLNX_OFED_LINUX-4.7-3.2.9.0:" (ofed_info
 * -s), "OFED-internal-24.10-1.1.4.0:" (DOCA-OFED), "DOCA-OFED-24.10-1.1.4.0"
 * and "4.7-3.2.9.0" all give the part from the first digit, without the
 * colon. Appends to out.
 */
void ofed_release(const char *version, struct strbuf *out);

#endif

/*
 * Libraries bringup loads when it first uses them (dlopen), not when it
 * starts: libcurl (the Kubernetes API) and libarchive (tarballs and
 * bundles). Linked the usual way they cost every command about 7 MB of
 * resident memory before main (their own dependencies: TLS stacks,
 * Kerberos, LDAP, ICU's tables, relocated at start), most of what a
 * `bringup --version` used; precheck, which runs 256 SSH sessions at once
 * and uses neither, paid it too. systemd's dlopen'ed dependencies are the
 * model (src/shared: a table of symbols resolved once, e.g. cryptsetup-util.c).
 *
 * The code that uses them calls the libraries' functions by their own names
 * (curl_easy_init, archive_read_new): lazy-curl.c and lazy-archive.c define
 * those names and forward to the library, loaded on first call. A function
 * called while the library cannot be loaded returns that library's failure
 * value (NULL, CURLE_FAILED_INIT, ARCHIVE_FATAL); call lazylib_curl or
 * lazylib_archive first, where the error can be said: ERR_STATE naming the
 * library, dlerror's reason and the package that provides it.
 */
#ifndef BRINGUP_LAZYLIB_H
#define BRINGUP_LAZYLIB_H

#include "err.h"

/* The sonames loaded: the ABI the headers at build time describe. */
#define LAZYLIB_CURL_SONAME "libcurl.so.4"
#define LAZYLIB_ARCHIVE_SONAME "libarchive.so.13"

int lazylib_curl(struct err *err);
int lazylib_archive(struct err *err);

#endif

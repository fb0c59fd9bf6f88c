/*
 * libarchive, loaded on first use (lazylib.h): the functions bringup calls,
 * defined here under their own names, each forwarding to the library.
 * The prototypes come from <archive.h>, so a signature that differs from
 * the library's does not compile.
 */
#include "lazylib-impl.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

/*
 * X(name, return type, (parameters), (arguments), value without the
 * library); V(name, (parameters), (arguments)) for those returning nothing.
 */
#define ARCHIVE_FUNCS(X, V)                                                                  \
	X(archive_error_string, const char *, (struct archive *a), (a), load_error)             \
	X(archive_read_new, struct archive *, (void), (), NULL)                                 \
	X(archive_read_free, int, (struct archive *a), (a), ARCHIVE_FATAL)                      \
	X(archive_read_support_filter_all, int, (struct archive *a), (a), ARCHIVE_FATAL)        \
	X(archive_read_support_format_all, int, (struct archive *a), (a), ARCHIVE_FATAL)        \
	X(archive_read_support_format_tar, int, (struct archive *a), (a), ARCHIVE_FATAL)        \
	X(archive_read_open_filename, int, (struct archive *a, const char *f, size_t b),        \
	  (a, f, b), ARCHIVE_FATAL)                                                             \
	X(archive_read_next_header, int, (struct archive *a, struct archive_entry **e), (a, e), \
	  ARCHIVE_FATAL)                                                                        \
	X(archive_read_data, la_ssize_t, (struct archive *a, void *b, size_t n), (a, b, n),     \
	  ARCHIVE_FATAL)                                                                        \
	X(archive_read_data_block, int,                                                         \
	  (struct archive *a, const void **b, size_t *n, la_int64_t *o), (a, b, n, o),          \
	  ARCHIVE_FATAL)                                                                        \
	X(archive_write_new, struct archive *, (void), (), NULL)                                \
	X(archive_write_disk_new, struct archive *, (void), (), NULL)                           \
	X(archive_write_free, int, (struct archive *a), (a), ARCHIVE_FATAL)                     \
	X(archive_write_close, int, (struct archive *a), (a), ARCHIVE_FATAL)                    \
	X(archive_write_add_filter_gzip, int, (struct archive *a), (a), ARCHIVE_FATAL)          \
	X(archive_write_set_format_pax_restricted, int, (struct archive *a), (a), ARCHIVE_FATAL) \
	X(archive_write_open_fd, int, (struct archive *a, int fd), (a, fd), ARCHIVE_FATAL)      \
	X(archive_write_open_filename, int, (struct archive *a, const char *f), (a, f),         \
	  ARCHIVE_FATAL)                                                                        \
	X(archive_write_disk_set_options, int, (struct archive *a, int f), (a, f), ARCHIVE_FATAL) \
	X(archive_write_header, int, (struct archive *a, struct archive_entry *e), (a, e),      \
	  ARCHIVE_FATAL)                                                                        \
	X(archive_write_data, la_ssize_t, (struct archive *a, const void *b, size_t n),         \
	  (a, b, n), ARCHIVE_FATAL)                                                             \
	X(archive_write_data_block, la_ssize_t,                                                 \
	  (struct archive *a, const void *b, size_t n, la_int64_t o), (a, b, n, o),             \
	  ARCHIVE_FATAL)                                                                        \
	X(archive_write_finish_entry, int, (struct archive *a), (a), ARCHIVE_FATAL)             \
	X(archive_entry_new, struct archive_entry *, (void), (), NULL)                          \
	X(archive_entry_pathname, const char *, (struct archive_entry *e), (e), NULL)           \
	V(archive_entry_free, (struct archive_entry *e), (e))                                   \
	V(archive_entry_set_pathname, (struct archive_entry *e, const char *p), (e, p))         \
	V(archive_entry_set_uname, (struct archive_entry *e, const char *n), (e, n))            \
	V(archive_entry_set_gname, (struct archive_entry *e, const char *n), (e, n))            \
	V(archive_entry_set_size, (struct archive_entry *e, la_int64_t n), (e, n))              \
	V(archive_entry_set_filetype, (struct archive_entry *e, unsigned int t), (e, t))        \
	V(archive_entry_set_perm, (struct archive_entry *e, __LA_MODE_T m), (e, m))             \
	V(archive_entry_copy_stat, (struct archive_entry *e, const struct stat *st), (e, st))

ARCHIVE_FUNCS(LAZY_POINTER, LAZY_POINTER_V)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_error; /* why the library is not there; NULL once loaded */

static void load(void)
{
	static const struct lazy_sym syms[] = { ARCHIVE_FUNCS(LAZY_SYM, LAZY_SYM_V) };

	load_error = lazylib_load(LAZYLIB_ARCHIVE_SONAME, syms, sizeof(syms) / sizeof(*syms));
}

int lazylib_archive(struct err *err)
{
	pthread_once(&once, load);
	return load_error ? lazylib_report("libarchive", load_error, "Debian: libarchive13, "
					   "RHEL: libarchive", err) : 0;
}

ARCHIVE_FUNCS(LAZY_FORWARD, LAZY_FORWARD_V)

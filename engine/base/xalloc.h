/*
 * Allocation helpers that never return NULL.
 *
 * Running out of memory in an orchestrator is not a condition we can report
 * usefully to a remote host, so like git's xmalloc() we abort with a message
 * instead of threading ENOMEM through every call site.
 */
#ifndef BRINGUP_XALLOC_H
#define BRINGUP_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Formats into a new string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow an array to hold at least `need` elements (git's ALLOC_GROW). */
#define ALLOC_GROW(arr, need, alloc)                                         \
	do {                                                                 \
		if ((size_t)(need) > (alloc)) {                              \
			size_t n_ = (alloc) ? (alloc) * 2 : 8;               \
			while (n_ < (size_t)(need))                          \
				n_ *= 2;                                     \
			(arr) = xrealloc((arr), n_ * sizeof(*(arr)));        \
			(alloc) = n_;                                        \
		}                                                            \
	} while (0)

#endif

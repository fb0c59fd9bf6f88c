/*
 * strpool: one copy of each distinct string, for results that repeat the
 * same words on every host ("reachable over SSH", "mlx5_0/1", "ok"): a
 * precheck of 1,000 hosts holds some 90,000 results, most of whose strings
 * are a few hundred distinct ones.
 */
#ifndef BRINGUP_STRPOOL_H
#define BRINGUP_STRPOOL_H

#include <stddef.h>

struct strpool {
	char **slot;   /* open addressing; NULL is free; each string owned */
	size_t cap, n; /* cap a power of two (or 0), n < cap / 2 */
};

#define STRPOOL_INIT { NULL, 0, 0 }

/* The pool's copy of s (added when new): lives until strpool_clear. */
const char *strpool_intern(struct strpool *p, const char *s);
/* The slot that holds s (its content, not its address), or p->cap when
 * none does. */
size_t strpool_slot(const struct strpool *p, const char *s);
/* After a caller put other strings in some slots (owned by the pool as
 * all are): each to the slot its content hashes to. */
void strpool_rehash(struct strpool *p);
void strpool_clear(struct strpool *p);

#endif

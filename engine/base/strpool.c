/* strpool: one copy of each distinct string; see strpool.h. */
#include "strpool.h"
#include "xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a: short strings, no adversary (they are our own results). */
static size_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

size_t strpool_slot(const struct strpool *p, const char *s)
{
	if (!p->cap)
		return 0;
	for (size_t i = hash(s) & (p->cap - 1);; i = (i + 1) & (p->cap - 1)) {
		if (!p->slot[i])
			return p->cap;
		if (!strcmp(p->slot[i], s))
			return i;
	}
}

/* The free slot for s (the table has room). */
static size_t free_slot(const struct strpool *p, const char *s)
{
	size_t i = hash(s) & (p->cap - 1);

	while (p->slot[i])
		i = (i + 1) & (p->cap - 1);
	return i;
}

static void resize(struct strpool *p, size_t cap)
{
	char **old = p->slot;
	size_t old_cap = p->cap;

	p->slot = xcalloc(cap, sizeof(*p->slot));
	p->cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			p->slot[free_slot(p, old[i])] = old[i];
	free(old);
}

const char *strpool_intern(struct strpool *p, const char *s)
{
	size_t i;

	if ((p->n + 1) * 2 > p->cap)
		resize(p, p->cap ? p->cap * 2 : 64);
	if ((i = strpool_slot(p, s)) < p->cap)
		return p->slot[i];
	i = free_slot(p, s);
	p->slot[i] = xstrdup(s);
	p->n++;
	return p->slot[i];
}

void strpool_rehash(struct strpool *p)
{
	if (p->cap)
		resize(p, p->cap);
}

void strpool_clear(struct strpool *p)
{
	for (size_t i = 0; i < p->cap; i++)
		free(p->slot[i]);
	free(p->slot);
	*p = (struct strpool)STRPOOL_INIT;
}

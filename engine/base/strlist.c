/* strlist: owned string arrays; see strlist.h. */
#include "strlist.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

void strlist_push_owned(struct strlist *l, char *s)
{
	ALLOC_GROW(l->v, l->n + 2, l->alloc);
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
}

void strlist_push(struct strlist *l, const char *s)
{
	strlist_push_owned(l, xstrdup(s));
}

int strlist_index(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return (int)i;
	return -1;
}

void strlist_clear(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

/*
 * strlist: an owned, growable array of owned strings (host names, argv).
 */
#ifndef BRINGUP_STRLIST_H
#define BRINGUP_STRLIST_H

#include <stddef.h>

struct strlist {
	char **v;   /* NULL-terminated when n > 0 */
	size_t n;
	size_t alloc;
};

#define STRLIST_INIT { NULL, 0, 0 }

void strlist_push(struct strlist *l, const char *s);    /* copies s */
void strlist_push_owned(struct strlist *l, char *s);    /* takes s */
int strlist_index(const struct strlist *l, const char *s); /* -1 if absent */
void strlist_clear(struct strlist *l);

#endif

/*
 * strbuf: a growable, always NUL-terminated byte buffer (after git's strbuf).
 *
 * Used everywhere a fixed char[N] would otherwise truncate a host name, a
 * command line or captured output. A strbuf owns its memory; strbuf_detach()
 * hands it to the caller.
 */
#ifndef BRINGUP_STRBUF_H
#define BRINGUP_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT { 0, 0, strbuf_slopbuf }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Returns the buffer (caller frees) and leaves sb empty and reusable. */
char *strbuf_detach(struct strbuf *sb, size_t *ret_len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_setlen(struct strbuf *sb, size_t len);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Removes trailing whitespace. */
void strbuf_rtrim(struct strbuf *sb);
/* Appends s quoted for a POSIX shell ('...' with '\'' for quotes). */
void strbuf_addshquoted(struct strbuf *sb, const char *s);

#endif

/*
 * Lossless JSON strings from arbitrary bytes; see jsontext.h.
 */
#include "jsontext.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_seq_len(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xBF;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;       /* continuation byte, C0/C1 (overlong), F5-FF */
	/* The second byte's range is where overlongs, surrogates and > U+10FFFF hide. */
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

size_t utf8_sanitize(const char *s, size_t len, struct strbuf *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0, bad = 0;

	strbuf_grow(out, len);
	while (i < len) {
		size_t n = utf8_seq_len(u + i, len - i);

		if (n) {
			i += n;
			continue;
		}
		strbuf_add(out, s + run, i - run);
		strbuf_addstr(out, "\xEF\xBF\xBD");     /* U+FFFD */
		bad++;
		run = ++i;
	}
	strbuf_add(out, s + run, len - run);
	return bad;
}

void base64_encode(const char *s, size_t len, struct strbuf *out)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *u = (const unsigned char *)s;

	strbuf_grow(out, (len + 2) / 3 * 4);
	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned)u[i] << 16;
		size_t left = len - i;

		if (left > 1)
			v |= (unsigned)u[i + 1] << 8;
		if (left > 2)
			v |= u[i + 2];
		strbuf_addch(out, tab[v >> 18 & 63]);
		strbuf_addch(out, tab[v >> 12 & 63]);
		strbuf_addch(out, left > 1 ? tab[v >> 6 & 63] : '=');
		strbuf_addch(out, left > 2 ? tab[v & 63] : '=');
	}
}

json_t *json_text(const char *s, size_t len, bool *ret_exact)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j;
	size_t bad = utf8_sanitize(s, len, &sb);

	j = json_stringn(sb.buf, sb.len);
	strbuf_release(&sb);
	if (!j) {
		/* Sanitized text is valid UTF-8: only running out of memory gets here (xalloc.h). */
		fputs("bringup: out of memory (JSON string)\n", stderr);
		abort();
	}
	if (ret_exact)
		*ret_exact = !bad;
	return j;
}

json_t *json_text_or_null(const char *s)
{
	return s ? json_text(s, strlen(s), NULL) : json_null();
}

void json_set_bytes(json_t *obj, const char *key, const char *s, size_t len)
{
	bool exact;

	json_object_set_new(obj, key, json_text(s, len, &exact));
	if (!exact) {
		struct strbuf b64 = STRBUF_INIT;
		char *k = xasprintf("%s_base64", key);

		base64_encode(s, len, &b64);
		json_object_set_new(obj, k, json_stringn(b64.buf, b64.len));
		free(k);
		strbuf_release(&b64);
	}
}

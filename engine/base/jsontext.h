/*
 * Bytes from hosts (command output, file contents, tool output) as JSON
 * strings without losing any of them.
 *
 * JSON strings are Unicode, and jansson refuses (returns NULL for) any
 * string that is not valid UTF-8, so a writer that passes host bytes
 * straight to json_stringn() silently drops the whole value when a host
 * prints Latin-1, binary, or a multi-byte character cut by an output cap.
 *
 * The rule everywhere we write JSON:
 *   - valid UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
 *     U+10FFFF) goes out as is;
 *   - each byte that is not part of a valid sequence becomes U+FFFD, so the
 *     text stays readable and the value is never dropped;
 *   - where bytes must come back exactly (exec's stdout/stderr), a sibling
 *     field KEY_base64 (RFC 4648, with padding) holds the original bytes,
 *     present only when KEY had a replacement. Absent KEY_base64, KEY is exact.
 */
#ifndef BRINGUP_JSONTEXT_H
#define BRINGUP_JSONTEXT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when s[0] does not start one. */
size_t utf8_seq_len(const unsigned char *s, size_t len);

/* Appends s with every byte outside a valid UTF-8 sequence as U+FFFD; returns the count replaced. */
size_t utf8_sanitize(const char *s, size_t len, struct strbuf *out);

/* Appends the RFC 4648 base64 of s (with '=' padding). */
void base64_encode(const char *s, size_t len, struct strbuf *out);

/* A JSON string of s as above; never NULL. *ret_exact (may be NULL): nothing was replaced. */
json_t *json_text(const char *s, size_t len, bool *ret_exact);

/* json_text of a C string, or JSON null for NULL. */
json_t *json_text_or_null(const char *s);

/* obj[key] = json_text(s), and obj[key + "_base64"] = the exact bytes when not exact. */
void json_set_bytes(json_t *obj, const char *key, const char *s, size_t len);

#endif

/*
 * Secret redaction; see redact.h.
 */
#include "redact.h"
#include "../base/strlist.h"
#include "../base/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct redactor {
	struct strlist secrets;   /* longest first, so that no secret leaves a tail */
};

struct redactor *redactor_new(void)
{
	return xcalloc(1, sizeof(struct redactor));
}

void redactor_free(struct redactor *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->secrets.n; i++)
		explicit_bzero(r->secrets.v[i], strlen(r->secrets.v[i]));
	strlist_clear(&r->secrets);
	free(r);
}

static int longer_first(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);

	return la < lb ? 1 : la > lb ? -1 : 0;
}

void redactor_add(struct redactor *r, const char *secret)
{
	if (!secret || strlen(secret) < 4 || strlist_index(&r->secrets, secret) >= 0)
		return;
	strlist_push(&r->secrets, secret);
	qsort(r->secrets.v, r->secrets.n, sizeof(*r->secrets.v), longer_first);
}

static bool secret_name(const char *key)
{
	static const char *const words[] = { "password", "passwd", "secret", "token",
					     "credential", "api_key", "apikey", "private_key" };
	char *low = xstrdup(key);
	bool hit = false;

	for (char *c = low; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]) && !hit; i++)
		hit = strstr(low, words[i]) != NULL;
	free(low);
	return hit;
}

static void add_all_strings(struct redactor *r, const json_t *v)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_string(v))
		redactor_add(r, json_string_value(v));
	else if (json_is_object(v))
		json_object_foreach((json_t *)v, k, x)
			add_all_strings(r, x);
	else if (json_is_array(v))
		json_array_foreach(v, i, x)
			add_all_strings(r, x);
}

void redactor_add_vars(struct redactor *r, const json_t *vars)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_object(vars)) {
		json_object_foreach((json_t *)vars, k, x) {
			if (secret_name(k))
				add_all_strings(r, x);
			else
				redactor_add_vars(r, x);
		}
	} else if (json_is_array(vars)) {
		json_array_foreach(vars, i, x)
			redactor_add_vars(r, x);
	}
}

void redactor_add_inventory(struct redactor *r, const struct inventory *inv)
{
	redactor_add_vars(r, inv->vars);
	for (size_t i = 0; i < ROLE__COUNT; i++)
		redactor_add_vars(r, inv->groups[i].vars);
	for (size_t i = 0; i < inv->nhosts; i++)
		redactor_add_vars(r, inv->hosts[i].vars);
}

void redact_into(const struct redactor *r, const char *s, size_t len, struct strbuf *out)
{
	size_t i = 0, run = 0;

	while (r && i < len) {
		size_t hit = 0;

		for (size_t k = 0; k < r->secrets.n && !hit; k++) {
			size_t sl = strlen(r->secrets.v[k]);

			if (sl <= len - i && s[i] == r->secrets.v[k][0] &&
			    !memcmp(s + i, r->secrets.v[k], sl))
				hit = sl;
		}
		if (!hit) {
			i++;
			continue;
		}
		strbuf_add(out, s + run, i - run);
		strbuf_addstr(out, REDACTED);
		i += hit;
		run = i;
	}
	strbuf_add(out, s + run, len - run);
}

char *redact_dup(const struct redactor *r, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	if (!s)
		return NULL;
	redact_into(r, s, strlen(s), &sb);
	return strbuf_detach(&sb, NULL);
}

void redact_strbuf(const struct redactor *r, struct strbuf *sb)
{
	struct strbuf tmp = STRBUF_INIT;

	if (!r || !r->secrets.n || !sb->len)
		return;
	redact_into(r, sb->buf, sb->len, &tmp);
	/* The old bytes held the secret: wipe them before they go back to malloc. */
	explicit_bzero(sb->buf, sb->len);
	strbuf_release(sb);
	*sb = tmp;
}

void redact_str(const struct redactor *r, char **s)
{
	char *m;

	if (!r || !r->secrets.n || !*s)
		return;
	m = redact_dup(r, *s);
	explicit_bzero(*s, strlen(*s));
	free(*s);
	*s = m;
}

void redact_json(const struct redactor *r, json_t *j)
{
	const char *k;
	json_t *x;
	size_t i;

	if (!r || !r->secrets.n)
		return;
	if (json_is_string(j)) {
		struct strbuf sb = STRBUF_INIT;

		redact_into(r, json_string_value(j), json_string_length(j), &sb);
		if (sb.len != json_string_length(j) ||
		    memcmp(sb.buf, json_string_value(j), sb.len))
			json_string_setn(j, sb.buf, sb.len);
		strbuf_release(&sb);
	} else if (json_is_object(j)) {
		json_object_foreach(j, k, x)
			redact_json(r, x);
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, x)
			redact_json(r, x);
	}
}

void redact_err(const struct redactor *r, struct err *e)
{
	redact_str(r, &e->msg);
}

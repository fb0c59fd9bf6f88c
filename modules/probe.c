/*
 * KEY=VALUE lines of the modules' state scripts (probe.h).
 */
#include "probe.h"

#include <string.h>

static const char *find_line(const char *out, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == '=')
			return p + klen + 1;
	return NULL;
}

bool probe_value(const char *out, const char *key, struct strbuf *val)
{
	const char *v = find_line(out, key);

	if (!v)
		return false;
	strbuf_add(val, v, strcspn(v, "\n"));
	return true;
}

bool probe_is(const char *out, const char *key, const char *value)
{
	const char *v = find_line(out, key);
	size_t len = v ? strcspn(v, "\n") : 0;

	return v && len == strlen(value) && !strncmp(v, value, len);
}

/*
 * @revoked and @cert-authority lines of known_hosts; see ssh-knownhosts.h.
 */
#include "ssh-knownhosts.h"
#include "../base/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One glob over [p, pend) against s: '*' any run, '?' any one character.
 * Iterative, keeping only the last '*' seen: when a later literal fails,
 * that star takes one more character and matching goes on from there. A
 * later star never needs an earlier one to give back, so this is exact and
 * at worst O(pattern x host); the recursive form was exponential in the
 * number of stars ("*a*a*a*a...b" against "aaaa..."), which a hostile or
 * mistaken known_hosts line could use to hang every connection.
 */
static bool glob_match(const char *p, const char *pend, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (p < pend && *p == '*') {
			star = ++p;
			resume = s;
		} else if (p < pend && (*p == '?' ||
					tolower((unsigned char)*p) == tolower((unsigned char)*s))) {
			p++;
			s++;
		} else if (star) {
			p = star;
			s = ++resume;
		} else {
			return false;
		}
	}
	while (p < pend && *p == '*')
		p++;
	return p == pend;
}

bool kh_host_matches(const char *patterns, const char *host)
{
	bool hit = false;

	while (*patterns) {
		const char *end = strchr(patterns, ',');
		bool neg = *patterns == '!';
		const char *p = patterns + neg;

		if (!end)
			end = patterns + strlen(patterns);
		if (glob_match(p, end, host)) {
			if (neg)
				return false;
			hit = true;
		}
		patterns = *end ? end + 1 : end;
	}
	return hit;
}

/* Splits off the next blank-separated field of *s; NULL at the end. */
static char *field(char **s)
{
	char *f;

	*s += strspn(*s, " \t");
	if (!**s)
		return NULL;
	f = *s;
	*s += strcspn(*s, " \t");
	if (**s)
		*(*s)++ = '\0';
	return f;
}

int kh_scan_markers(const char *path, const char *host, const char *key_b64,
		    struct kh_markers *ret, struct err *err)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	unsigned no = 0;

	memset(ret, 0, sizeof(*ret));
	if (!f)
		return errno == ENOENT ? 0 : err_set(err, ERR_HOSTKEY, "cannot read %s: %s",
						     path, strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
		char *s = line, *marker, *pats, *type, *key;

		no++;
		s[strcspn(s, "\r\n")] = '\0';
		marker = field(&s);
		if (!marker || *marker != '@' || !(pats = field(&s)) || !(type = field(&s)) ||
		    !(key = field(&s)))
			continue;
		if (!strcmp(marker, "@revoked") && !ret->revoked_line && !strcmp(key, key_b64))
			ret->revoked_line = no;
		else if (!strcmp(marker, "@cert-authority") && !ret->ca_line &&
			 kh_host_matches(pats, host))
			ret->ca_line = no;
	}
	free(line);
	fclose(f);
	return 0;
}

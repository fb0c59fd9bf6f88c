/*
 * Templates: the files under templates/ (manifests, configuration files,
 * remote scripts), embedded at build time by tools/embed.c. Never write such
 * text as string literals in C: find it here by its path.
 */
#ifndef BRINGUP_TEMPLATE_H
#define BRINGUP_TEMPLATE_H

#include <stddef.h>

struct template_asset {
	const char *name;          /* path under templates/, e.g. "facts.sh" */
	const unsigned char *data; /* NUL-terminated */
	size_t len;
	unsigned mode;
};

extern const struct template_asset template_assets[];
extern const unsigned template_nassets;

/* The template's text (NUL-terminated, static), or NULL when unknown. */
const char *template_get(const char *name, size_t *ret_len);

#endif

/* Lookup of embedded templates; see template.h. */
#include "template.h"

#include <string.h>

const char *template_get(const char *name, size_t *ret_len)
{
	for (unsigned i = 0; i < template_nassets; i++) {
		if (strcmp(template_assets[i].name, name))
			continue;
		if (ret_len)
			*ret_len = template_assets[i].len;
		return (const char *)template_assets[i].data;
	}
	return NULL;
}

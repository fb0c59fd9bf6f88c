/* The loader shared by lazy-curl.c and lazy-archive.c (lazylib-impl.h). */
#include "lazylib-impl.h"
#include "xalloc.h"

#include <dlfcn.h>

const char *lazylib_load(const char *soname, const struct lazy_sym *syms, size_t n)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return xstrdup(dlerror());
	for (size_t i = 0; i < n; i++)
		if (!(*syms[i].slot = dlsym(h, syms[i].name)))
			return xasprintf("%s: no symbol %s", soname, syms[i].name);
	return NULL;
}

int lazylib_report(const char *library, const char *why, const char *packages, struct err *err)
{
	return err_set(err, ERR_STATE, "cannot load %s (%s): install it (%s)", library, why,
		       packages);
}

/*
 * What lazy-curl.c and lazy-archive.c share (lazylib.h says why they
 * exist): a library's functions listed once, as X(name, return type,
 * (parameters), (arguments), value without the library) and V(name,
 * (parameters), (arguments)) for those returning nothing, give the pointers,
 * the symbol table and the forwarding definitions. Each file has its own
 * `once` and `load_error`, and a load() that calls lazylib_load.
 */
#ifndef BRINGUP_LAZYLIB_IMPL_H
#define BRINGUP_LAZYLIB_IMPL_H

#include <pthread.h>
#include <stddef.h>

#include "lazylib.h"

struct lazy_sym {
	const char *name;
	void **slot; /* the address of a function pointer, written as dlsym gives it */
};

/*
 * dlopen(soname) and dlsym of every symbol into its slot; NULL when all
 * resolved, else why not (allocated once, kept for the process).
 */
const char *lazylib_load(const char *soname, const struct lazy_sym *syms, size_t n);
/* ERR_STATE: LIBRARY cannot be loaded (WHY): install PACKAGES. */
int lazylib_report(const char *library, const char *why, const char *packages, struct err *err);

#define LAZY_POINTER(name, ret, params, args, fail) static ret(*p_##name) params;
#define LAZY_POINTER_V(name, params, args) static void(*p_##name) params;
/* (POSIX's way to store dlsym's answer in a function pointer) */
#define LAZY_SYM(name, ...) { #name, (void **)&p_##name },
#define LAZY_SYM_V(name, ...) LAZY_SYM(name)
#define LAZY_FORWARD(name, ret, params, args, fail) \
	ret name params \
	{ \
		pthread_once(&once, load); \
		return load_error ? (fail) : p_##name args; \
	}
#define LAZY_FORWARD_V(name, params, args) \
	void name params \
	{ \
		pthread_once(&once, load); \
		if (!load_error) \
			p_##name args; \
	}

#endif

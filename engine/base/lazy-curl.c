/*
 * libcurl, loaded on first use (lazylib.h): the functions bringup calls,
 * defined here under their own names, each forwarding to the library. The
 * prototypes come from <curl/curl.h> (its type-checking macros are off in
 * this file only, so that the names can be defined).
 *
 * curl_easy_setopt and curl_easy_getinfo take one argument after the
 * option, whose type the option's number says: libcurl reads it the same
 * way (lib/setopt.c, Curl_vsetopt: CURLOPTTYPE_LONG below 10000, then
 * object pointers, function pointers, curl_off_t, blobs; every CURLINFO
 * takes a pointer).
 */
#define CURL_DISABLE_TYPECHECK 1
#include "lazylib-impl.h"

#include <curl/curl.h>
#include <stdarg.h>

#define CURL_FUNCS(X, V)                                                                   \
	X(curl_global_init, CURLcode, (long flags), (flags), CURLE_FAILED_INIT)                \
	X(curl_easy_init, CURL *, (void), (), NULL)                                            \
	X(curl_easy_perform, CURLcode, (CURL *c), (c), CURLE_FAILED_INIT)                      \
	X(curl_easy_strerror, const char *, (CURLcode cc), (cc), load_error)                   \
	X(curl_slist_append, struct curl_slist *, (struct curl_slist *l, const char *s),       \
	  (l, s), NULL)                                                                        \
	V(curl_easy_reset, (CURL *c), (c))                                                     \
	V(curl_easy_cleanup, (CURL *c), (c))                                                   \
	V(curl_slist_free_all, (struct curl_slist *l), (l))

CURL_FUNCS(LAZY_POINTER, LAZY_POINTER_V)
static CURLcode (*p_curl_easy_setopt)(CURL *c, CURLoption o, ...);
static CURLcode (*p_curl_easy_getinfo)(CURL *c, CURLINFO i, ...);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_error; /* why the library is not there; NULL once loaded */

static void load(void)
{
	static const struct lazy_sym syms[] = {
		CURL_FUNCS(LAZY_SYM, LAZY_SYM_V)
		LAZY_SYM(curl_easy_setopt)
		LAZY_SYM(curl_easy_getinfo)
	};

	load_error = lazylib_load(LAZYLIB_CURL_SONAME, syms, sizeof(syms) / sizeof(*syms));
}

int lazylib_curl(struct err *err)
{
	pthread_once(&once, load);
	return load_error ? lazylib_report("libcurl", load_error, "Debian: libcurl4, RHEL: libcurl",
					   err) : 0;
}

CURL_FUNCS(LAZY_FORWARD, LAZY_FORWARD_V)

CURLcode curl_easy_setopt(CURL *c, CURLoption o, ...)
{
	CURLcode cc;
	va_list ap;

	pthread_once(&once, load);
	if (load_error)
		return CURLE_FAILED_INIT;
	va_start(ap, o);
	if (o < CURLOPTTYPE_OBJECTPOINT)
		cc = p_curl_easy_setopt(c, o, va_arg(ap, long));
	else if (o < CURLOPTTYPE_FUNCTIONPOINT)
		cc = p_curl_easy_setopt(c, o, va_arg(ap, void *));
	else if (o < CURLOPTTYPE_OFF_T)
		cc = p_curl_easy_setopt(c, o, va_arg(ap, void (*)(void)));
	else if (o < CURLOPTTYPE_BLOB)
		cc = p_curl_easy_setopt(c, o, va_arg(ap, curl_off_t));
	else
		cc = p_curl_easy_setopt(c, o, va_arg(ap, void *));
	va_end(ap);
	return cc;
}

CURLcode curl_easy_getinfo(CURL *c, CURLINFO i, ...)
{
	CURLcode cc;
	va_list ap;

	pthread_once(&once, load);
	if (load_error)
		return CURLE_FAILED_INIT;
	va_start(ap, i);
	cc = p_curl_easy_getinfo(c, i, va_arg(ap, void *));
	va_end(ap);
	return cc;
}

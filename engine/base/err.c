/* Error values with context; see err.h. */
#include "err.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const names[] = {
	[0] = "ok",
	[1] = "usage error",
	[2] = "I/O error",
	[3] = "parse error",
	[4] = "inventory error",
	[5] = "connection failed",
	[6] = "host key verification failed",
	[7] = "authentication failed",
	[8] = "timed out",
	[9] = "SSH error",
	[10] = "remote command failed",
	[11] = "not found",
	[12] = "invalid state",
	[13] = "cancelled",
	[14] = "internal error",
	[15] = "deferred",
	[16] = "another release runs",
};

const char *err_str(int code)
{
	unsigned idx = (unsigned)(code < 0 ? -code : code);

	if (idx < sizeof(names) / sizeof(names[0]) && names[idx])
		return names[idx];
	return "unknown error";
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (!e)
		return code;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	free(e->msg);
	e->msg = msg;
	e->code = code;
	return code;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	va_list ap;
	char *pre = NULL, *msg;

	if (!e)
		return ERR_INTERNAL;
	va_start(ap, fmt);
	if (vasprintf(&pre, fmt, ap) < 0)
		pre = NULL;
	va_end(ap);
	msg = xasprintf("%s%s", pre ? pre : "", err_msg(e));
	free(pre);
	free(e->msg);
	e->msg = msg;
	return e->code;
}

const char *err_msg(const struct err *e)
{
	if (!e)
		return "";
	return e->msg ? e->msg : err_str(e->code);
}

void err_clear(struct err *e)
{
	if (!e)
		return;
	free(e->msg);
	e->msg = NULL;
	e->code = 0;
}

/*
 * Errors are values: every engine function that can fail returns one of the
 * negative codes below and, when given a struct err, fills it with a message
 * carrying context (file:line:column, host and step). Only cmd/ decides what
 * an error means for the exit status.
 *
 * The code list is append-only so that codes stay stable in logs and JSON.
 */
#ifndef BRINGUP_ERR_H
#define BRINGUP_ERR_H

enum err_code {
	ERR_OK = 0,
	ERR_USAGE = -1,      /* bad command line */
	ERR_IO = -2,         /* local file or system call failed */
	ERR_PARSE = -3,      /* malformed input (YAML, tool output) */
	ERR_INVENTORY = -4,  /* inventory semantically invalid */
	ERR_CONNECT = -5,    /* host unreachable / refused / connect timeout */
	ERR_HOSTKEY = -6,    /* unknown or changed host key */
	ERR_AUTH = -7,       /* authentication failed */
	ERR_TIMEOUT = -8,    /* a remote step exceeded its time limit */
	ERR_SSH = -9,        /* protocol or channel error after connect */
	ERR_REMOTE = -10,    /* remote command failed */
	ERR_NOTFOUND = -11,  /* named thing does not exist */
	ERR_STATE = -12,     /* operation not valid in the current state */
	ERR_CANCELLED = -13, /* stopped on request (SIGINT) */
	ERR_INTERNAL = -14,
	ERR_DEFERRED = -15,  /* internal: a check stopped at its first command (prefetch) */
	ERR_RELEASE = -16,   /* a host runs another release than asked: only an upgrade changes it */
};

struct err {
	int code;
	char *msg; /* owned; NULL when no error was set */
};

#define ERR_INIT { 0, NULL }

/* Sets code and message (replacing any previous one); returns code. */
int err_set(struct err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prefixes the existing message with more context ("host dgx01: ..."). */
int err_prefix(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *err_str(int code);
/* The message, or err_str(code) when none was set; never NULL. */
const char *err_msg(const struct err *e);
void err_clear(struct err *e);

#endif

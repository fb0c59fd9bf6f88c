/*
 * The process's budget of open files: raising the soft RLIMIT_NOFILE to the
 * hard limit, counting what is open now, and the message that says when the
 * limit is why something failed.
 */
#ifndef BRINGUP_FDLIMIT_H
#define BRINGUP_FDLIMIT_H

#include <stdbool.h>

/*
 * Raises the soft limit of open files to the hard one (capped at what the
 * kernel allows a process) and returns the soft limit now in force. Safe to
 * call more than once.
 */
unsigned fd_limit_raise(void);
/* Descriptors open in this process now (an estimate of 16 when /proc is missing). */
unsigned fd_count_open(void);
/* Whether an error message says a descriptor could not be created (EMFILE/ENFILE). */
bool fd_limit_hit(const char *msg);

#endif

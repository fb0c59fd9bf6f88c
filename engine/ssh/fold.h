/*
 * Folding output as it arrives: hosts whose stdout and stderr are
 * byte-identical share one copy, kept with the set of hosts that printed it,
 * so that memory grows with the number of distinct outputs, not of hosts.
 * Large outputs spill to an unlinked temporary file (mode 0600) while they
 * are still arriving; only a small head of each stream stays in memory.
 *
 * Threads: fold_out_sink() runs on the workers (one fold_out per host, so
 * one thread per fold_out); everything else runs on one thread (the one
 * that receives the runner's events).
 */
#ifndef BRINGUP_FOLD_H
#define BRINGUP_FOLD_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"
#include "../base/strbuf.h"

/* Bytes of a stream kept in memory before the stream spills to the file. */
#define FOLD_SPILL_AT (64u << 10)

struct fold;
struct fold_out;

/* Owned by the caller (fold_free). The spill file is made on first need in
 * $TMPDIR (else /tmp). */
struct fold *fold_new(void);
void fold_free(struct fold *f);

/* One host's output, filled by fold_out_sink; owned by the caller until
 * fold_add or fold_out_free. */
struct fold_out *fold_out_new(struct fold *f);
void fold_out_free(struct fold_out *o);
/* A struct remote_cmd sink: arg is the fold_out; stream 0 stdout, 1 stderr. */
void fold_out_sink(void *arg, int stream, const char *buf, size_t len);

/* Files o (then freed) under the group of identical output, as host `pos`
 * (the caller's index: groups and their hosts come back in its order). */
void fold_add(struct fold *f, struct fold_out *o, size_t pos);

/* Groups in the order of their first host; hosts of a group ascending. */
size_t fold_ngroups(struct fold *f);
const size_t *fold_group_hosts(struct fold *f, size_t g, size_t *n);
size_t fold_group_len(struct fold *f, size_t g, int stream);
/* The group that host pos is in; (size_t)-1 if it was never added. */
size_t fold_group_of(struct fold *f, size_t pos);
/*
 * Hands a group's stream to fn in pieces, in order. 0, or ERR_IO (err says
 * why) when the spill file cannot be read back.
 */
int fold_group_read(struct fold *f, size_t g, int stream,
		    void (*fn)(void *arg, const char *buf, size_t len), void *arg,
		    struct err *err);
/* The same into a strbuf (appended). */
int fold_group_get(struct fold *f, size_t g, int stream, struct strbuf *sb,
		   struct err *err);

#endif

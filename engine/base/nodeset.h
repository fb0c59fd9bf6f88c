/*
 * Node sets in the ClusterShell style: "dgx[01-16]", "ib[1-4,7]",
 * "dgx[01-02],scale00", "rack[1-2]-n[01-04]".
 *
 * Expansion keeps zero padding ("[01-16]" gives dgx01..dgx16); folding is the
 * inverse, used to print many hosts as one short set (`clush -b`).
 */
#ifndef BRINGUP_NODESET_H
#define BRINGUP_NODESET_H

#include "err.h"
#include "strlist.h"

/* Upper bound on the names one pattern may expand to (a typo such as
 * "dgx[1-1000000]" must fail, not exhaust memory). */
#define NODESET_MAX 65536

/*
 * Appends the names of `pattern` (comma-separated items, each with any
 * number of [..] ranges) to `out`, in order. Returns 0 or ERR_PARSE with a
 * message naming the column (1-based) where the pattern went wrong.
 */
int nodeset_expand(const char *pattern, struct strlist *out, struct err *err);

/*
 * Same, for callers that know where the pattern sits in a file: the message
 * says only what was found and what was expected, and *ret_pos gets the
 * 0-based offset into `pattern` where it went wrong, to be turned into a
 * line:column. On error `out` is left as it was.
 */
int nodeset_expand_at(const char *pattern, struct strlist *out,
		      size_t *ret_pos, struct err *err);

/*
 * Folds names into the shortest node-set string: names that differ only in
 * their last number fold into ranges ("dgx[01-03,07],scale00"). Order of
 * prefixes follows first appearance. Returns a new string; caller frees.
 */
char *nodeset_fold(char *const *names, size_t n);

#endif

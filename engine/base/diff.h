/*
 * A small unified diff of two texts, for `deploy --check` to show what a
 * file would become. Files we manage are small; past DIFF_MAX_LINES lines
 * a side, the diff says only that they differ.
 */
#ifndef BRINGUP_DIFF_H
#define BRINGUP_DIFF_H

#include "strbuf.h"

#define DIFF_MAX_LINES 2000

/*
 * Appends the diff from `a` to `b` ("--- A_NAME", "+++ B_NAME", @@ hunks
 * with 3 lines of context) to `out`; nothing when they are equal.
 */
void diff_unified(const char *a_name, const char *a, const char *b_name,
		  const char *b, struct strbuf *out);

#endif

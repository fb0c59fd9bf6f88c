/*
 * Reading the KEY=VALUE lines the modules' state scripts print (one fact a
 * line, in templates/NAME/state.sh and the like).
 */
#ifndef BRINGUP_MODULES_PROBE_H
#define BRINGUP_MODULES_PROBE_H

#include <stdbool.h>

#include "../engine/base/strbuf.h"

/*
 * Appends the value of the first line "KEY=VALUE" of `out` to `val`
 * (without the newline). Returns false, appending nothing, when no line
 * starts with KEY=.
 */
bool probe_value(const char *out, const char *key, struct strbuf *val);
/* True when the line "KEY=VALUE" is in `out`. */
bool probe_is(const char *out, const char *key, const char *value);

#endif

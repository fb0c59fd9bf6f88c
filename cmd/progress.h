/*
 * The compact live status that deploy and precheck print on a terminal
 * without --tui: one line per stage (a bar and counts) redrawn in place,
 * and each failure as its own line the moment it happens. It reads the
 * same event stream as the TUI (it keeps tui/model.c's counts); pipes and
 * logs get the line-per-event form instead.
 */
#ifndef BRINGUP_CMD_PROGRESS_H
#define BRINGUP_CMD_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "../engine/base/event.h"

struct progress;

/* f must be a terminal; caller frees with progress_free (which draws the last frame). */
struct progress *progress_new(FILE *f, const struct run_info *ri, bool colour);
/* Matches dep_event_fn; on the thread that delivers events. */
void progress_event(const struct dep_event *ev, void *progress);
void progress_free(struct progress *p);

#endif

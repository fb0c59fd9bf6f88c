/*
 * Compact live status on a terminal (progress.h): a block of one line per
 * stage started, rewritten in place at most every REDRAW_MS, with failures
 * printed above it as they come.
 */
#include "progress.h"
#include "../engine/base/xalloc.h"
#include "../tui/model.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REDRAW_MS 100
#define BAR 24

struct progress {
	FILE *f;
	bool colour;
	struct model m;
	bool *started;          /* per stage */
	size_t shown;           /* lines of the block on screen now */
	double last;
};

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct progress *progress_new(FILE *f, const struct run_info *ri, bool colour)
{
	struct progress *p = xcalloc(1, sizeof(*p));

	p->f = f;
	p->colour = colour;
	model_init(&p->m, ri);
	p->started = xcalloc(ri->nstages + 1, sizeof(*p->started));
	return p;
}

static void erase_block(struct progress *p)
{
	if (p->shown)
		fprintf(p->f, "\033[%zuA\r\033[J", p->shown);
	p->shown = 0;
}

static void draw_block(struct progress *p)
{
	const struct model *m = &p->m;

	for (size_t s = 0; s < m->nst; s++) {
		const size_t *c = &m->stage_count[s * CS__COUNT];
		size_t total = m->nh - c[CS_NONE];
		size_t done = total - c[CS_PENDING] - c[CS_RUNNING];
		size_t fill = total ? done * BAR / total : 0;
		char bar[BAR + 1];

		if (!p->started[s])
			continue;
		memset(bar, '#', fill);
		memset(bar + fill, '.', BAR - fill);
		bar[BAR] = '\0';
		fprintf(p->f, "%-16s [%s] %zu/%zu", m->stages.v[s], bar, done, total);
		for (int st = CS_OK; st < CS__COUNT; st++)
			if (c[st] && st != CS_PENDING)
				fprintf(p->f, " %s%s=%zu%s", p->colour && st == CS_FAILED ? "\033[31;1m" : "",
					cstate_name((enum cstate)st), c[st],
					p->colour && st == CS_FAILED ? "\033[0m" : "");
		fputs("\033[K\n", p->f);
		p->shown++;
	}
	fflush(p->f);
	p->last = mono_ms();
}

void progress_event(const struct dep_event *ev, void *arg)
{
	struct progress *p = arg;
	bool now = false;

	model_apply(&p->m, ev);
	if (ev->kind == DEV_STAGE_START && ev->stage < p->m.nst) {
		p->started[ev->stage] = true;
		now = true;
	}
	if (ev->kind == DEV_HOST_DONE &&
	    (ev->result == RES_FAILED || ev->result == RES_UNREACHABLE)) {
		/* a failure is a line of its own, above the block, kept on screen */
		erase_block(p);
		fprintf(p->f, "%s%s %s %s%s%s%s\n", p->colour ? "\033[31;1m" : "",
			ev->stage_name ? ev->stage_name : "?", ev->host,
			host_result_name(ev->result), p->colour ? "\033[0m" : "",
			ev->reason ? ": " : "", ev->reason ? ev->reason : "");
		if (ev->hint)
			fprintf(p->f, "  hint: %s\n", ev->hint);
		now = true;
	}
	if (ev->kind == DEV_STAGE_DONE || ev->kind == DEV_RUN_DONE)
		now = true;
	if (now || mono_ms() - p->last >= REDRAW_MS) {
		erase_block(p);
		draw_block(p);
	}
}

void progress_free(struct progress *p)
{
	if (!p)
		return;
	erase_block(p);
	draw_block(p);
	model_release(&p->m);
	free(p->started);
	free(p);
}

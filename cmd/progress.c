/*
 * Compact live status on a terminal (progress.h): a block of one line per
 * stage started, rewritten in place at most every REDRAW_MS, with failures
 * printed above it as they come. On a terminal that cannot move the cursor
 * (TERM=dumb or unset) nothing is rewritten: a stage's line is printed
 * once, when it ends.
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
	bool plain;             /* no cursor movement: lines once, at each stage's end */
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

	const char *term = getenv("TERM");

	p->f = f;
	p->plain = !term || !*term || !strcmp(term, "dumb");
	p->colour = colour && !p->plain;
	model_init(&p->m, ri);
	if (p->m.dry_run)
		fprintf(f, "DRY RUN (--check): nothing is changed\n");
	p->started = xcalloc(ri->nstages + 1, sizeof(*p->started));
	return p;
}

static void erase_block(struct progress *p)
{
	if (p->shown && !p->plain)
		fprintf(p->f, "\033[%zuA\r\033[J", p->shown);
	p->shown = 0;
}

static void stage_line(struct progress *p, size_t s)
{
	const struct model *m = &p->m;
	const size_t *c = &m->stage_count[s * CS__COUNT];
	size_t total, done, fill;
	char bar[BAR + 1];

	model_stage_progress(m, s, &done, &total);
	fill = total ? done * BAR / total : 0;
	memset(bar, '#', fill);
	memset(bar + fill, '.', BAR - fill);
	bar[BAR] = '\0';
	fprintf(p->f, "%-16s [%s] %zu/%zu", m->stages.v[s], bar, done, total);
	for (int st = CS_OK; st < CS__COUNT; st++)
		if (c[st] && st != CS_PENDING && st != CS_NOTHERE)
			fprintf(p->f, " %s%s=%zu%s", p->colour && st == CS_FAILED ? "\033[31;1m" : "",
				st == CS_CHANGED && m->dry_run ? "would-change" :
				cstate_name((enum cstate)st), c[st],
				p->colour && st == CS_FAILED ? "\033[0m" : "");
	fputs(p->plain ? "\n" : "\033[K\n", p->f);
}

static void draw_block(struct progress *p)
{
	const struct model *m = &p->m;

	if (p->plain)
		return;
	for (size_t s = 0; s < m->nst; s++) {
		if (!p->started[s])
			continue;
		stage_line(p, s);
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
	if (p->plain && ev->kind == DEV_STAGE_DONE && ev->stage < p->m.nst) {
		stage_line(p, ev->stage);
		fflush(p->f);
	}
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

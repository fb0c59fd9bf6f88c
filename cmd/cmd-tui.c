/*
 * bringup tui: the full-screen view of a deploy (`tui -i INV` is `deploy
 * --tui`), of a recorded run played again (`--replay RUN_DIR`), or of a run
 * another process is making, read from its event log as it grows
 * (`--attach RUN_DIR`, read-only).
 */
#include "cmd.h"
#include "../engine/base/eventlog.h"
#include "../engine/base/strbuf.h"
#include "../engine/base/xalloc.h"
#include "../tui/tui.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * tui's own options; everything else goes to deploy's parser (deploy's
 * table documents those).
 */
const struct cmd_option cmd_tui_options[] = {
	{ "replay", 'r', OPT_DIR, "RUN_DIR", "replay a recorded run (its events.jsonl) instead of deploying" },
	{ "attach", 'a', OPT_DIR, "RUN_DIR", "watch a run started elsewhere as it goes (read-only)" },
	{ "speed", 's', 0, "X", "replay X times as fast (default 1; 0: at once)" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup tui -i INVENTORY [-p PLAYBOOK] [deploy options]\n"
		"       bringup tui --replay RUN_DIR [--speed X]\n"
		"       bringup tui --attach RUN_DIR\n"
		"\n"
		"A full-screen view of a deploy: hosts by stages, with a glyph and colour per\n"
		"state, a bar per stage with its hosts done/total, hosts per state in the\n"
		"header, and the chosen host's output, result, reason and hint, with the\n"
		"stage's ETA. Many hosts in the same state fold into node sets (Enter opens\n"
		"one). `bringup tui -i INV` is `bringup deploy -i INV --tui` and takes deploy's\n"
		"options; with --check the screen says DRY RUN and c lists what would change.\n"
		"\n"
		"      --replay RUN_DIR   play a recorded run (RUN_DIR/events.jsonl) again\n"
		"      --speed X          replay X times as fast (default 1; 0: at once)\n"
		"      --attach RUN_DIR   watch a run another bringup is making (deploy, precheck,\n"
		"                         validate, upgrade: whatever writes RUN_DIR/events.jsonl),\n"
		"                         read-only: q leaves, the run goes on\n"
		"\n"
		"Keys: arrows, j/k, PgUp/PgDn, Home/End, g/G move; Enter details (or opens a\n"
		"group); Esc back; / filter by node set or text; f failures only; F every\n"
		"failure in full; c what changed; p pause (no new work starts); r retry the\n"
		"failed hosts of the chosen stage; R retry the chosen host now (with the\n"
		"cluster-wide stages it missed), S skip its remaining stages, x, F9 or ^K\n"
		"stop it (its running command killed; both ask); l the host's log (follows;\n"
		"/ n N search); ^L redraw; ^Z suspend; ? help; q quit (asks while work is\n"
		"running, then stops as SIGINT does: --resume goes on).\n"
		"States: \u00b7 pending, spinner running, \u2713 ok, \u25cf changed, \u2717 failed,\n"
		"\u00bb skipped, \u2298 unreachable, \u2013 not here (a run-once stage ran elsewhere)\n"
		"(ASCII outside UTF-8: . | o + X > U -); NO_COLOR is honoured.\n"
		"Without a terminal, or with TERM=dumb, deploy's plain lines are printed instead.\n");
}

static void replay_pause(void *arg, bool paused)
{
	(void)arg;
	(void)paused; /* the replay loop asks tui_paused() */
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int replay(const char *dir, double speed)
{
	struct replay *r = NULL;
	struct tui *t = NULL;
	struct err err = ERR_INIT;
	struct tui_ctl ctl = { replay_pause, NULL, NULL, NULL, NULL, true, false };
	double start, held = 0;
	int status = EXIT_OK;

	if (replay_load(dir, &r, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "bringup tui: --replay needs a terminal\n");
		status = EXIT_USAGE;
		goto out;
	}
	if (tui_new(&r->info, &ctl, &t, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	cmd_interrupt_on_exit(tui_restore_terminal);
	start = mono();
	for (size_t i = 0; i < r->n && !tui_stop_asked(t); i++) {
		for (;;) {
			double due = speed > 0 ? r->ev[i].t / speed : 0;
			double now = mono() - start - held, step;

			if (tui_stop_asked(t))
				break;
			if (tui_paused(t)) {
				sleep_s(0.05);
				held += 0.05;
				continue;
			}
			if (now >= due)
				break;
			step = due - now;
			sleep_s(step > 0.05 ? 0.05 : step);
		}
		tui_event(&r->ev[i], t);
	}
	if (!tui_stop_asked(t))
		tui_wait(t);
out:
	tui_free(t);
	cmd_interrupt_on_exit(NULL);
	replay_free(r);
	err_clear(&err);
	return status;
}

/* Feeds the complete lines of buf after the description line `head`; keeps the rest. */
static int attach_feed(const char *path, const struct strbuf *head, struct strbuf *buf,
		       struct tui *t, struct err *err)
{
	struct strbuf chunk = STRBUF_INIT;
	struct replay *r = NULL;
	size_t used = buf->len;
	int rc;

	while (used && buf->buf[used - 1] != '\n')
		used--;
	if (!used)
		return 0;
	strbuf_add(&chunk, head->buf, head->len);
	strbuf_add(&chunk, buf->buf, used);
	rc = replay_load_buf(path, chunk.buf, chunk.len, &r, err);
	for (size_t i = 0; !rc && i < r->n; i++)
		tui_event(&r->ev[i], t);
	replay_free(r);
	strbuf_release(&chunk);
	memmove(buf->buf, buf->buf + used, buf->len - used);
	strbuf_setlen(buf, buf->len - used);
	return rc;
}

/*
 * --attach: RUN_DIR/events.jsonl as it grows (the writer flushes a line at
 * a time), until the user leaves. Nothing is sent to the run: no pause,
 * retry or stop from here.
 */
static int attach(const char *dir)
{
	char *path = xasprintf("%s/events.jsonl", dir);
	struct strbuf head = STRBUF_INIT, buf = STRBUF_INIT;
	struct tui_ctl ctl = { NULL, NULL, NULL, NULL, NULL, false, true };
	struct err err = ERR_INIT;
	struct replay *r = NULL;
	struct tui *t = NULL;
	char chunk[65536];
	size_t got;
	FILE *f = NULL;
	int status = EXIT_OK;

	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO) || !tui_term_ok()) {
		fprintf(stderr, "bringup tui: --attach needs a terminal that can take the TUI\n");
		status = EXIT_USAGE;
		goto out;
	}
	/* a run just started may not have written its description yet */
	for (int i = 0; i < 100 && !(f = fopen(path, "r")); i++)
		sleep_s(0.1);
	if (!f) {
		err_set(&err, ERR_NOTFOUND, "%s: %s (not a run directory, or its run has not "
			"started)", path, strerror(errno));
		status = cmd_fail(&err);
		goto out;
	}
	for (int i = 0; i < 100 && !memchr(head.buf ? head.buf : "", '\n', head.len); i++) {
		while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
			strbuf_add(&head, chunk, got);
		clearerr(f);
		if (!memchr(head.buf ? head.buf : "", '\n', head.len))
			sleep_s(0.1);
	}
	{
		char *nl = head.len ? memchr(head.buf, '\n', head.len) : NULL;
		size_t hl = nl ? (size_t)(nl - head.buf) + 1 : 0;

		strbuf_add(&buf, head.buf + hl, head.len - hl);
		strbuf_setlen(&head, hl);
	}
	if (replay_load_buf(path, head.buf ? head.buf : "", head.len, &r, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	r->info.run_dir = dir;
	if (tui_new(&r->info, &ctl, &t, &err)) {
		status = cmd_fail(&err);
		goto out;
	}
	cmd_interrupt_on_exit(tui_restore_terminal);
	while (!tui_stop_asked(t)) {
		while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
			strbuf_add(&buf, chunk, got);
		clearerr(f);
		if (attach_feed(path, &head, &buf, t, &err)) {
			tui_free(t);
			t = NULL;
			status = cmd_fail(&err);
			goto out;
		}
		sleep_s(0.1);
	}
out:
	tui_free(t);
	cmd_interrupt_on_exit(NULL);
	if (f)
		fclose(f);
	replay_free(r);
	strbuf_release(&head);
	strbuf_release(&buf);
	free(path);
	err_clear(&err);
	return status;
}

int cmd_tui(const struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *dir = NULL, *watch = NULL;
	double speed = 1;
	bool other = false, speed_given = false;
	char **dargv;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return EXIT_OK;
		}
		if (!strcmp(argv[i], "--replay") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--attach") && i + 1 < argc) {
			watch = argv[++i];
		} else if (!strcmp(argv[i], "--speed") && i + 1 < argc) {
			char *end;

			speed = strtod(argv[++i], &end);
			speed_given = true;
			if (*end || end == argv[i] || speed < 0) {
				fprintf(stderr, "bringup tui: --speed must be a number >= 0\n");
				return EXIT_USAGE;
			}
		} else {
			other = true;
		}
	}
	if (watch && (dir || other || speed_given)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (watch)
		return attach(watch);
	if (dir ? other : speed_given) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (dir)
		return replay(dir, speed);
	/* deploy's own parser takes the rest */
	dargv = xcalloc((size_t)argc + 2, sizeof(*dargv));
	dargv[0] = "deploy";
	for (int i = 1; i < argc; i++)
		dargv[i] = argv[i];
	dargv[argc] = "--tui";
	{
		struct cmd_ctx dctx = { cmd_ctx_find(ctx, "deploy"), ctx->commands, ctx->ncommands };

		rc = cmd_deploy(&dctx, argc + 1, dargv);
	}
	free(dargv);
	return rc;
}

/*
 * bringup tui: the full-screen view of a deploy (`tui -i INV` is `deploy
 * --tui`), or of a recorded run played again (`--replay RUN_DIR`).
 */
#include "cmd.h"
#include "../engine/base/eventlog.h"
#include "../engine/base/xalloc.h"
#include "../tui/tui.h"

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
	{ "speed", 's', 0, "X", "replay X times as fast (default 1; 0: at once)" },
	{ "help", 'h', OPT_SHORT, NULL, "print this help" },
	{ NULL },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bringup tui -i INVENTORY [-p PLAYBOOK] [deploy options]\n"
		"       bringup tui --replay RUN_DIR [--speed X]\n"
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
		"\n"
		"Keys: arrows, j/k, PgUp/PgDn, Home/End, g/G move; Enter details (or opens a\n"
		"group); Esc back; / filter by node set or text; f failures only; F every\n"
		"failure in full; c what changed; p pause (no new work starts); r retry the\n"
		"failed hosts of the chosen stage; l the host's log (follows; / n N search);\n"
		"^L redraw; ^Z suspend; ? help; q quit (asks while work is running, then\n"
		"stops as SIGINT does: --resume goes on).\n"
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
	struct tui_ctl ctl = { replay_pause, NULL, NULL, NULL, NULL, true };
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

int cmd_tui(int argc, char **argv)
{
	const char *dir = NULL;
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
	rc = cmd_deploy(argc + 1, dargv);
	free(dargv);
	return rc;
}

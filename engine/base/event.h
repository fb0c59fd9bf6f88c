/*
 * Deploy events: what `bringup deploy` reports as it goes, in the order it
 * happens. engine/deploy/deploy.c produces them on the caller's thread; cmd/ (the
 * text and JSON writers) and later the TUI consume them. Nothing here
 * prints.
 */
#ifndef BRINGUP_EVENT_H
#define BRINGUP_EVENT_H

#include <stddef.h>

#include "strlist.h"

enum dep_event_kind {
	DEV_STAGE_START,   /* stage, hosts (node set of the stage's hosts) */
	DEV_HOST_START,    /* stage, host */
	DEV_OUTPUT,        /* stage, host, msg: a line of progress */
	DEV_HOST_DONE,     /* stage, host, result, reason, changes, duration */
	DEV_STAGE_DONE,    /* stage */
	DEV_RUN_DONE,      /* the whole run; interrupted says whether SIGINT stopped it */
	DEV_CONTROL,       /* stage, host, msg: what an admin did to one host (retry,
			    * skip, stop) and who; the stage is where it acts */
};

/* Per host and stage. Order matters: the summary prints in this order. */
enum host_result {
	RES_NONE = 0,      /* not reached (not in the stage's hosts) */
	RES_OK,            /* already in the desired state */
	RES_CHANGED,       /* changes made (with --check: would be made) */
	RES_FAILED,
	RES_SKIPPED,       /* with a reason: tags, an earlier failure, done before... */
	RES_UNREACHABLE,   /* the host refused or never answered: nothing ran there */
	RES__COUNT
};

const char *host_result_name(enum host_result r);

struct dep_event {
	enum dep_event_kind kind;
	size_t stage;              /* index into the playbook's stages */
	const char *stage_name;
	const char *host;          /* NULL for stage and run events */
	const char *hosts;         /* DEV_STAGE_START: folded node set */
	enum host_result result;   /* DEV_HOST_DONE */
	const char *reason;        /* DEV_HOST_DONE: why failed/skipped; may be NULL */
	const struct strlist *changes; /* DEV_HOST_DONE: one line each */
	const struct strlist *diffs;   /* parallel to changes; "" when none */
	const char *msg;           /* DEV_OUTPUT, DEV_CONTROL */
	const char *hint;          /* DEV_HOST_DONE: what to do next (precheck, validate); may be NULL */
	double duration_s;         /* DEV_HOST_DONE */
	unsigned limit_s;          /* DEV_HOST_START: each command's time limit there; 0: none */
	double t;                  /* seconds since the run started */
	int interrupted;           /* DEV_RUN_DONE */
};

typedef void (*dep_event_fn)(const struct dep_event *ev, void *arg);

/*
 * What a consumer of the stream needs before the first event: the matrix's
 * rows and columns. Deploy, precheck and validate each fill one.
 */
struct run_info {
	const char *cluster;
	const char *playbook;      /* or the command's name: "precheck" */
	const char *run_dir;       /* where hosts/HOST.log live; may be NULL */
	char *const *stages;
	size_t nstages;
	char *const *hosts;        /* inventory order; "localhost" for local stages */
	size_t nhosts;
	int dry_run;               /* deploy --check: nothing is changed */
};

const char *dep_event_kind_name(enum dep_event_kind k);
/* The kind or result of a name; -1 when unknown. */
int dep_event_kind_parse(const char *name);
int host_result_parse(const char *name);

#endif

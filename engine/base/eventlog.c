/*
 * RUN_DIR/events.jsonl: writing the event stream as it happens and reading
 * it back for replays (see eventlog.h).
 */
#include "eventlog.h"
#include "jsontext.h"
#include "strbuf.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A replay holds at most this many events (a 1,000-host run has ~50,000). */
#define REPLAY_MAX_EVENTS 2000000

static const char *const kind_names[] = {
	[DEV_STAGE_START] = "stage_start", [DEV_HOST_START] = "host_start",
	[DEV_OUTPUT] = "output", [DEV_HOST_DONE] = "host_done",
	[DEV_STAGE_DONE] = "stage_done", [DEV_RUN_DONE] = "run_done",
	[DEV_CONTROL] = "control",
};

const char *host_result_name(enum host_result r)
{
	static const char *const names[] = { [RES_NONE] = "none", [RES_OK] = "ok",
		[RES_CHANGED] = "changed", [RES_FAILED] = "failed", [RES_SKIPPED] = "skipped",
		[RES_UNREACHABLE] = "unreachable" };

	return r < RES__COUNT ? names[r] : "?";
}

const char *dep_event_kind_name(enum dep_event_kind k)
{
	return (size_t)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

int dep_event_kind_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(kind_names[i], name))
			return (int)i;
	return -1;
}

int host_result_parse(const char *name)
{
	for (int r = RES_NONE; r < RES__COUNT; r++)
		if (!strcmp(host_result_name((enum host_result)r), name))
			return r;
	return -1;
}

struct eventlog {
	FILE *f;
};

static json_t *strings_json(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_text_or_null(v[i]));
	return a;
}

static void write_line(FILE *f, json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));

	if (s) {
		fputs(s, f);
		fputc('\n', f);
		fflush(f);
		free(s);
	}
	json_decref(j);
}

int eventlog_open(const char *run_dir, const struct run_info *ri,
		  struct eventlog **ret, struct err *err)
{
	char *path = xasprintf("%s/events.jsonl", run_dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	struct eventlog *el;
	FILE *f;

	if (fd < 0 || !(f = fdopen(fd, "a"))) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		err_set(err, ERR_IO, "%s: %s", path, strerror(e));
		free(path);
		return ERR_IO;
	}
	free(path);
	el = xcalloc(1, sizeof(*el));
	el->f = f;
	write_line(f, json_pack("{s:i, s:o, s:o, s:o, s:o, s:b}", "bringup_events", 1,
				"cluster", json_text_or_null(ri->cluster),
				"playbook", json_text_or_null(ri->playbook),
				"stages", strings_json(ri->stages, ri->nstages),
				"hosts", strings_json(ri->hosts, ri->nhosts),
				"dry_run", ri->dry_run ? 1 : 0));
	*ret = el;
	return 0;
}

void eventlog_write(struct eventlog *el, const struct dep_event *ev)
{
	json_t *j;

	if (!el)
		return;
	j = json_pack("{s:f, s:s}", "t", ev->t, "ev", dep_event_kind_name(ev->kind));
	if (ev->kind != DEV_RUN_DONE)
		json_object_set_new(j, "stage", json_integer((json_int_t)ev->stage));
	if (ev->host)
		json_object_set_new(j, "host", json_text_or_null(ev->host));
	if (ev->kind == DEV_STAGE_START && ev->hosts)
		json_object_set_new(j, "hosts", json_text_or_null(ev->hosts));
	if ((ev->kind == DEV_OUTPUT || ev->kind == DEV_CONTROL) && ev->msg)
		json_object_set_new(j, "msg", json_text_or_null(ev->msg));
	if (ev->kind == DEV_HOST_START && ev->limit_s)
		json_object_set_new(j, "limit_s", json_integer((json_int_t)ev->limit_s));
	if (ev->kind == DEV_HOST_DONE) {
		json_object_set_new(j, "result", json_string(host_result_name(ev->result)));
		json_object_set_new(j, "duration_s", json_real(ev->duration_s));
		if (ev->reason)
			json_object_set_new(j, "reason", json_text_or_null(ev->reason));
		if (ev->hint)
			json_object_set_new(j, "hint", json_text_or_null(ev->hint));
		if (ev->changes && ev->changes->n)
			json_object_set_new(j, "changes", strings_json(ev->changes->v,
								       ev->changes->n));
	}
	if (ev->kind == DEV_RUN_DONE)
		json_object_set_new(j, "interrupted", json_boolean(ev->interrupted));
	write_line(el->f, j);
}

void eventlog_free(struct eventlog *el)
{
	if (!el)
		return;
	fclose(el->f);
	free(el);
}

/* ---- reading ---- */

/* A string kept by the replay (NULL stays NULL). */
static const char *keep(struct replay *r, const char *s)
{
	if (!s)
		return NULL;
	strlist_push(&r->strings, s);
	return r->strings.v[r->strings.n - 1];
}

static int read_strings(const char *where, json_t *a, struct strlist *out, struct err *err)
{
	size_t i;
	json_t *v;

	if (!json_is_array(a))
		return err_set(err, ERR_PARSE, "%s: expected an array of strings", where);
	json_array_foreach(a, i, v) {
		if (!json_is_string(v))
			return err_set(err, ERR_PARSE, "%s: item %zu is not a string", where, i);
		strlist_push(out, json_string_value(v));
	}
	return 0;
}

static int read_header(struct replay *r, const char *where, json_t *j, bool first,
		       struct err *err)
{
	struct strlist stages = STRLIST_INIT, hosts = STRLIST_INIT;
	const char *cluster = json_string_value(json_object_get(j, "cluster"));
	const char *playbook = json_string_value(json_object_get(j, "playbook"));
	int rc;

	if ((rc = read_strings(where, json_object_get(j, "stages"), &stages, err)) ||
	    (rc = read_strings(where, json_object_get(j, "hosts"), &hosts, err)))
		goto out;
	if (first) {
		r->cluster = xstrdup(cluster ? cluster : "?");
		r->playbook = xstrdup(playbook ? playbook : "?");
		r->dry_run = json_is_true(json_object_get(j, "dry_run"));
		r->stages = stages;
		r->hosts = hosts;
		return 0;
	}
	/* A --resume of the same run: the same matrix. */
	if (stages.n != r->stages.n || hosts.n != r->hosts.n)
		rc = err_set(err, ERR_PARSE, "%s: a later attempt has other stages or hosts", where);
out:
	strlist_clear(&stages);
	strlist_clear(&hosts);
	return rc;
}

static int read_event(struct replay *r, const char *where, json_t *j, double t_base,
		      struct err *err)
{
	const char *kind = json_string_value(json_object_get(j, "ev"));
	json_t *stage = json_object_get(j, "stage"), *t = json_object_get(j, "t");
	struct dep_event ev = { 0 };
	int k, res;

	if (!kind || (k = dep_event_kind_parse(kind)) < 0)
		return err_set(err, ERR_PARSE, "%s: \"ev\" is not an event kind", where);
	if (!json_is_number(t))
		return err_set(err, ERR_PARSE, "%s: \"t\" is not a number", where);
	ev.kind = (enum dep_event_kind)k;
	ev.t = t_base + json_number_value(t);
	if (ev.kind == DEV_RUN_DONE) {
		ev.stage = (size_t)-1;
		ev.interrupted = json_is_true(json_object_get(j, "interrupted"));
	} else {
		if (!json_is_integer(stage) || json_integer_value(stage) < 0 ||
		    (size_t)json_integer_value(stage) >= r->stages.n)
			return err_set(err, ERR_PARSE, "%s: \"stage\" is not a stage's index", where);
		ev.stage = (size_t)json_integer_value(stage);
		ev.stage_name = r->stages.v[ev.stage];
	}
	ev.host = keep(r, json_string_value(json_object_get(j, "host")));
	if ((ev.kind == DEV_HOST_START || ev.kind == DEV_OUTPUT || ev.kind == DEV_HOST_DONE ||
	     ev.kind == DEV_CONTROL) && !ev.host)
		return err_set(err, ERR_PARSE, "%s: %s without \"host\"", where, kind);
	ev.hosts = keep(r, json_string_value(json_object_get(j, "hosts")));
	ev.msg = keep(r, json_string_value(json_object_get(j, "msg")));
	ev.reason = keep(r, json_string_value(json_object_get(j, "reason")));
	ev.hint = keep(r, json_string_value(json_object_get(j, "hint")));
	ev.duration_s = json_number_value(json_object_get(j, "duration_s"));
	if (json_is_integer(json_object_get(j, "limit_s")) &&
	    json_integer_value(json_object_get(j, "limit_s")) > 0 &&
	    json_integer_value(json_object_get(j, "limit_s")) <= 7 * 24 * 3600)
		ev.limit_s = (unsigned)json_integer_value(json_object_get(j, "limit_s"));
	if (ev.kind == DEV_HOST_DONE) {
		const char *rs = json_string_value(json_object_get(j, "result"));

		if (!rs || (res = host_result_parse(rs)) <= RES_NONE)
			return err_set(err, ERR_PARSE, "%s: \"result\" is not a result", where);
		ev.result = (enum host_result)res;
	}
	if (r->n == r->alloc) {
		if (r->n >= REPLAY_MAX_EVENTS)
			return err_set(err, ERR_PARSE, "%s: more than %d events", where,
				       REPLAY_MAX_EVENTS);
		r->alloc = r->alloc ? r->alloc * 2 : 256;
		r->ev = xrealloc(r->ev, r->alloc * sizeof(*r->ev));
		r->changes = xrealloc(r->changes, r->alloc * sizeof(*r->changes));
	}
	r->changes[r->n] = (struct strlist)STRLIST_INIT;
	if (json_object_get(j, "changes") &&
	    read_strings(where, json_object_get(j, "changes"), &r->changes[r->n], err)) {
		strlist_clear(&r->changes[r->n]);
		return ERR_PARSE;
	}
	r->ev[r->n++] = ev;
	return 0;
}

/* Pointers into r->changes are taken once the array stops moving. */
static void fix_pointers(struct replay *r)
{
	for (size_t i = 0; i < r->n; i++)
		r->ev[i].changes = &r->changes[i];
	r->info = (struct run_info){ r->cluster, r->playbook, r->run_dir, r->stages.v,
				     r->stages.n, r->hosts.v, r->hosts.n, r->dry_run };
}

int replay_load_buf(const char *name, const char *buf, size_t len,
		    struct replay **ret, struct err *err)
{
	struct replay *r = xcalloc(1, sizeof(*r));
	const char *p = buf, *end = buf + len;
	double t_base = 0, t_last = 0;
	size_t line = 0;
	int rc = 0;

	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		json_error_t je;
		json_t *j;
		char *where;

		line++;
		if (!nl)
			break; /* cut short while being written: the run died there */
		where = xasprintf("%s:%zu", name, line);
		j = json_loadb(p, (size_t)(nl - p), JSON_REJECT_DUPLICATES, &je);
		if (!j || !json_is_object(j)) {
			rc = err_set(err, ERR_PARSE, "%s:%d: %s", where, je.column,
				     j ? "not a JSON object" : je.text);
		} else if (json_object_get(j, "bringup_events")) {
			rc = read_header(r, where, j, line == 1, err);
			t_base = t_last;
		} else if (line == 1) {
			rc = err_set(err, ERR_PARSE, "%s: not a bringup event stream (no "
				     "\"bringup_events\" line first)", where);
		} else if (!(rc = read_event(r, where, j, t_base, err))) {
			t_last = r->ev[r->n - 1].t;
		}
		json_decref(j);
		free(where);
		p = nl + 1;
	}
	if (!rc && !line)
		rc = err_set(err, ERR_PARSE, "%s: empty", name);
	if (rc) {
		replay_free(r);
		return rc;
	}
	fix_pointers(r);
	*ret = r;
	return 0;
}

int replay_load(const char *run_dir, struct replay **ret, struct err *err)
{
	char *path = xasprintf("%s/events.jsonl", run_dir);
	struct strbuf sb = STRBUF_INIT;
	char chunk[65536];
	size_t got;
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		rc = err_set(err, errno == ENOENT ? ERR_NOTFOUND : ERR_IO, "%s: %s", path,
			     strerror(errno));
		free(path);
		return rc;
	}
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		strbuf_add(&sb, chunk, got);
	fclose(f);
	rc = replay_load_buf(path, sb.buf ? sb.buf : "", sb.len, ret, err);
	if (!rc)
		(*ret)->run_dir = xstrdup(run_dir), (*ret)->info.run_dir = (*ret)->run_dir;
	strbuf_release(&sb);
	free(path);
	return rc;
}

void replay_free(struct replay *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		strlist_clear(&r->changes[i]);
	free(r->changes);
	free(r->ev);
	strlist_clear(&r->strings);
	strlist_clear(&r->stages);
	strlist_clear(&r->hosts);
	free(r->cluster);
	free(r->playbook);
	free(r->run_dir);
	free(r);
}

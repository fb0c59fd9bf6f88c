/*
 * The deploy journal as a JSON document, saved atomically; see journal.h.
 */
#include "journal.h"
#include "../base/jsontext.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define JOURNAL_VERSION 1

struct journal {
	char *path;
	json_t *root;
	/* The last save's text with the state "interrupted", ready for a signal
	 * handler (journal_save_interrupted): two buffers, the one at last_cur
	 * ready (-1: none, the run is not running), the other the next save's,
	 * so that a handler never reads the one being replaced. */
	char *last_words[2];
	size_t last_len[2];
	volatile sig_atomic_t last_cur;
	char *sig_tmp; /* its temporary file: no formatting in a signal handler */
};

static void journal_init(struct journal *j, const char *path)
{
	j->path = xstrdup(path);
	j->sig_tmp = xasprintf("%s.tmp.sig.%ld", path, (long)getpid());
	j->last_cur = -1;
}

static json_t *now_json(void)
{
	char buf[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_string(buf);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

struct journal *journal_new(const char *path, const struct journal_meta *m)
{
	struct journal *j = xcalloc(1, sizeof(*j));

	journal_init(j, path);
	j->root = json_object();
	json_object_set_new(j->root, "version", json_integer(JOURNAL_VERSION));
	json_object_set_new(j->root, "run_id", str_or_null(m->run_id));
	json_object_set_new(j->root, "cluster", str_or_null(m->cluster));
	json_object_set_new(j->root, "playbook", str_or_null(m->playbook));
	json_object_set_new(j->root, "inventory", str_or_null(m->inventory));
	json_object_set_new(j->root, "bringup_version", str_or_null(m->bringup_version));
	json_object_set_new(j->root, "state", json_string("running"));
	json_object_set_new(j->root, "started", now_json());
	json_object_set_new(j->root, "updated", now_json());
	json_object_set_new(j->root, "attempts", json_array());
	json_object_set_new(j->root, "stages", json_array());
	return j;
}

/*
 * Takes ROOT (a document just read from PATH) when it is a journal. Every
 * stage must be an object with a name: a resumed run matches stages by
 * name and records hosts inside them, and an entry it could neither find
 * nor write into (a number, a nameless object) would have its hosts'
 * results dropped without a word (found by the journal fuzz target).
 */
static int journal_adopt(const char *path, json_t *root, struct journal **ret,
			 struct err *err)
{
	json_t *stages = json_object_get(root, "stages"), *s;
	size_t i;

	if (json_integer_value(json_object_get(root, "version")) != JOURNAL_VERSION ||
	    !json_is_array(stages)) {
		json_decref(root);
		return err_set(err, ERR_PARSE, "%s: not a version %d journal", path,
			       JOURNAL_VERSION);
	}
	json_array_foreach(stages, i, s) {
		const char *name = json_string_value(json_object_get(s, "name"));

		if (!json_is_object(s) || !name || !*name) {
			json_decref(root);
			return err_set(err, ERR_PARSE,
				       "%s: stages[%zu] is not a stage (an object with a \"name\")",
				       path, i);
		}
	}
	*ret = xcalloc(1, sizeof(**ret));
	journal_init(*ret, path);
	(*ret)->root = root;
	return 0;
}

int journal_load(const char *path, struct journal **ret, struct err *err)
{
	json_error_t je;
	json_t *root;

	if (access(path, F_OK))
		return err_set(err, ERR_NOTFOUND, "no journal at %s", path);
	root = json_load_file(path, 0, &je);
	if (!root)
		return err_set(err, ERR_PARSE, "%s:%d:%d: unreadable journal: %s", path,
			       je.line, je.column, je.text);
	return journal_adopt(path, root, ret, err);
}

int journal_load_buf(const char *path, const char *buf, size_t len, struct journal **ret,
		     struct err *err)
{
	json_error_t je;
	json_t *root = json_loadb(buf, len, 0, &je);

	if (!root)
		return err_set(err, ERR_PARSE, "%s:%d:%d: unreadable journal: %s", path,
			       je.line, je.column, je.text);
	return journal_adopt(path, root, ret, err);
}

void journal_free(struct journal *j)
{
	if (!j)
		return;
	json_decref(j->root);
	free(j->last_words[0]);
	free(j->last_words[1]);
	free(j->sig_tmp);
	free(j->path);
	free(j);
}

static json_t *find_stage(const struct journal *j, const char *stage)
{
	json_t *stages = json_object_get(j->root, "stages"), *s;
	size_t i;

	json_array_foreach(stages, i, s)
		if (!strcmp(json_string_value(json_object_get(s, "name")) ?: "", stage))
			return s;
	return NULL;
}

void journal_stage(struct journal *j, const char *stage, const char *module,
		   unsigned module_version)
{
	json_t *s = find_stage(j, stage);

	if (s && journal_stage_version(j, stage) != (int)module_version) {
		json_object_set_new(s, "module_version", json_integer((json_int_t)module_version));
		json_object_set_new(s, "hosts", json_object());
	}
	if (!s) {
		s = json_pack("{s:s, s:s, s:I, s:o}", "name", stage, "module", module,
			      "module_version", (json_int_t)module_version, "hosts", json_object());
		json_array_append_new(json_object_get(j->root, "stages"), s);
	}
}

void journal_attempt(struct journal *j)
{
	json_t *a = json_object_get(j->root, "attempts");

	if (!json_is_array(a)) {
		a = json_array();
		json_object_set_new(j->root, "attempts", a);
	}
	json_array_append_new(a, json_pack("{s:o}", "started", now_json()));
	json_object_set_new(j->root, "state", json_string("running"));
}

static json_t *host_entry(struct journal *j, const char *stage, const char *host)
{
	json_t *s = find_stage(j, stage), *hosts, *h;

	if (!s)
		return NULL;
	/*
	 * A loaded journal may have been edited or damaged: a "hosts" that is
	 * not an object (missing, an array) says nothing about what the stage
	 * did, so it starts over; so does a host entry that is not an object.
	 * json_object_set_new frees the value when it cannot attach it (a key
	 * that is not UTF-8), so nothing is returned that it did not keep.
	 */
	hosts = json_object_get(s, "hosts");
	if (!json_is_object(hosts)) {
		hosts = json_object();
		if (json_object_set_new(s, "hosts", hosts))
			return NULL;
	}
	h = json_object_get(hosts, host);
	if (!json_is_object(h)) {
		h = json_object();
		if (json_object_set_new(hosts, host, h))
			return NULL;
	}
	return h;
}

void journal_host_start(struct journal *j, const char *stage, const char *host)
{
	json_t *h = host_entry(j, stage, host);

	if (!h)
		return;
	json_object_clear(h);
	json_object_set_new(h, "status", json_string("running"));
	json_object_set_new(h, "started", now_json());
}

void journal_host_done(struct journal *j, const char *stage, const char *host,
		       const char *status, const struct strlist *changes,
		       const char *reason, double duration_s)
{
	json_t *h = host_entry(j, stage, host), *arr = json_array();

	if (!h) {
		json_decref(arr);
		return;
	}
	for (size_t i = 0; changes && i < changes->n; i++)
		json_array_append_new(arr, json_text_or_null(changes->v[i]));
	json_object_set_new(h, "status", json_string(status));
	json_object_set_new(h, "changes", arr);
	if (!json_object_get(h, "started"))
		json_object_set_new(h, "started", now_json());
	json_object_set_new(h, "finished", now_json());
	json_object_set_new(h, "duration_s", json_real(duration_s));
	if (reason)
		json_object_set_new(h, "reason", json_text_or_null(reason));
	else
		json_object_del(h, "reason");
}

const char *journal_host_status(const struct journal *j, const char *stage,
				const char *host)
{
	json_t *s = find_stage(j, stage);

	return s ? json_string_value(json_object_get(json_object_get(json_object_get(s, "hosts"),
								    host), "status")) : NULL;
}

const char *journal_host_reason(const struct journal *j, const char *stage, const char *host)
{
	json_t *s = find_stage(j, stage);

	return s ? json_string_value(json_object_get(json_object_get(json_object_get(s, "hosts"),
								    host), "reason")) : NULL;
}

int journal_stage_version(const struct journal *j, const char *stage)
{
	json_t *s = find_stage(j, stage);

	return s ? (int)json_integer_value(json_object_get(s, "module_version")) : -1;
}

bool journal_host_completed(const struct journal *j, const char *stage, const char *host)
{
	const char *st = journal_host_status(j, stage, host);

	return st && (!strcmp(st, "ok") || !strcmp(st, "changed"));
}

void journal_set_state(struct journal *j, const char *state)
{
	json_object_set_new(j->root, "state", json_string(state));
}

void journal_record(struct journal *j, const char *key, const char *value)
{
	json_t *r = json_object_get(j->root, "records");

	if (!json_is_object(r)) {
		r = json_object();
		json_object_set_new(j->root, "records", r);
	}
	json_object_set_new(r, key, json_string(value));
}

const char *journal_get(const struct journal *j, const char *key)
{
	return json_string_value(json_object_get(j->root, key));
}

const char *journal_state(const struct journal *j)
{
	return journal_get(j, "state");
}

void journal_stages(const struct journal *j, struct strlist *out)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(j->root, "stages"), i, s)
		strlist_push(out, json_string_value(json_object_get(s, "name")) ?: "");
}

const json_t *journal_json(const struct journal *j)
{
	return j->root;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int fsync_dir_of(const char *path)
{
	char *copy = xstrdup(path);
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = -1;

	if (fd >= 0) {
		rc = fsync(fd);
		close(fd);
	}
	free(copy);
	return rc;
}

/* TEXT was saved: while the run is "running", the same text saying
 * "interrupted" is what a second ^C leaves (journal_save_interrupted). The
 * top-level "state" is the first one in the text (JSON_PRESERVE_ORDER:
 * journal_new sets it before any stage or host). */
static void keep_last_words(struct journal *j, const char *text)
{
	static const char running[] = "\"state\": \"running\"";
	static const char interrupted[] = "\"state\": \"interrupted\"";
	const char *at = strstr(text, running);
	int next = j->last_cur == 0;
	size_t head, tail;

	if (strcmp(journal_state(j) ?: "", "running") || !at) {
		j->last_cur = -1;
		return;
	}
	head = (size_t)(at - text);
	tail = strlen(at + sizeof(running) - 1);
	free(j->last_words[next]);
	j->last_words[next] = xmalloc(head + sizeof(interrupted) - 1 + tail + 1);
	memcpy(j->last_words[next], text, head);
	memcpy(j->last_words[next] + head, interrupted, sizeof(interrupted) - 1);
	memcpy(j->last_words[next] + head + sizeof(interrupted) - 1, at + sizeof(running) - 1, tail);
	j->last_words[next][head + sizeof(interrupted) - 1 + tail] = '\n';
	j->last_len[next] = head + sizeof(interrupted) - 1 + tail + 1;
	j->last_cur = next;
}

int journal_save(struct journal *j, struct err *err)
{
	char *tmp = xasprintf("%s.tmp.%ld", j->path, (long)getpid());
	char *text;
	int fd, rc = 0;

	json_object_set_new(j->root, "updated", now_json());
	text = json_dumps(j->root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, text, strlen(text)) || write_all(fd, "\n", 1) ||
	    fsync(fd)) {
		rc = err_set(err, ERR_IO, "cannot write journal %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) || rename(tmp, j->path)) {
		rc = err_set(err, ERR_IO, "cannot replace journal %s: %s", j->path,
			     strerror(errno));
		unlink(tmp);
		goto out;
	}
	fsync_dir_of(j->path);
	keep_last_words(j, text);
out:
	free(text);
	free(tmp);
	return rc;
}

int journal_save_interrupted(const struct journal *j)
{
	int cur = j->last_cur, fd;

	if (cur < 0)
		return -1;
	fd = open(j->sig_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (write_all(fd, j->last_words[cur], j->last_len[cur]) || fsync(fd)) {
		close(fd);
		unlink(j->sig_tmp);
		return -1;
	}
	if (close(fd) || rename(j->sig_tmp, j->path)) {
		unlink(j->sig_tmp);
		return -1;
	}
	return 0;
}

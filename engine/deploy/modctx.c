/*
 * What a module may do (engine/deploy/module.h), implemented over the runner's
 * task: commands built from argv with shell quoting, bounded output and a
 * timeout, logged with secrets redacted; files read, diffed and written
 * atomically; templates rendered; changes, notes and skips recorded.
 */
#include "modctx.h"
#include "../base/diff.h"
#include "../base/template.h"
#include "../base/xalloc.h"
#include "../inventory/inventory.h"
#include "module.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Output a module reads back (a file, a listing) is small; cap it. */
#define MOD_OUTPUT_MAX (1u << 20)

void mod_ctx_init(struct mod_ctx *mc)
{
	memset(mc, 0, sizeof(*mc));
	mc->set = json_object();
	mc->files = json_object();
	mc->record = json_object();
	mc->host_failures = json_object();
}

void mod_ctx_release(struct mod_ctx *mc)
{
	json_decref(mc->set);
	json_decref(mc->files);
	json_decref(mc->run_hosts);
	json_decref(mc->records);
	json_decref(mc->record);
	json_decref(mc->host_failures);
	strlist_clear(&mc->changes);
	strlist_clear(&mc->diffs);
	strlist_clear(&mc->verify_changes);
	free(mc->skip_reason);
}

const char *mod_host(const struct mod_ctx *mc)
{
	return mc->host;
}

const json_t *mod_run_hosts(const struct mod_ctx *mc)
{
	return mc->run_hosts;
}

const struct inventory *mod_inventory(const struct mod_ctx *mc)
{
	return mc->inv;
}

const json_t *mod_host_vars(const struct mod_ctx *mc)
{
	const struct host *h = mc->src_inv && !mc->local ? inventory_host(mc->src_inv, mc->host)
							 : NULL;

	return h ? h->vars : NULL;
}

int mod_save_local(struct mod_ctx *mc, const char *name, const char *content, size_t len,
		   struct strbuf *ret_path)
{
	char *path;
	FILE *f;
	int rc = 0;

	if (!mc->log || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return mod_fail(mc, ERR_STATE, "no run directory to keep %s in", name);
	path = xasprintf("%s/%s", runlog_dir(mc->log), name);
	f = fopen(path, "w");
	if (!f || fwrite(content, 1, len, f) != len || fchmod(fileno(f), 0644))
		rc = mod_fail(mc, ERR_IO, "%s: cannot write: %s", path, strerror(errno));
	if (f && fclose(f) && !rc)
		rc = mod_fail(mc, ERR_IO, "%s: cannot write: %s", path, strerror(errno));
	if (!rc)
		strbuf_addstr(ret_path, path);
	free(path);
	return rc;
}

bool mod_var_where(const struct mod_ctx *mc, const char *var, const char *key,
		   struct strbuf *out)
{
	struct src_loc loc;

	if (!mc->src_inv || inventory_var_loc(mc->src_inv, mc->host, var, key, &loc))
		return false;
	strbuf_addf(out, "%s:%u:%u", loc.file, loc.line, loc.col);
	return true;
}

const json_t *mod_records(const struct mod_ctx *mc)
{
	return mc->records;
}

void mod_record(struct mod_ctx *mc, const char *key, const char *value)
{
	json_object_set_new(mc->record, key, json_string(value));
}

bool mod_checking(const struct mod_ctx *mc)
{
	return mc->checking;
}

static json_t *param(const struct mod_ctx *mc, const char *name)
{
	json_t *v = json_object_get(mc->params, name);

	if (!v) {
		fprintf(stderr, "bringup: internal error: stage %s asks for parameter '%s', "
			"which its module does not declare\n", mc->stage, name);
		abort();
	}
	return v;
}

const char *mod_param_str(const struct mod_ctx *mc, const char *name)
{
	json_t *v = param(mc, name);
	char buf[32];

	if (json_is_string(v))
		return json_string_value(v);
	/* An integer given for a string parameter: keep its text beside it. */
	snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
	json_object_set_new(((struct mod_ctx *)mc)->set, name, json_string(buf));
	return json_string_value(json_object_get(mc->set, name));
}

bool mod_param_bool(const struct mod_ctx *mc, const char *name)
{
	return json_is_true(param(mc, name));
}

unsigned mod_param_uint(const struct mod_ctx *mc, const char *name)
{
	return (unsigned)json_integer_value(param(mc, name));
}

void mod_set(struct mod_ctx *mc, const char *name, const char *value)
{
	json_object_set_new(mc->set, name, json_string(value));
}

const char *mod_get(const struct mod_ctx *mc, const char *name)
{
	const char *v = json_string_value(json_object_get(mc->set, name));

	return v ? v : "";
}

static __attribute__((format(printf, 1, 0))) char *vfmt(const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	return strbuf_detach(&sb, NULL);
}

void mod_fail_host(struct mod_ctx *mc, const char *host, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	size_t i;
	json_t *h;

	va_start(ap, fmt);
	msg = vfmt(fmt, ap);
	va_end(ap);
	json_object_set_new(mc->host_failures, host, json_string(msg));
	json_array_foreach(mc->run_hosts, i, h)
		if (!strcmp(json_string_value(json_object_get(h, "name")), host))
			json_object_set_new(h, "failed", json_string(msg));
	if (mc->task)
		task_note(mc->task, "%s failed: %s", host, msg);
	free(msg);
}

void mod_change(struct mod_ctx *mc, const char *diff, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (mc->phase == PHASE_APPLY)
		return;
	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	if (mc->phase == PHASE_VERIFY) {
		strlist_push_owned(&mc->verify_changes, s);
		return;
	}
	strlist_push_owned(&mc->changes, s);
	strlist_push(&mc->diffs, diff ? diff : "");
}

size_t mod_nchanges(const struct mod_ctx *mc)
{
	return mc->phase == PHASE_VERIFY ? mc->verify_changes.n : mc->changes.n;
}

int mod_skip(struct mod_ctx *mc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	free(mc->skip_reason);
	mc->skip_reason = vfmt(fmt, ap);
	va_end(ap);
	mc->skipped = true;
	return 0;
}

void mod_note(struct mod_ctx *mc, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	if (mc->task)
		task_note(mc->task, "%s", s);
	free(s);
}

int mod_fail(struct mod_ctx *mc, int code, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	code = code ? code : ERR_REMOTE;
	err_set(mc->err, code, "%s", s);
	free(s);
	return code;
}

/* ---- local commands (stages with `local: true`) ---- */

static void drain(int fd, struct strbuf *sb, bool *trunc, bool *open_)
{
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n <= 0) {
		*open_ = false;
		return;
	}
	if (sb->len + (size_t)n > MOD_OUTPUT_MAX) {
		*trunc = true;
		n = (ssize_t)(MOD_OUTPUT_MAX - sb->len);
	}
	strbuf_add(sb, buf, (size_t)n);
}

static void close_pipe(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
}

/*
 * Runs `command` with /bin/sh on this machine. Input is written as the
 * command reads it, in the same poll() as its output is read: writing it all
 * first deadlocks once both pipes fill. The command leads its own process
 * group, so that a timeout (0: none) kills what it started too, not just sh.
 */
static int local_exec(const char *command, const char *input, unsigned timeout_ms,
		      struct cmd_result *res, struct err *err)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, er[2] = { -1, -1 }, status;
	long long t0 = now_ms(), deadline = timeout_ms ? t0 + timeout_ms : 0;
	size_t in_len = input ? strlen(input) : 0, in_off = 0;
	bool oo = true, eo = true, io = in_len > 0;
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(er, O_CLOEXEC) ||
	    (pid = fork()) < 0) {
		int e = errno;

		close_pipe(in);
		close_pipe(out);
		close_pipe(er);
		return err_set(err, ERR_IO, "cannot start a local command: %s", strerror(e));
	}
	if (!pid) {
		setpgid(0, 0);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(er[1], 2);
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	/* Here too, so that a kill right away cannot miss the group. */
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	close(er[1]);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	if (!io)
		close(in[1]);
	while (oo || eo) {
		struct pollfd p[3] = { { oo ? out[0] : -1, POLLIN, 0 }, { eo ? er[0] : -1, POLLIN, 0 },
				       { io ? in[1] : -1, POLLOUT, 0 } };
		long long left = deadline ? deadline - now_ms() : 1000;

		if (deadline && left <= 0) {
			res->outcome = CMD_TIMED_OUT;
			break;
		}
		if (poll(p, 3, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR)
			break;
		if (io && p[2].revents) {
			ssize_t w = write(in[1], input + in_off, in_len - in_off);

			if (w > 0)
				in_off += (size_t)w;
			/* EPIPE: the command stopped reading; its status will say so. */
			if (in_off == in_len || (w < 0 && errno != EAGAIN && errno != EINTR)) {
				close(in[1]);
				io = false;
			}
		}
		if (oo && p[0].revents)
			drain(out[0], &res->out, &res->out_truncated, &oo);
		if (eo && p[1].revents)
			drain(er[0], &res->err, &res->err_truncated, &eo);
	}
	if (io)
		close(in[1]);
	close(out[0]);
	close(er[0]);
	/* The whole group: sh and whatever it started. */
	if (res->outcome == CMD_TIMED_OUT)
		kill(-pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (res->outcome != CMD_TIMED_OUT) {
		res->outcome = WIFEXITED(status) ? CMD_EXITED : CMD_KILLED;
		res->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	}
	res->duration_s = (double)(now_ms() - t0) / 1000.0;
	return 0;
}

/* ---- commands ---- */

/* The run was cancelled, or this host alone was stopped. */
static bool stopping(const struct mod_ctx *mc)
{
	return (mc->cancelled && *mc->cancelled) || (mc->host_stop && *mc->host_stop);
}

static void argv_line(const char *const *argv, struct strbuf *sb)
{
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strbuf_addch(sb, ' ');
		strbuf_addshquoted(sb, argv[i]);
	}
}

/* The first line of a command's stderr (or stdout), for messages. */
static void first_line(const struct cmd_result *res, struct strbuf *sb)
{
	const struct strbuf *s = res->err.len ? &res->err : &res->out;
	const char *nl = memchr(s->buf, '\n', s->len);

	strbuf_add(sb, s->buf, nl ? (size_t)(nl - s->buf) : s->len);
}

/* Capture mode: the check stops at its first command, which deploy sends ahead. */
static int capture(struct mod_ctx *mc, const char *line, const char *input)
{
	if (mc->probe)
		probe_slot_capture(mc->probe, line, input, mc->script);
	mc->script = NULL;
	return err_set(mc->err, ERR_DEFERRED, "deferred: %s", line);
}

/*
 * The prefetch's answer for this command, once, while nothing has been
 * applied anywhere (an apply on any host may change what any probe sees:
 * an SM started here shows in sminfo there).
 */
static bool prefetched(struct mod_ctx *mc, const char *line, const char *input,
		       struct cmd_result *res)
{
	struct probe_slot *s = mc->probe;

	if (!s || !s->have || s->used || !mc->applied || atomic_load(mc->applied) ||
	    strcmp(s->line, line) || strcmp(s->input, input ? input : ""))
		return false;
	s->used = true;
	cmd_result_release(res);
	*res = s->res;
	s->have = false;
	return true;
}

static int run_line(struct mod_ctx *mc, const char *line, const char *input,
		    struct cmd_result *res)
{
	struct remote_cmd rc = { .command = line, .input = input,
				 .input_len = input ? strlen(input) : 0,
				 .timeout_ms = mc->timeout_s * 1000,
				 .max_output = MOD_OUTPUT_MAX };
	/* What applies: the command's own limit, else the run's. */
	unsigned limit_s = mc->timeout_s ? mc->timeout_s :
			   mc->task ? task_command_timeout(mc->task) : 0;
	int ret;

	cmd_result_init(res);
	if (mc->capture)
		return capture(mc, line, input);
	/* The log names the script a command reads, which its line does not show. */
	char *logged = mc->script ? xasprintf("%s  # stdin: templates/%s", line, mc->script) :
			xstrdup(line);

	mc->script = NULL;
	if (prefetched(mc, line, input, res)) {
		if (mc->log) {
			char *noted = xasprintf("%s  # answered by the prefetch", logged);

			runlog_command(mc->log, mc->host, mc->stage, noted, res, NULL);
			free(noted);
		}
		free(logged);
		return 0;
	}
	if (stopping(mc)) {
		ret = err_set(mc->err, ERR_CANCELLED, "stopped before: %s", logged);
		if (mc->log)
			runlog_command(mc->log, mc->host, mc->stage, logged, NULL, err_msg(mc->err));
		free(logged);
		return ret;
	}
	if (!mc->local)
		ret = task_exec(mc->task, 0, &rc, res, mc->err);
	else
		ret = local_exec(line, input, limit_s * 1000, res, mc->err);
	if (mc->log)
		runlog_command(mc->log, mc->host, mc->stage, logged, ret ? NULL : res,
			       ret ? err_msg(mc->err) : NULL);
	if (!ret && res->outcome == CMD_TIMED_OUT)
		ret = err_set(mc->err, ERR_TIMEOUT, "timed out after %.0f s (limit %u s) on %s "
			      "(stage %s): %s", res->duration_s, limit_s, mc->host, mc->stage,
			      logged);
	free(logged);
	if (ret)
		return ret;
	if (res->outcome == CMD_CANCELLED && mc->host_stop && *mc->host_stop)
		/* as a timeout reports it: what ran, for how long, and what became of it */
		return err_set(mc->err, ERR_CANCELLED, "stopped after %.0f s on %s (stage %s), "
			       "remote process group %ld %s: %s", res->duration_s, mc->host,
			       mc->stage, res->remote_pgid, cmd_reap_text(res->reap), line);
	if (res->outcome == CMD_CANCELLED)
		return err_set(mc->err, ERR_CANCELLED, "cancelled: %s", line);
	if (res->outcome != CMD_EXITED)
		return err_set(mc->err, ERR_SSH, "%s: %s", res->outcome == CMD_KILLED ?
			       "killed by a signal" : "connection lost", line);
	if (mc->phase == PHASE_APPLY && !res->exit_status)
		mc->apply_steps++;
	return 0;
}

int mod_exec(struct mod_ctx *mc, const char *const *argv, const char *input,
	     struct cmd_result *res)
{
	struct strbuf line = STRBUF_INIT;
	int ret;

	argv_line(argv, &line);
	ret = run_line(mc, line.buf, input, res);
	strbuf_release(&line);
	return ret;
}

int mod_exec_ok(struct mod_ctx *mc, const char *const *argv, const char *input,
		struct cmd_result *res)
{
	int ret = mod_exec(mc, argv, input, res);
	struct strbuf why = STRBUF_INIT;

	if (ret || res->exit_status == 0)
		return ret;
	first_line(res, &why);
	ret = mod_fail(mc, ERR_REMOTE, "%s exited %d%s%s", argv[0], res->exit_status,
		       why.len ? ": " : "", why.buf);
	strbuf_release(&why);
	return ret;
}

int mod_script(struct mod_ctx *mc, const char *tmpl, const char *const *args,
	       struct cmd_result *res)
{
	const char *text = template_get(tmpl, NULL);
	const char *argv[16] = { "sh", "-s", "--" };
	size_t n = 3;

	if (!text) {
		cmd_result_init(res);
		return mod_fail(mc, ERR_INTERNAL, "no template '%s'", tmpl);
	}
	for (; args && args[n - 3] && n < 15; n++)
		argv[n] = args[n - 3];
	argv[n] = NULL;
	mc->script = tmpl;
	return mod_exec(mc, argv, text, res);
}

/* "MODE LEN\nBYTES..." records after the marker, in the order of paths. */
static int parse_files(struct mod_ctx *mc, const char *p, const char *end,
		       const char *const *paths)
{
	for (size_t i = 0; paths[i]; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		unsigned long len;
		char *e;

		if (!nl)
			return mod_fail(mc, ERR_PARSE, "probe: output cut before %s", paths[i]);
		if (*p == '-') {
			json_object_set_new(mc->files, paths[i], json_null());
			p = nl + 1;
			continue;
		}
		len = strtoul(strchr(p, ' ') ? strchr(p, ' ') + 1 : p, &e, 10);
		if ((size_t)(end - nl - 1) < len)
			return mod_fail(mc, ERR_PARSE, "probe: %s cut short", paths[i]);
		json_object_set_new(mc->files, paths[i], json_pack("{s:i, s:s%}", "mode",
				    (int)strtoul(p, NULL, 8), "content", nl + 1, (size_t)len));
		p = nl + 1 + len;
	}
	return 0;
}

int mod_probe(struct mod_ctx *mc, const char *tmpl, const char *const *args,
	      const char *const *paths, struct cmd_result *res)
{
	static const char marker[] = "\001bringup-files\n";
	const char *script = tmpl ? template_get(tmpl, NULL) : "", *dump;
	const char *argv[16] = { "sh", "-s", "--" };
	struct strbuf in = STRBUF_INIT;
	size_t n = 3;
	char *at;
	int ret;

	dump = template_get("engine/dump-files.sh", NULL);
	if (!script || !dump) {
		cmd_result_init(res);
		return mod_fail(mc, ERR_INTERNAL, "no template '%s'", script ? "engine/dump-files.sh" : tmpl);
	}
	/* Paths travel as one word list; %20 keeps a space inside a path. */
	strbuf_addstr(&in, "__bringup_files=");
	{
		struct strbuf list = STRBUF_INIT;

		for (size_t i = 0; paths && paths[i]; i++) {
			if (i)
				strbuf_addch(&list, ' ');
			for (const char *c = paths[i]; *c; c++)
				if (*c == ' ')
					strbuf_addstr(&list, "%20");
				else
					strbuf_addch(&list, *c);
		}
		strbuf_addshquoted(&in, list.buf);
		strbuf_release(&list);
	}
	strbuf_addf(&in, "\n(\n%s\n)\n%s", script, dump);
	for (; args && args[n - 3] && n < 15; n++)
		argv[n] = args[n - 3];
	argv[n] = NULL;
	json_object_clear(mc->files);
	mc->script = tmpl ? tmpl : "engine/dump-files.sh";
	ret = mod_exec(mc, argv, in.buf, res);
	strbuf_release(&in);
	if (ret)
		return ret;
	at = memmem(res->out.buf, res->out.len, marker, sizeof(marker) - 1);
	if (!at || res->out_truncated)
		return mod_fail(mc, ERR_REMOTE, "probe%s%s failed (exit %d): %.*s", tmpl ? " " : "",
				tmpl ? tmpl : "", res->exit_status,
				(int)strcspn(res->err.buf, "\n"), res->err.buf);
	ret = parse_files(mc, at + sizeof(marker) - 1, res->out.buf + res->out.len,
			  paths ? paths : (const char *const[]){ NULL });
	strbuf_setlen(&res->out, (size_t)(at - res->out.buf));
	return ret;
}

/* ---- templates and files ---- */

static const char *lookup(struct mod_ctx *mc, const char *name, char *buf, size_t n)
{
	json_t *v = json_object_get(mc->set, name);

	if (!v)
		v = json_object_get(mc->params, name);
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_boolean(v))
		return json_is_true(v) ? "true" : "false";
	if (json_is_integer(v)) {
		snprintf(buf, n, "%lld", (long long)json_integer_value(v));
		return buf;
	}
	return NULL;
}

int mod_render(struct mod_ctx *mc, const char *tmpl, struct strbuf *out)
{
	const char *s = template_get(tmpl, NULL), *open_;

	if (!s)
		return mod_fail(mc, ERR_INTERNAL, "no template '%s'", tmpl);
	while ((open_ = strstr(s, "{{"))) {
		const char *close_ = strstr(open_, "}}"), *a = open_ + 2, *b, *v;
		char name[64], buf[32];

		if (!close_)
			break;
		b = close_;
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		snprintf(name, sizeof(name), "%.*s", (int)(b - a), a);
		v = lookup(mc, name, buf, sizeof(buf));
		if (!v)
			return mod_fail(mc, ERR_INTERNAL, "template %s: no value for {{%s}}",
					tmpl, name);
		strbuf_add(out, s, (size_t)(open_ - s));
		strbuf_addstr(out, v);
		s = close_ + 2;
	}
	strbuf_addstr(out, s);
	return 0;
}

/* Prints the mode (octal) on the first line, then the content; exit 3 when absent. */
static const char read_script[] =
	"[ -e \"$1\" ] || exit 3; stat -c %a -- \"$1\" && exec cat -- \"$1\"";

static int read_with_mode(struct mod_ctx *mc, const char *path, struct strbuf *out,
			  unsigned *ret_mode, bool *ret_exists)
{
	const char *argv[] = { "sh", "-c", read_script, "sh", path, NULL };
	struct cmd_result res;
	json_t *cached = mc->phase == PHASE_APPLY ? NULL : json_object_get(mc->files, path);
	const char *nl;
	int ret;

	*ret_exists = false;
	if (cached) {
		*ret_exists = !json_is_null(cached);
		if (*ret_exists && ret_mode)
			*ret_mode = (unsigned)json_integer_value(json_object_get(cached, "mode"));
		if (*ret_exists)
			strbuf_add(out, json_string_value(json_object_get(cached, "content")),
				   json_string_length(json_object_get(cached, "content")));
		return 0;
	}
	ret = mod_exec(mc, argv, NULL, &res);
	if (ret)
		goto out;
	if (res.exit_status == 3)
		goto out;
	nl = memchr(res.out.buf, '\n', res.out.len);
	if (res.exit_status || !nl || res.out_truncated) {
		struct strbuf why = STRBUF_INIT;

		first_line(&res, &why);
		ret = mod_fail(mc, ERR_REMOTE, "cannot read %s%s%s", path,
			       why.len ? ": " : "", res.out_truncated ? "larger than 1 MiB" : why.buf);
		strbuf_release(&why);
		goto out;
	}
	*ret_exists = true;
	if (ret_mode)
		*ret_mode = (unsigned)strtoul(res.out.buf, NULL, 8);
	strbuf_add(out, nl + 1, res.out.len - (size_t)(nl + 1 - res.out.buf));
out:
	cmd_result_release(&res);
	return ret;
}

int mod_read_file(struct mod_ctx *mc, const char *path, struct strbuf *out,
		  bool *ret_exists)
{
	return read_with_mode(mc, path, out, NULL, ret_exists);
}

/*
 * Temporary file beside the target, then rename: the target is old or new,
 * whole. $3 is the length we sent: input cut short (we were killed while
 * sending it) must not be renamed into place.
 */
static const char write_script[] =
	"set -e; umask 077; d=$(dirname -- \"$1\"); mkdir -p -- \"$d\"; "
	"t=$(mktemp -- \"$1.bringup.XXXXXX\"); trap 'rm -f -- \"$t\"' EXIT; "
	"cat >\"$t\"; [ \"$(wc -c <\"$t\")\" -eq \"$3\" ] || "
	"{ echo \"input cut short: $(wc -c <\"$t\") of $3 bytes\" >&2; exit 1; }; "
	"chmod \"$2\" \"$t\"; sync -- \"$t\" 2>/dev/null || sync; "
	"mv -f -- \"$t\" \"$1\"; trap - EXIT";

int mod_put_file(struct mod_ctx *mc, const char *path, const char *content,
		 unsigned mode, bool *ret_changed)
{
	struct strbuf old = STRBUF_INIT, diff = STRBUF_INIT;
	unsigned old_mode = 0;
	bool exists;
	char modebuf[8], lenbuf[24];
	int ret = read_with_mode(mc, path, &old, &old_mode, &exists);

	if (ret_changed)
		*ret_changed = false;
	if (ret || (exists && old_mode == mode && !strcmp(old.buf, content)))
		goto out;
	if (ret_changed)
		*ret_changed = true;
	if (mc->phase != PHASE_APPLY) {
		char *a = xasprintf("a%s", path), *b = xasprintf("b%s", path);

		diff_unified(exists ? a : "/dev/null", old.buf, b, content, &diff);
		if (exists && old_mode != mode)
			mod_change(mc, diff.buf, "%s: mode %o -> %o%s", path, old_mode, mode,
				   strcmp(old.buf, content) ? ", new content" : "");
		else
			mod_change(mc, diff.buf, "%s %s", exists ? "update" : "create", path);
		free(a);
		free(b);
		goto out;
	}
	snprintf(modebuf, sizeof(modebuf), "%o", mode);
	snprintf(lenbuf, sizeof(lenbuf), "%zu", strlen(content));
	{
		const char *argv[] = { "sh", "-c", write_script, "sh", path, modebuf, lenbuf, NULL };
		struct cmd_result res;
		struct strbuf why = STRBUF_INIT;

		ret = mod_exec(mc, argv, content, &res);
		if (!ret && res.exit_status) {
			first_line(&res, &why);
			ret = mod_fail(mc, ERR_REMOTE, "cannot write %s: %s", path, why.buf);
		}
		strbuf_release(&why);
		cmd_result_release(&res);
	}
	if (!ret)
		mod_note(mc, "wrote %s", path);
	json_object_del(mc->files, path);
out:
	strbuf_release(&old);
	strbuf_release(&diff);
	return ret;
}

int mod_upload(struct mod_ctx *mc, const char *local, const char *remote, unsigned mode)
{
	struct upload_result ur = { 0 };
	struct strbuf how = STRBUF_INIT;
	int ret;

	if (mc->phase != PHASE_APPLY || mc->checking)
		return mod_fail(mc, ERR_INTERNAL, "upload of %s outside apply", remote);
	if (stopping(mc))
		return err_set(mc->err, ERR_CANCELLED, "stopped before uploading %s", remote);
	if (mc->local) {
		const char *argv[] = { "install", "-m", NULL, "--", local, remote, NULL };
		char m[8];
		struct cmd_result res;

		snprintf(m, sizeof(m), "%o", mode);
		argv[2] = m;
		ret = mod_exec_ok(mc, argv, NULL, &res);
		cmd_result_release(&res);
		return ret;
	}
	ret = task_upload(mc->task, 0, local, remote, mode, &ur, mc->err);
	/* Where a cut transfer was taken up again, the log says from where. */
	if (ur.restarted)
		strbuf_addf(&how, "; the %lld bytes left by a cut transfer were not this file's: "
			    "sent whole", ur.resumed_at);
	else if (ur.resumed_at)
		strbuf_addf(&how, "; resumed a cut transfer at byte %lld of %lld", ur.resumed_at,
			    ur.size);
	if (mc->log) {
		char *line = xasprintf("(sftp) upload %s -> %s, mode %o", local, remote, mode);
		char *what = ret ? xstrdup(err_msg(mc->err)) :
			     xasprintf("done, sha256 verified%s", how.buf);

		runlog_action(mc->log, mc->host, mc->stage, line, what);
		free(what);
		free(line);
	}
	if (!ret)
		mod_note(mc, "uploaded %s%s", remote, how.buf);
	strbuf_release(&how);
	free(ur.path);
	return ret;
}

int mod_put_template(struct mod_ctx *mc, const char *tmpl, const char *path,
		     unsigned mode, bool *ret_changed)
{
	struct strbuf text = STRBUF_INIT;
	int ret = mod_render(mc, tmpl, &text);

	if (!ret)
		ret = mod_put_file(mc, path, text.buf, mode, ret_changed);
	strbuf_release(&text);
	return ret;
}

/* ---- long commands and reboots ---- */

int mod_exec_timeout(struct mod_ctx *mc, const char *const *argv, const char *input,
		     unsigned timeout_s, struct cmd_result *res)
{
	unsigned saved = mc->timeout_s;
	int ret;

	mc->timeout_s = timeout_s;
	ret = mod_exec(mc, argv, input, res);
	mc->timeout_s = saved;
	return ret;
}

int mod_script_timeout(struct mod_ctx *mc, const char *tmpl, const char *const *args,
		       unsigned timeout_s, struct cmd_result *res)
{
	unsigned saved = mc->timeout_s;
	int ret;

	mc->timeout_s = timeout_s;
	ret = mod_script(mc, tmpl, args, res);
	mc->timeout_s = saved;
	return ret;
}

#define BOOT_ID_CMD "cat /proc/sys/kernel/random/boot_id"
/* systemctl reboot queues the reboot and returns (so does shutdown -r). */
#define REBOOT_CMD "if command -v systemctl >/dev/null 2>&1; then systemctl reboot; " \
		   "else shutdown -r now; fi"
#define REBOOT_SEND_TIMEOUT_S 30
#define REBOOT_POLL_MAX_MS 5000
#define REBOOT_CONNECT_MAX_MS 10000

/*
 * A command of mod_reboot: while the host goes down and comes back its
 * failures are expected, so they land in `e`, not in the module's error.
 */
static int reboot_exec(struct mod_ctx *mc, const char *line, unsigned timeout_s,
		       struct cmd_result *res, struct err *e)
{
	struct remote_cmd rc = { .command = line, .timeout_ms = timeout_s * 1000,
				 .max_output = 64 << 10 };
	int ret;

	cmd_result_init(res);
	ret = task_exec(mc->task, 0, &rc, res, e);
	if (mc->log)
		runlog_command(mc->log, mc->host, mc->stage, line, ret ? NULL : res,
			       ret ? err_msg(e) : NULL);
	return ret;
}

/* The host's boot id into out; anything else is an error in e. */
static int read_boot_id(struct mod_ctx *mc, unsigned timeout_s, struct strbuf *out,
			struct err *e)
{
	struct cmd_result res;
	int ret = reboot_exec(mc, BOOT_ID_CMD, timeout_s, &res, e);

	strbuf_rtrim(&res.out);
	if (!ret && (res.outcome != CMD_EXITED || res.exit_status || !res.out.len))
		ret = err_set(e, ERR_REMOTE, "%s: no boot id (exit %d)", BOOT_ID_CMD,
			      res.exit_status);
	if (!ret) {
		strbuf_reset(out);
		strbuf_add(out, res.out.buf, res.out.len);
	}
	cmd_result_release(&res);
	return ret;
}

/* Sleeps ms in short naps; false when the run was cancelled meanwhile. */
static bool nap(const struct mod_ctx *mc, long long ms)
{
	for (; ms > 0; ms -= 200) {
		if (stopping(mc))
			return false;
		poll(NULL, 0, (int)(ms < 200 ? ms : 200));
	}
	return !stopping(mc);
}

/* Asks the host to reboot; a connection that drops meanwhile is the reboot. */
static int send_reboot(struct mod_ctx *mc)
{
	struct cmd_result res;
	struct err e = ERR_INIT;
	int ret = reboot_exec(mc, REBOOT_CMD, REBOOT_SEND_TIMEOUT_S, &res, &e);

	if (ret)
		ret = mod_fail(mc, ret, "cannot send the reboot: %s", err_msg(&e));
	else if (res.outcome == CMD_EXITED && res.exit_status) {
		struct strbuf why = STRBUF_INIT;

		first_line(&res, &why);
		ret = mod_fail(mc, ERR_REMOTE, "the reboot command failed (exit %d)%s%s",
			       res.exit_status, why.len ? ": " : "", why.buf);
		strbuf_release(&why);
	}
	cmd_result_release(&res);
	err_clear(&e);
	return ret;
}

/*
 * Polls until the host answers over SSH with a boot id other than `before`.
 * `last` says what the latest try met; *ret_same whether the host answered
 * with the old boot id then.
 */
static int wait_new_boot(struct mod_ctx *mc, const char *before, long long deadline,
			 struct strbuf *now, struct strbuf *last, bool *ret_same)
{
	long long delay = 2000;

	for (;;) {
		long long left = deadline - now_ms();
		struct err e = ERR_INIT;
		unsigned ct;
		int ret;

		if (left <= 0)
			return ERR_TIMEOUT;
		if (!nap(mc, delay < left ? delay : left))
			return ERR_CANCELLED;
		delay = delay + 1000 < REBOOT_POLL_MAX_MS ? delay + 1000 : REBOOT_POLL_MAX_MS;
		left = deadline - now_ms();
		if (left <= 0)
			return ERR_TIMEOUT;
		ct = (unsigned)(left < REBOOT_CONNECT_MAX_MS ? left : REBOOT_CONNECT_MAX_MS);
		ret = task_reconnect(mc->task, 0, ct, &e);
		if (!ret)
			ret = read_boot_id(mc, (unsigned)(ct + 999) / 1000, now, &e);
		if (!ret && strcmp(now->buf, before)) {
			err_clear(&e);
			return 0;
		}
		strbuf_reset(last);
		*ret_same = !ret;
		if (ret)
			strbuf_addstr(last, err_msg(&e));
		else
			strbuf_addf(last, "it still runs the boot it had (boot id %s)", before);
		err_clear(&e);
		task_disconnect(mc->task, 0);
	}
}

int mod_reboot(struct mod_ctx *mc, unsigned timeout_s)
{
	struct strbuf before = STRBUF_INIT, now = STRBUF_INIT, last = STRBUF_INIT;
	struct err e = ERR_INIT;
	long long t0 = now_ms(), deadline = t0 + timeout_s * 1000LL, run_end;
	bool same = false;
	int ret;

	if (mc->local || !mc->task || mc->phase != PHASE_APPLY || mc->checking)
		return mod_fail(mc, ERR_INTERNAL, "stage %s: a reboot is only possible in apply, "
				"on a remote host", mc->stage);
	run_end = task_deadline_ms(mc->task);
	if (run_end && run_end < deadline)
		deadline = run_end;
	if ((ret = read_boot_id(mc, REBOOT_SEND_TIMEOUT_S, &before, &e))) {
		ret = mod_fail(mc, ret, "before the reboot: %s", err_msg(&e));
		goto out;
	}
	mod_note(mc, "rebooting; waiting up to %u s for SSH", timeout_s);
	if ((ret = send_reboot(mc)))
		goto out;
	task_disconnect(mc->task, 0);
	json_object_clear(mc->files);
	ret = wait_new_boot(mc, before.buf, deadline, &now, &last, &same);
	if (ret == ERR_CANCELLED)
		ret = err_set(mc->err, ERR_CANCELLED, "stopped while waiting for %s to reboot",
			      mc->host);
	else if (ret && same)
		ret = mod_fail(mc, ERR_TIMEOUT, "%s did not reboot within %u s: %s", mc->host,
			       timeout_s, last.buf);
	else if (ret)
		ret = mod_fail(mc, ERR_TIMEOUT, "%s did not come back over SSH within %u s after "
			       "the reboot (last try: %s)", mc->host, timeout_s,
			       last.len ? last.buf : "none");
	else
		mod_note(mc, "back after %.0f s (boot id %s)", (double)(now_ms() - t0) / 1000.0,
			 now.buf);
	if (mc->log)
		runlog_action(mc->log, mc->host, mc->stage, "reboot and wait for SSH",
			      ret ? err_msg(mc->err) : "back with a new boot id");
out:
	err_clear(&e);
	strbuf_release(&before);
	strbuf_release(&now);
	strbuf_release(&last);
	return ret;
}

const char *mod_errmsg(const struct mod_ctx *mc)
{
	return mc->err && mc->err->msg ? mc->err->msg : "";
}

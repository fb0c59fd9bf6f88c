/* The combined probe script and its output; see prefetch.h. */
#include "prefetch.h"
#include "../base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Marker lines: "\001bringup-probe-KIND INDEX [STATUS] TOKEN". */
#define MARK "\001bringup-probe-"

void probe_slot_capture(struct probe_slot *s, const char *line, const char *input,
			const char *script)
{
	probe_slot_release(s);
	s->line = xstrdup(line);
	s->input = xstrdup(input ? input : "");
	s->script = script ? xstrdup(script) : NULL;
}

void probe_slot_release(struct probe_slot *s)
{
	free(s->line);
	free(s->input);
	free(s->script);
	if (s->have)
		cmd_result_release(&s->res);
	*s = (struct probe_slot)PROBE_SLOT_INIT;
}

/* A here-document delimiter that no line of `input` can end early. */
static void delimiter(size_t i, const char *input, struct strbuf *out)
{
	for (unsigned k = 0;; k++) {
		strbuf_reset(out);
		strbuf_addf(out, "__bringup_probe_%zu_%u", i, k);
		if (!strstr(input, out->buf))
			return;
	}
}

int prefetch_script(struct probe_slot *const *slots, size_t n, const char *token,
		    struct strbuf *out)
{
	struct strbuf eof = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(slots[i]->input);

		if (len && slots[i]->input[len - 1] != '\n')
			return ERR_STATE;
	}
	/* Builtins only between probes (printf, [): every fork is paid on
	 * every host. stderr goes through a file so it cannot interleave. */
	strbuf_addstr(out, "__bringup_d=$(mktemp -d \"${TMPDIR:-/tmp}/bringup-probe.XXXXXX\") "
			   "|| exit 97\ntrap 'rm -rf \"$__bringup_d\"' EXIT\n");
	for (size_t i = 0; i < n; i++) {
		delimiter(i, slots[i]->input, &eof);
		strbuf_addf(out, "printf '\\001bringup-probe-out %zu %s\\n'\n"
			    "{\n%s\n} <<'%s' 2>\"$__bringup_d/e\"\n%s%s\n__bringup_s=$?\n"
			    "printf '\\n\\001bringup-probe-err %zu %s\\n'\n"
			    "[ -s \"$__bringup_d/e\" ] && cat \"$__bringup_d/e\"\n"
			    "printf '\\n\\001bringup-probe-end %zu %%s %s\\n' \"$__bringup_s\"\n",
			    i, token, slots[i]->line, eof.buf, slots[i]->input, eof.buf,
			    i, token, i, token);
	}
	strbuf_addstr(out, "exit 0\n");
	strbuf_release(&eof);
	return 0;
}

/* The marker line "MARK kind i token\n" (status: "MARK end i S token\n"). */
static void marker(struct strbuf *sb, const char *kind, size_t i, const char *token)
{
	strbuf_reset(sb);
	strbuf_addf(sb, MARK "%s %zu %s\n", kind, i, token);
}

/* Finds "\n" + `what` in [p, end): the start of the "\n", or NULL. */
static const char *find(const char *p, const char *end, const char *what)
{
	size_t len = strlen(what);

	for (const char *q = p; (q = memchr(q, '\n', (size_t)(end - q))); q++)
		if ((size_t)(end - q - 1) >= len && !memcmp(q + 1, what, len))
			return q;
	return NULL;
}

/* One probe's stdout, stderr and status from *pp on; advances *pp. */
static int parse_one(const char **pp, const char *end, size_t i, const char *token,
		     struct cmd_result *r)
{
	struct strbuf m = STRBUF_INIT, tail = STRBUF_INIT;
	const char *p = *pp, *q;
	char *e;
	long status;
	int ret = ERR_PARSE;

	marker(&m, "out", i, token);
	if ((size_t)(end - p) < m.len || memcmp(p, m.buf, m.len))
		goto out;
	p += m.len;
	marker(&m, "err", i, token);
	if (!(q = find(p, end, m.buf)))
		goto out;
	strbuf_add(&r->out, p, (size_t)(q - p));
	p = q + 1 + m.len;
	strbuf_reset(&m);
	strbuf_addf(&m, MARK "end %zu ", i);
	if (!(q = find(p, end, m.buf)))
		goto out;
	strbuf_add(&r->err, p, (size_t)(q - p));
	p = q + 1 + m.len;
	status = strtol(p, &e, 10);
	strbuf_addf(&tail, " %s\n", token);
	if (e == p || (size_t)(end - e) < tail.len || memcmp(e, tail.buf, tail.len))
		goto out;
	r->outcome = CMD_EXITED;
	r->exit_status = (int)status;
	*pp = e + tail.len;
	ret = 0;
out:
	strbuf_release(&m);
	strbuf_release(&tail);
	return ret;
}

int prefetch_parse(struct probe_slot *const *slots, size_t n, const char *token,
		   const struct cmd_result *res, struct err *err)
{
	const char *p = res->out.buf, *end = res->out.buf + res->out.len;
	struct cmd_result *got = xcalloc(n ? n : 1, sizeof(*got));
	size_t i, done = 0;
	int ret = 0;

	if (res->outcome != CMD_EXITED || res->exit_status != 0 || res->out_truncated) {
		ret = err_set(err, ERR_REMOTE, "prefetch: the combined probe %s",
			      res->out_truncated ? "printed more than the output cap" :
			      res->outcome != CMD_EXITED ? "did not finish" : "failed");
		goto out;
	}
	for (; done < n; done++) {
		cmd_result_init(&got[done]);
		if (parse_one(&p, end, done, token, &got[done])) {
			done++;
			ret = err_set(err, ERR_PARSE, "prefetch: output of probe %zu of %zu cut or "
				      "malformed", done, n);
			goto out;
		}
	}
	if (p != end) {
		ret = err_set(err, ERR_PARSE, "prefetch: %zu unexpected bytes after the probes",
			      (size_t)(end - p));
		goto out;
	}
	for (i = 0; i < n; i++) {
		slots[i]->res = got[i];
		slots[i]->have = true;
		slots[i]->used = false;
	}
	done = 0;
out:
	for (i = 0; i < done; i++)
		cmd_result_release(&got[i]);
	free(got);
	return ret;
}

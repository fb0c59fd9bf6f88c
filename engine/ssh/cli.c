/*
 * A device CLI session over a byte stream: terminal rendering, prompt and
 * pager recognition, error lines, and the send/collect loop. See cli.h.
 */
#include "cli.h"
#include "ssh.h"
#include "../base/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A pager that never ends is a broken device, not a long config. */
#define CLI_MAX_PAGES 10000
/* Reads wait at most this long, so deadlines are checked often. */
#define CLI_READ_SLICE_MS 200
/* A pager still waiting this long after its key got none: answer again. */
#define CLI_PAGER_RETRY_MS 1000

struct cli {
	const struct cli_io *io;
	char *host;              /* for messages */
	enum cli_mode mode;
	struct strbuf devname;   /* from the prompt */
	unsigned pages;
};

/* ---- rendering ---- */

/*
 * Cursor movement stops at this column (a line longer than that only by its
 * own text), so "ESC[99999C" cannot pad a line by 100 kB; no switch CLI is
 * wider than a few hundred columns.
 */
#define CLI_MAX_COLUMNS 4096

struct term_line {
	struct strbuf text;
	size_t cur;
};

static void put_char(struct term_line *l, char ch)
{
	if (l->cur < l->text.len)
		l->text.buf[l->cur] = ch;
	else
		strbuf_addch(&l->text, ch);
	l->cur++;
}

static void commit_line(struct term_line *l, struct strbuf *out)
{
	strbuf_rtrim(&l->text);
	strbuf_add(out, l->text.buf, l->text.len);
	strbuf_addch(out, '\n');
	strbuf_reset(&l->text);
	l->cur = 0;
}

/* Moves the cursor to column `col` (0-based), clamped, padding with blanks. */
static void move_to(struct term_line *l, size_t col)
{
	size_t limit = l->text.len > CLI_MAX_COLUMNS ? l->text.len : CLI_MAX_COLUMNS;

	l->cur = col < limit ? col : limit;
	while (l->text.len < l->cur)
		strbuf_addch(&l->text, ' ');
}

/* Applies one CSI sequence ending in `final` with numeric parameter n. */
static void apply_csi(struct term_line *l, char final, unsigned n)
{
	switch (final) {
	case 'K':
		if (n == 0) {
			strbuf_setlen(&l->text, l->cur < l->text.len ? l->cur : l->text.len);
		} else {
			/* 1: start to cursor, 2: whole line; blanks keep positions. */
			size_t end = n == 2 ? l->text.len : l->cur;

			for (size_t i = 0; i < end && i < l->text.len; i++)
				l->text.buf[i] = ' ';
		}
		break;
	case 'D':
		l->cur = l->cur > (n ? n : 1) ? l->cur - (n ? n : 1) : 0;
		break;
	case 'C':
		move_to(l, l->cur + (n ? n : 1));
		break;
	case 'G':
		move_to(l, n > 1 ? n - 1 : 0);
		break;
	default:
		break; /* colours, modes: nothing to show */
	}
}

/*
 * An escape sequence at raw[i] (raw[i] is ESC): applies it and returns its
 * length, or 0 when it is cut off at the end of what arrived so far.
 */
static size_t escape(struct term_line *l, const char *raw, size_t len, size_t i)
{
	size_t j = i + 1;
	unsigned n = 0;

	if (j >= len)
		return 0;
	if (raw[j] != '[')
		return 2; /* ESC = , ESC > ...: keypad modes and the like */
	for (j++; j < len && raw[j] >= 0x30 && raw[j] <= 0x3f; j++)
		if (isdigit((unsigned char)raw[j]) && n < 10000)
			n = n * 10 + (unsigned)(raw[j] - '0');
	while (j < len && raw[j] >= 0x20 && raw[j] <= 0x2f)
		j++;
	if (j >= len)
		return 0;
	apply_csi(l, raw[j], n);
	return j - i + 1;
}

void cli_render(const char *raw, size_t len, struct strbuf *out)
{
	struct term_line l = { STRBUF_INIT, 0 };
	size_t start = out->len;

	for (size_t i = 0; i < len;) {
		unsigned char ch = (unsigned char)raw[i];
		size_t step = 1;

		/* each byte adds at most CLI_MAX_COLUMNS: stop soon after the cap */
		if (out->len + l.text.len > start + CLI_RENDER_MAX)
			break;
		if (ch == '\n')
			commit_line(&l, out);
		else if (ch == '\r')
			l.cur = 0;
		else if (ch == '\b')
			l.cur -= l.cur > 0;
		else if (ch == 0x1b)
			step = escape(&l, raw, len, i);
		else if (ch == '\t' || ch >= 0x20)
			put_char(&l, (char)ch);
		if (!step)
			break;
		i += step;
	}
	strbuf_add(out, l.text.buf, l.text.len);
	strbuf_release(&l.text);
}

/* ---- recognising prompts, pagers, errors ---- */

static bool host_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '-' || ch == '_' || ch == '.';
}

/* Strips trailing blanks of [s, *end). */
static void rtrim_span(const char *s, const char **end)
{
	while (*end > s && ((*end)[-1] == ' ' || (*end)[-1] == '\t'))
		(*end)--;
}

bool cli_parse_prompt(const char *line, enum cli_mode *ret_mode, struct strbuf *ret_host)
{
	const char *end = line + strlen(line), *h;
	enum cli_mode mode;
	char sign;

	rtrim_span(line, &end);
	if (end == line || (end[-1] != '>' && end[-1] != '#'))
		return false;
	sign = *--end;
	mode = sign == '>' ? CLI_MODE_USER : CLI_MODE_ENABLE;
	rtrim_span(line, &end);
	if (end > line && end[-1] == ')') {
		const char *open = end - 1;

		while (open > line && *open != '(')
			open--;
		if (*open != '(' || strncmp(open + 1, "config", 6) || sign != '#')
			return false;
		mode = CLI_MODE_CONFIG;
		end = open;
		rtrim_span(line, &end);
	}
	if (end > line && end[-1] == ']') {
		const char *open = end - 1;

		while (open > line && *open != '[')
			open--;
		if (*open != '[')
			return false;
		end = open;
		rtrim_span(line, &end);
	}
	for (h = end; h > line && host_char(h[-1]); h--)
		;
	if (h != line || h == end)
		return false;
	if (ret_mode)
		*ret_mode = mode;
	if (ret_host) {
		strbuf_reset(ret_host);
		strbuf_add(ret_host, h, (size_t)(end - h));
	}
	return true;
}

bool cli_is_pager(const char *line)
{
	unsigned a, b;
	char rest[32];
	bool colon = false;

	while (*line == ' ' || *line == ':')
		colon |= *line++ == ':';
	/* less's plain prompt: a lone colon. */
	if (colon && !*line)
		return true;
	if (!strncmp(line, "--More--", 8) || !strncmp(line, "-- More --", 10) ||
	    !strncmp(line, "(END)", 5))
		return true;
	/* less's prompt as MLNX-OS shows it: "lines 1-23", "lines 24-46/60 (END)". */
	rest[0] = '\0';
	return sscanf(line, "lines %u-%u%31[^\n]", &a, &b, rest) >= 2 && a <= b &&
	       (!rest[0] || rest[0] == ' ' || rest[0] == '/');
}

const char *cli_error_line(const char *output, size_t *ret_len)
{
	for (const char *p = output; *p;) {
		size_t len = strcspn(p, "\n");

		if (p[0] == '%' && p[1] == ' ') {
			*ret_len = len;
			return p;
		}
		p += len + (p[len] == '\n');
	}
	return NULL;
}

/* ---- the session ---- */

static const char *last_line(const struct strbuf *text)
{
	const char *nl = strrchr(text->buf, '\n');

	return nl ? nl + 1 : text->buf;
}

/* Drops lines a pager left behind when it did not erase its prompt. */
static void drop_pager_lines(struct strbuf *text)
{
	struct strbuf kept = STRBUF_INIT;

	for (const char *p = text->buf; *p;) {
		size_t len = strcspn(p, "\n");
		char *line = xstrndup(p, len);

		if (!cli_is_pager(line)) {
			strbuf_add(&kept, p, len);
			if (p[len] == '\n')
				strbuf_addch(&kept, '\n');
		}
		free(line);
		p += len + (p[len] == '\n');
	}
	strbuf_reset(text);
	strbuf_add(text, kept.buf, kept.len);
	strbuf_release(&kept);
}

/* The last few lines of text, for a timeout's message. */
static void tail_lines(const struct strbuf *text, struct strbuf *out)
{
	const char *p = text->buf + text->len;
	int lines = 0;

	while (p > text->buf && lines < 3)
		if (*--p == '\n' && p + 1 < text->buf + text->len)
			lines++;
	strbuf_addstr(out, p + (*p == '\n'));
	for (size_t i = 0; i < out->len; i++)
		if (out->buf[i] == '\n')
			out->buf[i] = '|';
}

/*
 * Reads until the rendered text ends in a prompt, answering the pager.
 * text gets everything before the prompt. `what` says what was awaited.
 */
static int wait_prompt(struct cli *c, const char *what, long long deadline,
		       struct strbuf *text, struct err *err)
{
	struct strbuf raw = STRBUF_INIT, tail = STRBUF_INIT, host = STRBUF_INIT;
	size_t answered_at = (size_t)-1;
	long long answered_ms = 0;
	enum cli_mode mode;
	int rc = 0;

	for (;;) {
		const char *last;
		long long left;
		bool eof = false;

		strbuf_reset(text);
		cli_render(raw.buf, raw.len, text);
		last = last_line(text);
		/*
		 * Once the device's name is known, only a prompt with that name
		 * ends a command: a half-read output line that happens to end in
		 * '#' or '>' does not.
		 */
		if (cli_parse_prompt(last, &mode, &host) &&
		    (!c->devname.len || !strcmp(host.buf, c->devname.buf))) {
			c->mode = mode;
			strbuf_reset(&c->devname);
			strbuf_add(&c->devname, host.buf, host.len);
			strbuf_setlen(text, (size_t)(last - text->buf));
			break;
		}
		/*
		 * A key that reached the device before its pager read the
		 * terminal is lost (or lands on the next command line, where a
		 * blank does no harm): a pager that did not move gets another.
		 */
		if (cli_is_pager(last) &&
		    (answered_at != raw.len || now_ms() - answered_ms >= CLI_PAGER_RETRY_MS)) {
			answered_at = raw.len;
			answered_ms = now_ms();
			if (++c->pages > CLI_MAX_PAGES) {
				rc = err_set(err, ERR_REMOTE, "switch %s: %s: the pager never ends",
					     c->host, what);
				break;
			}
			rc = c->io->write(c->io->arg, " ", 1, err);
			if (rc)
				break;
			continue;
		}
		left = deadline - now_ms();
		if (left <= 0) {
			tail_lines(text, &tail);
			rc = err_set(err, ERR_TIMEOUT, "switch %s: no CLI prompt after %s "
				     "(last output: %s)", c->host, what, tail.len ? tail.buf : "none");
			break;
		}
		if (raw.len >= CLI_OUTPUT_MAX) {
			rc = err_set(err, ERR_REMOTE, "switch %s: %s: more than %u bytes of output",
				     c->host, what, CLI_OUTPUT_MAX);
			break;
		}
		rc = c->io->read(c->io->arg, &raw, CLI_OUTPUT_MAX - raw.len,
				 (int)(left < CLI_READ_SLICE_MS ? left : CLI_READ_SLICE_MS), &eof, err);
		if (rc)
			break;
		if (eof) {
			tail_lines(text, &tail);
			rc = err_set(err, ERR_SSH, "switch %s: the CLI closed the session during %s "
				     "(last output: %s)", c->host, what, tail.len ? tail.buf : "none");
			break;
		}
	}
	if (!rc)
		drop_pager_lines(text);
	strbuf_release(&raw);
	strbuf_release(&tail);
	strbuf_release(&host);
	return rc;
}

int cli_open(const struct cli_io *io, const char *host, unsigned timeout_ms,
	     struct strbuf *banner, struct cli **ret, struct err *err)
{
	struct cli *c = xcalloc(1, sizeof(*c));
	struct strbuf text = STRBUF_INIT;
	int rc;

	c->io = io;
	c->host = xstrdup(host);
	strbuf_init(&c->devname, 0);
	rc = wait_prompt(c, "login", now_ms() + timeout_ms, &text, err);
	if (!rc && banner)
		strbuf_add(banner, text.buf, text.len);
	strbuf_release(&text);
	if (rc) {
		cli_free(c);
		c = NULL;
	}
	*ret = c;
	return rc;
}

/* The echo is the first line of what follows the command; drop it. */
static void drop_echo(struct strbuf *out, const char *command)
{
	size_t len = strcspn(out->buf, "\n");
	size_t clen = strlen(command);

	while (clen && command[clen - 1] == ' ')
		clen--;
	if (len == clen && !strncmp(out->buf, command, clen)) {
		size_t skip = len + (out->buf[len] == '\n');

		memmove(out->buf, out->buf + skip, out->len - skip + 1);
		strbuf_setlen(out, out->len - skip);
	}
}

int cli_run(struct cli *c, const char *command, unsigned timeout_ms, struct strbuf *out,
	    struct err *err)
{
	char *what = xasprintf("`%s`", command);
	const char *bad;
	size_t badlen;
	int rc;

	for (char *p = what; *p; p++) /* messages reach terminals too */
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	strbuf_reset(out);
	if (strchr(command, '\n') || strchr(command, '\r')) {
		rc = err_set(err, ERR_USAGE, "switch %s: a CLI command is one line: %s",
			     c->host, what);
		goto out;
	}
	/* A terminal acts on the others (ESC, ^U, ^C, tab completion...). */
	for (const char *p = command; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			rc = err_set(err, ERR_USAGE, "switch %s: found control character "
				     "0x%02x in CLI command %s, expected printable text",
				     c->host, (unsigned char)*p, what);
			goto out;
		}
	rc = c->io->write(c->io->arg, command, strlen(command), err);
	if (!rc)
		rc = c->io->write(c->io->arg, "\n", 1, err);
	if (!rc)
		rc = wait_prompt(c, what, now_ms() + timeout_ms, out, err);
	if (rc)
		goto out;
	drop_echo(out, command);
	bad = cli_error_line(out->buf, &badlen);
	if (bad)
		rc = err_set(err, ERR_REMOTE, "switch %s: %s failed: %.*s", c->host, what,
			     (int)badlen, bad);
out:
	free(what);
	return rc;
}

enum cli_mode cli_mode(const struct cli *c)
{
	return c->mode;
}

const char *cli_hostname(const struct cli *c)
{
	return c->devname.buf;
}

unsigned cli_pages(const struct cli *c)
{
	return c->pages;
}

void cli_free(struct cli *c)
{
	if (!c)
		return;
	free(c->host);
	strbuf_release(&c->devname);
	free(c);
}

/*
 * engine/ssh/cli.c: a managed switch's CLI seen through a terminal. The
 * transcripts are byte streams as an MLNX-OS switch sends them over a pty
 * (prompts as NVIDIA's MLNX-OS manual prints them, \r\n line ends, the echo
 * of what was typed, less's "lines 1-23" pager erased with \r ESC[K, "% ..."
 * errors); see tests/fixtures/switch/SOURCES.md. A fake stream hands each chunk
 * over only after the client wrote enough (a command, a pager key), so the
 * tests also prove what the session sends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "../../engine/ssh/cli.h"
#include "../../engine/ssh/ssh.h"
#include "../../engine/base/xalloc.h"

/* ---- rendering ---- */

static void render(const char *raw, struct strbuf *out)
{
	strbuf_reset(out);
	cli_render(raw, strlen(raw), out);
}

static void test_render_terminal_codes(void **state)
{
	struct strbuf out = STRBUF_INIT;

	(void)state;
	render("line one\r\nline two   \r\n", &out);
	assert_string_equal(out.buf, "line one\nline two\n");
	/* A typo fixed with backspace, echoed as \b \b. */
	render("ennn\b \b\b \bable\r\n", &out);
	assert_string_equal(out.buf, "enable\n");
	/* less erases its prompt before the next page. */
	render("   web enable\r\nlines 1-23 \r\033[K   ntp disable\r\n", &out);
	assert_string_equal(out.buf, "   web enable\n   ntp disable\n");
	/* Erase the whole line, colours, cursor moves; an unfinished sequence waits. */
	render("junk\033[2K\r\033[1mbold\033[0m\033[3Dxy\r\nrest\033[", &out);
	assert_string_equal(out.buf, "bxyd\nrest");
	/* The unfinished last line is kept as it is: that is where prompts live. */
	render("\r\nibsw01 [standalone: master] # ", &out);
	assert_string_equal(out.buf, "\nibsw01 [standalone: master] # ");
	strbuf_release(&out);
}

/*
 * Found by fuzzing: each ESC[99999C padded the line by 100 kB, so 8 KB of
 * input rendered to 100 MB. Moves stop at column 4096 and the output stops
 * growing a little past CLI_RENDER_MAX.
 */
static void test_render_is_bounded(void **state)
{
	struct strbuf raw = STRBUF_INIT, out = STRBUF_INIT;

	(void)state;
	while (raw.len < 8192)
		strbuf_addstr(&raw, "\033[99999C");
	strbuf_addch(&raw, 'x');
	cli_render(raw.buf, raw.len, &out);
	assert_int_equal(out.len, 4097);
	assert_int_equal(out.buf[4096], 'x');
	/* G too, and a line longer than 4096 by its own text keeps its length */
	strbuf_reset(&out);
	render("ab\033[99999Gc", &out);
	assert_int_equal(out.len, 4097);
	strbuf_reset(&raw);
	for (int i = 0; i < 5000; i++)
		strbuf_addch(&raw, 'y');
	strbuf_addstr(&raw, "\033[9C\033[1Dz");
	strbuf_reset(&out);
	cli_render(raw.buf, raw.len, &out);
	assert_int_equal(out.len, 5000);
	assert_int_equal(out.buf[4999], 'z');
	/* many short padded lines: 240 kB in, at most about CLI_RENDER_MAX out */
	strbuf_reset(&raw);
	while (raw.len < 240000)
		strbuf_addstr(&raw, "\033[99999Cx\n");
	strbuf_reset(&out);
	cli_render(raw.buf, raw.len, &out);
	assert_true(out.len <= CLI_RENDER_MAX + 2 * 4096);
	assert_true(out.len >= CLI_RENDER_MAX);
	strbuf_release(&raw);
	strbuf_release(&out);
}

/* ---- prompts, pagers, errors ---- */

static void test_prompts(void **state)
{
	struct strbuf host = STRBUF_INIT;
	enum cli_mode mode = CLI_MODE_NONE;

	(void)state;
	assert_true(cli_parse_prompt("ibsw01 [standalone: master] > ", &mode, &host));
	assert_int_equal(mode, CLI_MODE_USER);
	assert_string_equal(host.buf, "ibsw01");
	assert_true(cli_parse_prompt("switch [subnet2: master] # ", &mode, &host));
	assert_int_equal(mode, CLI_MODE_ENABLE);
	assert_string_equal(host.buf, "switch");
	assert_true(cli_parse_prompt("sw-ib.lab [standalone: master] (config) # ", &mode, &host));
	assert_int_equal(mode, CLI_MODE_CONFIG);
	assert_string_equal(host.buf, "sw-ib.lab");
	assert_true(cli_parse_prompt("switch-5a2b3c (config interface ib 1/1) #", &mode, &host));
	assert_int_equal(mode, CLI_MODE_CONFIG);
	assert_true(cli_parse_prompt("switch-5a2b3c >", &mode, NULL));
	assert_int_equal(mode, CLI_MODE_USER);
	/* Output that ends like a prompt is not one. */
	assert_false(cli_parse_prompt("##", NULL, NULL));
	assert_false(cli_parse_prompt("## Hostname: ibsw01", NULL, NULL));
	assert_false(cli_parse_prompt("   ib smnode ibsw01 enable", NULL, NULL));
	assert_false(cli_parse_prompt("two words #", NULL, NULL));
	assert_false(cli_parse_prompt("ibsw01 (config) > ", NULL, NULL));
	assert_false(cli_parse_prompt("", NULL, NULL));
	strbuf_release(&host);
}

static void test_pagers_and_errors(void **state)
{
	const char *out = "ok\n% Unrecognized command \"foo\".\nType \"?\" for help.\n";
	size_t len = 0;
	const char *e;

	(void)state;
	assert_true(cli_is_pager("lines 1-23 "));
	assert_true(cli_is_pager("lines 24-46/60 (END)"));
	assert_true(cli_is_pager("--More--"));
	assert_true(cli_is_pager(":"));
	assert_false(cli_is_pager("lines of text"));
	assert_false(cli_is_pager("   interface ib 1/1-1/36 speed auto"));
	e = cli_error_line(out, &len);
	assert_non_null(e);
	assert_int_equal(len, strlen("% Unrecognized command \"foo\"."));
	assert_memory_equal(e, "% Unrecognized command \"foo\".", len);
	assert_null(cli_error_line("## 100% done\n", &len));
}

/* ---- sessions on a scripted stream ---- */

struct chunk {
	unsigned after_writes; /* handed over once the client wrote this often */
	const char *data;
};

struct fake {
	const struct chunk *chunks;
	size_t n, next;
	unsigned writes;
	struct strbuf written;
	bool eof_at_end;
};

static int fake_read(void *arg, struct strbuf *out, size_t max, int timeout_ms, bool *ret_eof,
		     struct err *err)
{
	struct fake *f = arg;
	size_t len;

	(void)timeout_ms;
	(void)err;
	*ret_eof = false;
	if (f->next == f->n) {
		*ret_eof = f->eof_at_end;
		usleep(1000);
		return 0;
	}
	if (f->chunks[f->next].after_writes > f->writes) {
		usleep(1000);
		return 0;
	}
	len = strlen(f->chunks[f->next].data);
	assert_true(len <= max);
	strbuf_add(out, f->chunks[f->next++].data, len);
	return 0;
}

static int fake_write(void *arg, const char *buf, size_t len, struct err *err)
{
	struct fake *f = arg;

	(void)err;
	f->writes++;
	strbuf_add(&f->written, buf, len);
	return 0;
}

#define PROMPT_EN "ibsw01 [standalone: master] # "
#define PROMPT_CONF "ibsw01 [standalone: master] (config) # "

static const struct chunk login_and_config[] = {
	{ 0, "\r\nNVIDIA MLNX-OS Switch Management\r\n\r\nLast login: Sat Nov 21 14:08:43 2026 "
	     "from 10.0.0.5\r\n\r\nNVIDIA Switch MSB7800\r\n\r\n" },
	{ 0, "ibsw01 [standalone: mas" },   /* a prompt cut across two reads */
	{ 0, "ter] > " },
	/* enable */
	{ 2, "enable\r\n" PROMPT_EN },
	/* configure terminal, echoed in two pieces */
	{ 4, "configure ter" },
	{ 4, "minal\r\n" PROMPT_CONF },
	/* show running-config: two pages */
	{ 6, "show running-config\r\n##\r\n## Running database \"initial\"\r\n"
	     "## Hostname: ibsw01\r\n##\r\n\r\n##\r\n## Subnet Manager configuration\r\n##\r\n" },
	{ 6, "   ib smnode ibsw01 enable\r\n" },
	{ 6, "core-sw1 >" },   /* a line cut where it looks like a prompt */
	{ 6, " ibsw01 1/36\r\nlines 1-10 " },
	{ 7, "\r\033[K   ib smnode ibsw01 sm-priority 14\r\n   ib sm virt enable\r\n"
	     "lines 11-12 " },
	{ 8, "\r\033[K\r\n##\r\n## Network management configuration\r\n##\r\n"
	     "   clock timezone UTC\r\n" PROMPT_CONF },
	/* a typo */
	{ 10, "ib smnod ibsw01 enable\r\n% Unrecognized command \"smnod\".\r\n"
	      "Type \"?\" for help.\r\n" PROMPT_CONF },
};

static void test_session(void **state)
{
	struct fake f = { login_and_config, sizeof(login_and_config) / sizeof(*login_and_config),
			  0, 0, STRBUF_INIT, false };
	struct cli_io io = { fake_read, fake_write, &f };
	struct strbuf banner = STRBUF_INIT, out = STRBUF_INIT;
	struct err err = ERR_INIT;
	struct cli *c = NULL;

	(void)state;
	assert_int_equal(cli_open(&io, "ibsw01", 5000, &banner, &c, &err), 0);
	assert_non_null(strstr(banner.buf, "NVIDIA Switch MSB7800\n"));
	assert_int_equal(cli_mode(c), CLI_MODE_USER);
	assert_string_equal(cli_hostname(c), "ibsw01");

	assert_int_equal(cli_run(c, "enable", 5000, &out, &err), 0);
	assert_string_equal(out.buf, "");
	assert_int_equal(cli_mode(c), CLI_MODE_ENABLE);
	assert_int_equal(cli_run(c, "configure terminal", 5000, &out, &err), 0);
	assert_int_equal(cli_mode(c), CLI_MODE_CONFIG);

	assert_int_equal(cli_run(c, "show running-config", 5000, &out, &err), 0);
	assert_string_equal(out.buf,
			    "##\n## Running database \"initial\"\n## Hostname: ibsw01\n##\n\n##\n"
			    "## Subnet Manager configuration\n##\n"
			    "   ib smnode ibsw01 enable\ncore-sw1 > ibsw01 1/36\n"
			    "   ib smnode ibsw01 sm-priority 14\n"
			    "   ib sm virt enable\n\n##\n## Network management configuration\n##\n"
			    "   clock timezone UTC\n");
	assert_int_equal(cli_pages(c), 2);

	assert_int_equal(cli_run(c, "ib smnod ibsw01 enable", 5000, &out, &err), ERR_REMOTE);
	assert_non_null(strstr(err_msg(&err), "switch ibsw01: `ib smnod ibsw01 enable` failed: "
					      "% Unrecognized command \"smnod\"."));
	assert_non_null(strstr(out.buf, "Type \"?\" for help."));
	assert_int_equal(cli_mode(c), CLI_MODE_CONFIG);

	/* What went out: each command and its newline, a space per page. */
	assert_string_equal(f.written.buf, "enable\nconfigure terminal\nshow running-config\n"
					   "  ib smnod ibsw01 enable\n");
	err_clear(&err);
	cli_free(c);
	strbuf_release(&banner);
	strbuf_release(&out);
	strbuf_release(&f.written);
}

/* The first key reached the device before its pager read the terminal. */
static const struct chunk lost_key[] = {
	{ 0, "ibsw01 [standalone: master] # " },
	{ 2, "show ib smnode ibsw01\r\nibsw01:\r\n  SM enabled : yes\r\nlines 1-2 " },
	{ 4, "\r\033[K  SM running : running\r\nibsw01 [standalone: master] # " },
};

static void test_pager_key_lost(void **state)
{
	struct fake f = { lost_key, 3, 0, 0, STRBUF_INIT, false };
	struct cli_io io = { fake_read, fake_write, &f };
	struct strbuf out = STRBUF_INIT;
	struct err err = ERR_INIT;
	struct cli *c = NULL;

	(void)state;
	assert_int_equal(cli_open(&io, "ibsw01", 5000, NULL, &c, &err), 0);
	assert_int_equal(cli_run(c, "show ib smnode ibsw01", 5000, &out, &err), 0);
	assert_string_equal(out.buf, "ibsw01:\n  SM enabled : yes\n  SM running : running\n");
	assert_int_equal(cli_pages(c), 2);
	assert_string_equal(f.written.buf, "show ib smnode ibsw01\n  ");
	cli_free(c);
	strbuf_release(&out);
	strbuf_release(&f.written);
}

/* A control character in a command never reaches the terminal: ESC or ^U
 * would edit the line, tab would complete it. */
static void test_control_characters_refused(void **state)
{
	static const char *const bad[] = {
		"ib smnode sw\033[2K enable", "ib smnode sw\025 enable",
		"ib smnode sw\t enable", "ib smnode sw\177 enable",
	};
	struct fake f = { lost_key, 3, 0, 0, STRBUF_INIT, false };
	struct cli_io io = { fake_read, fake_write, &f };
	struct strbuf out = STRBUF_INIT;
	struct err err = ERR_INIT;
	struct cli *c = NULL;

	(void)state;
	assert_int_equal(cli_open(&io, "ibsw01", 5000, NULL, &c, &err), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cli_run(c, bad[i], 5000, &out, &err), ERR_USAGE);
		assert_non_null(strstr(err_msg(&err), "found control character 0x"));
		assert_null(strchr(err_msg(&err), '\033'));
		err_clear(&err);
	}
	assert_int_equal(cli_run(c, "ib smnode sw\033 enable", 5000, &out, &err), ERR_USAGE);
	assert_string_equal(err_msg(&err), "switch ibsw01: found control character 0x1b "
			    "in CLI command `ib smnode sw? enable`, expected printable text");
	err_clear(&err);
	assert_int_equal(f.written.len, 0); /* nothing was sent */
	cli_free(c);
	strbuf_release(&out);
	strbuf_release(&f.written);
}

static const struct chunk stuck[] = {
	{ 0, "ibsw01 [standalone: master] > " },
	{ 2, "show ib sm\r\nenable\r\n" }, /* and then nothing: no prompt */
};

static void test_timeout_and_eof(void **state)
{
	struct fake f = { stuck, 2, 0, 0, STRBUF_INIT, false };
	struct cli_io io = { fake_read, fake_write, &f };
	struct strbuf out = STRBUF_INIT;
	struct err err = ERR_INIT;
	struct cli *c = NULL;
	long long t0;

	(void)state;
	assert_int_equal(cli_open(&io, "ibsw01", 5000, NULL, &c, &err), 0);
	t0 = now_ms();
	assert_int_equal(cli_run(c, "show ib sm", 300, &out, &err), ERR_TIMEOUT);
	assert_true(now_ms() - t0 < 3000);
	assert_non_null(strstr(err_msg(&err), "no CLI prompt after `show ib sm`"));
	assert_non_null(strstr(err_msg(&err), "enable"));
	cli_free(c);
	err_clear(&err);

	/* A session the switch closes is an error at once, not a timeout. */
	strbuf_release(&f.written);
	f = (struct fake){ stuck, 1, 0, 0, STRBUF_INIT, true };
	assert_int_equal(cli_open(&io, "ibsw01", 5000, NULL, &c, &err), 0);
	t0 = now_ms();
	assert_int_equal(cli_run(c, "exit", 60000, &out, &err), ERR_SSH);
	assert_true(now_ms() - t0 < 3000);
	assert_non_null(strstr(err_msg(&err), "closed the session"));
	cli_free(c);
	err_clear(&err);

	/* A login that never shows a prompt fails and leaves nothing behind. */
	strbuf_release(&f.written);
	f = (struct fake){ stuck, 0, 0, 0, STRBUF_INIT, false };
	assert_int_equal(cli_open(&io, "ibsw01", 200, NULL, &c, &err), ERR_TIMEOUT);
	assert_null(c);
	assert_non_null(strstr(err_msg(&err), "switch ibsw01: no CLI prompt after login"));
	err_clear(&err);
	strbuf_release(&out);
	strbuf_release(&f.written);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_terminal_codes),
		cmocka_unit_test(test_render_is_bounded),
		cmocka_unit_test(test_prompts),
		cmocka_unit_test(test_pagers_and_errors),
		cmocka_unit_test(test_session),
		cmocka_unit_test(test_pager_key_lost),
		cmocka_unit_test(test_control_characters_refused),
		cmocka_unit_test(test_timeout_and_eof),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

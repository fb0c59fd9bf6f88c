/*
 * A session with a network device's interactive CLI (MLNX-OS / Onyx on a
 * managed InfiniBand switch): not a POSIX shell but a terminal program
 * with prompts ("ibsw01 [standalone: master] (config) # "), echo, a pager
 * that waits for a key, and errors written as "% ..." lines. cli_run sends
 * one command and returns its output as plain text: echo, pager prompts,
 * carriage returns, backspaces and ANSI erase sequences are gone, and a
 * "% ..." line becomes an error that names the command.
 *
 * The byte stream is the caller's (struct cli_io): an SSH pty in the
 * engine (modctx-cli.c), a canned transcript in the unit tests. Every wait
 * has a deadline; nothing here prints.
 */
#ifndef BRINGUP_CLI_H
#define BRINGUP_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/err.h"
#include "../base/strbuf.h"

/* Output of one command is capped; a switch's running-config is a few KiB. */
#define CLI_OUTPUT_MAX (1u << 20)
/* What cli_render adds to its output is capped too (a little past this). */
#define CLI_RENDER_MAX (2u * CLI_OUTPUT_MAX)

enum cli_mode {
	CLI_MODE_NONE,
	CLI_MODE_USER,    /* "host [...] > " */
	CLI_MODE_ENABLE,  /* "host [...] # " */
	CLI_MODE_CONFIG,  /* "host [...] (config) # " (and config-if etc.) */
};

/*
 * What a terminal would show for raw: \r returns to the line's start, \b
 * steps back, text overwrites, CSI sequences erase (ESC [ K) or move the
 * cursor, other control bytes vanish. Appends finished lines (trailing
 * blanks trimmed, each ending in \n) and then the unfinished last line as
 * it stands (no \n) to out. Cursor movement stops at column 4096 and
 * rendering stops once about CLI_RENDER_MAX bytes were added, so hostile
 * input cannot make the output much larger than itself.
 */
void cli_render(const char *raw, size_t len, struct strbuf *out);

/*
 * Whether line (a rendered, unfinished last line) is a CLI prompt. On a
 * match *ret_mode (may be NULL) gets its mode and ret_host (may be NULL)
 * the device's name as the prompt shows it.
 */
bool cli_parse_prompt(const char *line, enum cli_mode *ret_mode, struct strbuf *ret_host);

/* Whether line is a pager's prompt ("lines 1-23", "--More--", "(END)"). */
bool cli_is_pager(const char *line);

/*
 * The first CLI error line of output ("% Unrecognized command ..."), or
 * NULL; *ret_len gets its length without the newline.
 */
const char *cli_error_line(const char *output, size_t *ret_len);

/* The byte stream under a session; both return 0 or an error code. */
struct cli_io {
	/* Appends up to max bytes arriving within timeout_ms; see conn_shell_read. */
	int (*read)(void *arg, struct strbuf *out, size_t max, int timeout_ms,
		    bool *ret_eof, struct err *err);
	int (*write)(void *arg, const char *buf, size_t len, struct err *err);
	void *arg;
};

struct cli;

/*
 * Starts a session on io (which must outlive it): waits up to timeout_ms
 * for the first prompt. `host` names the device in messages. *ret owned
 * by the caller (cli_free). The banner before the prompt goes to banner
 * (may be NULL).
 */
int cli_open(const struct cli_io *io, const char *host, unsigned timeout_ms,
	     struct strbuf *banner, struct cli **ret, struct err *err);
/*
 * Sends command and collects its output until the next prompt, answering
 * the pager with a space, within timeout_ms. The cleaned output goes to
 * out (reset first). A "% ..." line fails with ERR_REMOTE naming the
 * command and the line (out still holds the output); no prompt in time
 * is ERR_TIMEOUT, a closed session ERR_SSH.
 */
int cli_run(struct cli *c, const char *command, unsigned timeout_ms, struct strbuf *out,
	    struct err *err);
/* The mode and device name the last prompt showed. */
enum cli_mode cli_mode(const struct cli *c);
const char *cli_hostname(const struct cli *c);
/* How many pager prompts the session answered (for tests and the log). */
unsigned cli_pages(const struct cli *c);
void cli_free(struct cli *c);

#endif

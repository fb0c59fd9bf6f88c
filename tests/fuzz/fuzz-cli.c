/*
 * libFuzzer target: the switch CLI renderer and what reads its result
 * (engine/ssh/cli.c): render, then look for a prompt, a pager and an error line
 * as the session does after every read. See tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../engine/ssh/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf out = STRBUF_INIT, host = STRBUF_INIT;
	const char *last, *bad;
	enum cli_mode mode;
	size_t badlen;

	cli_render((const char *)data, size, &out);
	/* bounded: at most about CLI_RENDER_MAX plus one padded line */
	if (out.len > CLI_RENDER_MAX + 2 * 4096 + size)
		__builtin_trap();
	last = strrchr(out.buf, '\n');
	last = last ? last + 1 : out.buf;
	cli_parse_prompt(last, &mode, &host);
	cli_is_pager(last);
	bad = cli_error_line(out.buf, &badlen);
	(void)bad;
	strbuf_release(&out);
	strbuf_release(&host);
	return 0;
}

/*
 * The upload directory check the modules share (upload-dir.h).
 */
#include "upload-dir.h"

int upload_dir(struct mod_ctx *mc, const char *dir, const char *what)
{
	const char *args[] = { dir, NULL };
	struct cmd_result res;
	int rc = mod_script(mc, "ofed/dest-dir.sh", args, &res);

	if (!rc && res.exit_status != 0) {
		strbuf_rtrim(&res.err);
		rc = res.err.len ? mod_fail(mc, ERR_STATE, "%s", res.err.buf) :
		     mod_fail(mc, ERR_STATE, "cannot create %s's directory", what);
	}
	cmd_result_release(&res);
	return rc;
}

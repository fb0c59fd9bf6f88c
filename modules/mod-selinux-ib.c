/*
 * selinux_ib: the SELinux policy module that lets containers use the
 * InfiniBand devices (the Redpaper's infiniband.pp), on hosts where SELinux
 * is on. A binary .pp is tied to the host's policy version, so we ship the
 * source (templates/selinux/infiniband.te), keep it on the host under
 * `policy_dir` and compile it there with checkmodule and semodule_package
 * before `semodule -i`. A changed source is rebuilt and reinstalled.
 * Verify: `semodule -l` lists the module.
 */
#include "module.h"

#include <string.h>

#define POLICY "infiniband"

static const struct param_spec params[] = {
	{ "policy_dir", PARAM_STRING, "/var/lib/bringup/selinux", "selinux_policy_dir",
	  "where the policy source and package are kept on the host", NULL },
	{ NULL },
};

static const char *te_path(struct mod_ctx *mc)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/%s.te", mod_param_str(mc, "policy_dir"), POLICY);
	mod_set(mc, "te_path", sb.buf);
	strbuf_release(&sb);
	return mod_get(mc, "te_path");
}

static int selinux_check(struct mod_ctx *mc)
{
	static const char *const args[] = { POLICY, NULL };
	struct cmd_result res;
	bool changed = false;
	const char *files[] = { te_path(mc), NULL };
	int rc = mod_probe(mc, "selinux/state.sh", args, files, &res);
	const char *out = res.out.buf;
	bool off = strstr(out, "selinux=absent") || strstr(out, "selinux=Disabled");

	if (!rc && off)
		mod_skip(mc, "SELinux is %s on this host", strstr(out, "absent") ?
			 "not installed" : "disabled");
	mod_set(mc, "installed", strstr(out, "installed=yes") ? "yes" : "no");
	cmd_result_release(&res);
	if (rc || off)
		return rc;
	if ((rc = mod_put_template(mc, "selinux/infiniband.te", files[0], 0644, &changed)))
		return rc;
	mod_set(mc, "install", changed ? "yes" : "no");
	if (strcmp(mod_get(mc, "installed"), "yes")) {
		mod_set(mc, "install", "yes");
		mod_change(mc, NULL, "install SELinux module %s (semodule -i)", POLICY);
	} else if (changed) {
		mod_change(mc, NULL, "reinstall SELinux module %s from the new source", POLICY);
	}
	return 0;
}

static int selinux_apply(struct mod_ctx *mc)
{
	const char *args[] = { te_path(mc), NULL };
	struct cmd_result res;
	int rc = mod_put_template(mc, "selinux/infiniband.te", args[0], 0644, NULL);

	if (rc || strcmp(mod_get(mc, "install"), "yes"))
		return rc;
	mod_note(mc, "compiling and installing SELinux module %s", POLICY);
	rc = mod_script(mc, "selinux/install.sh", args, &res);
	if (!rc && res.exit_status)
		rc = mod_fail(mc, ERR_REMOTE, "installing %s failed (exit %d): %.*s", POLICY,
			      res.exit_status, (int)strcspn(res.err.buf, "\n"), res.err.buf);
	cmd_result_release(&res);
	return rc;
}

const struct stage_module mod_selinux_ib = {
	.name = "selinux_ib",
	.summary = "SELinux policy module for InfiniBand devices in containers",
	.version = 1,
	.flags = MOD_PER_HOST,
	.params = params,
	.check = selinux_check,
	.apply = selinux_apply,
	.verify = NULL,
};

/*
 * selinux_ib: the SELinux policy module that lets containers use the
 * InfiniBand devices (the Redpaper's infiniband.pp), on hosts where SELinux
 * is on. A binary .pp is tied to the host's policy version, so we ship the
 * source (templates/selinux/infiniband.te), keep it on the host under
 * `policy_dir` and compile it there with checkmodule and semodule_package
 * before `semodule -i`. A changed source is rebuilt and reinstalled.
 * Verify: `semodule -l` lists the module.
 */
#include "../engine/deploy/module.h"

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

/* One step of the build; a missing tool names the package that has it. */
static int step(struct mod_ctx *mc, const char *const *argv, const char *package)
{
	struct cmd_result res;
	int rc = mod_exec(mc, argv, NULL, &res);

	if (!rc && res.exit_status == 127)
		rc = mod_fail(mc, ERR_STATE, "%s not found: install %s (the policy source is "
			      "in %s)", argv[0], package, mod_get(mc, "te_path"));
	else if (!rc && res.exit_status)
		rc = mod_fail(mc, ERR_REMOTE, "%s exited %d: %.*s", argv[0], res.exit_status,
			      (int)strcspn(res.err.len ? res.err.buf : res.out.buf, "\n"),
			      res.err.len ? res.err.buf : res.out.buf);
	cmd_result_release(&res);
	return rc;
}

/* checkmodule, semodule_package, semodule -i: each its own logged command. */
static int selinux_apply(struct mod_ctx *mc)
{
	const char *te = te_path(mc);
	struct strbuf mod = STRBUF_INIT, pp = STRBUF_INIT;
	int rc = mod_put_template(mc, "selinux/infiniband.te", te, 0644, NULL);

	if (rc || strcmp(mod_get(mc, "install"), "yes"))
		return rc;
	strbuf_addf(&mod, "%s/%s.mod", mod_param_str(mc, "policy_dir"), POLICY);
	strbuf_addf(&pp, "%s/%s.pp", mod_param_str(mc, "policy_dir"), POLICY);
	mod_note(mc, "compiling and installing SELinux module %s", POLICY);
	{
		const char *const compile[] = { "checkmodule", "-M", "-m", "-o", mod.buf, te, NULL };
		const char *const package[] = { "semodule_package", "-o", pp.buf, "-m", mod.buf, NULL };
		const char *const install[] = { "semodule", "-i", pp.buf, NULL };

		if (!(rc = step(mc, compile, "checkpolicy")) &&
		    !(rc = step(mc, package, "policycoreutils-python")))
			rc = step(mc, install, "policycoreutils");
	}
	strbuf_release(&mod);
	strbuf_release(&pp);
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

/*
 * nouveau: keep the open-source nouveau driver off the GPUs. Blacklist it
 * in /etc/modprobe.d, rebuild the running kernel's initramfs so the
 * blacklist holds at boot (dracut -f on RHEL, update-initramfs -u on
 * Debian/Ubuntu), and unload it if loaded; verify it is not loaded.
 */
#include "../engine/deploy/module.h"

#include <string.h>

#define BLACKLIST "/etc/modprobe.d/blacklist-nouveau.conf"

static const struct param_spec params[] = {
	{ "rebuild_initramfs", PARAM_BOOL, "true", "nouveau_rebuild_initramfs",
	  "rebuild the initramfs so that the blacklist holds at boot", NULL },
	{ "unload", PARAM_BOOL, "true", "nouveau_unload",
	  "unload a loaded nouveau (else a reboot is needed)", NULL },
	{ NULL },
};

/* The value of KEY= in the state script's output, into mod_set(KEY). */
static void take(struct mod_ctx *mc, const char *out, const char *key)
{
	struct strbuf k = STRBUF_INIT, v = STRBUF_INIT;
	const char *p;

	strbuf_addf(&k, "%s=", key);
	p = strstr(out, k.buf);
	if (p && (p == out || p[-1] == '\n')) {
		p += k.len;
		strbuf_add(&v, p, strcspn(p, "\n"));
	}
	mod_set(mc, key, v.buf);
	strbuf_release(&k);
	strbuf_release(&v);
}

static int nouveau_check(struct mod_ctx *mc)
{
	static const char *const args[] = { BLACKLIST, NULL };
	struct cmd_result res;
	bool changed = false;
	int rc = mod_probe(mc, "nouveau/state.sh", args, args, &res);

	if (!rc) {
		take(mc, res.out.buf, "tool");
		take(mc, res.out.buf, "initramfs");
		take(mc, res.out.buf, "loaded");
	}
	cmd_result_release(&res);
	if (rc || (rc = mod_put_template(mc, "nouveau/blacklist-nouveau.conf", BLACKLIST,
					 0644, &changed)))
		return rc;
	mod_set(mc, "rebuild", "no");
	if (mod_param_bool(mc, "rebuild_initramfs") &&
	    (changed || strcmp(mod_get(mc, "initramfs"), "current"))) {
		mod_set(mc, "rebuild", "yes");
		mod_change(mc, NULL, "rebuild the initramfs (%s)", changed ?
			   "new blacklist" : mod_get(mc, "initramfs"));
	}
	if (!strcmp(mod_get(mc, "loaded"), "yes"))
		mod_change(mc, NULL, "unload the nouveau module");
	return 0;
}

/* dracut -f on RHEL and its kin, update-initramfs -u on Debian and its kin. */
static int rebuild(struct mod_ctx *mc)
{
	static const char *const dracut[] = { "dracut", "-f", NULL };
	static const char *const update[] = { "update-initramfs", "-u", NULL };
	struct cmd_result res;
	int rc;

	mod_note(mc, "rebuilding the initramfs");
	rc = mod_exec_ok(mc, strcmp(mod_get(mc, "tool"), "update-initramfs") ? dracut : update,
			 NULL, &res);
	cmd_result_release(&res);
	return rc;
}

static int nouveau_apply(struct mod_ctx *mc)
{
	static const char *const unload[] = { "modprobe", "-r", "nouveau", NULL };
	struct cmd_result res;
	int rc = mod_put_template(mc, "nouveau/blacklist-nouveau.conf", BLACKLIST, 0644, NULL);

	if (!rc && !strcmp(mod_get(mc, "rebuild"), "yes"))
		rc = rebuild(mc);
	if (rc || strcmp(mod_get(mc, "loaded"), "yes"))
		return rc;
	if (!mod_param_bool(mc, "unload"))
		return mod_fail(mc, ERR_STATE, "nouveau is loaded; reboot the host (the "
				"blacklist and initramfs are in place)");
	rc = mod_exec(mc, unload, NULL, &res);
	if (!rc && res.exit_status)
		rc = mod_fail(mc, ERR_STATE, "nouveau is loaded and cannot be unloaded (%.*s); "
			      "reboot the host: the blacklist and initramfs are in place",
			      (int)strcspn(res.err.buf, "\n"), res.err.buf);
	cmd_result_release(&res);
	return rc;
}

const struct stage_module mod_nouveau = {
	.name = "nouveau",
	.summary = "blacklist nouveau, rebuild the initramfs, unload it",
	.version = 1,
	.flags = MOD_PER_HOST | MOD_MAY_REBOOT,
	.params = params,
	.check = nouveau_check,
	.apply = nouveau_apply,
	.verify = NULL,
};

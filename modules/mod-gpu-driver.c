/*
 * gpu_driver: the desired NVIDIA GPU driver on every host, from NVIDIA's
 * runfile (NVIDIA-Linux-ARCH-VERSION.run), as an admin upgrades a DGX or
 * HGX node's driver. Not a deploy stage: the OS image (DGX OS) brings the
 * driver; `bringup upgrade --to driver=VER` runs this on drained nodes.
 * check reads the version each GPU runs (nvidia-smi) and the module on
 * disk (modinfo); a host without the desired driver gets the runfile,
 * inspected on the admin host first (its Makeself header: version and
 * architecture against the host), sent once (SFTP, skipped when the same
 * SHA-256 is there), and installed with `--silent --dkms` after the GPU
 * services that hold the module (nvidia-persistenced, DCGM, the fabric
 * manager) are stopped and the peer memory and NVIDIA modules unloaded.
 * Then the host reboots (reboot: true, as NVIDIA advises after a driver
 * change) or the new modules load in place, and the stopped services
 * start again. A driver installed but not running yet (a run cut before
 * the reboot; nvidia-smi's "Driver/library version mismatch") is found by
 * check. verify reads nvidia-smi again: every GPU on the desired driver.
 * Peer memory comes back in the peermem stage after this one.
 */
#include "gpu-runfile.h"
#include "../engine/deploy/module.h"
#include "probe.h"
#include "upload-dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/base/strlist.h"
#include "../engine/base/xalloc.h"

static const struct param_spec params[] = {
	{ "dest", PARAM_STRING, "/var/tmp/bringup-gpu-driver", "gpu_driver_dest",
	  "directory on the host where the runfile goes; created 0700 for the login user, "
	  "refused when it is a symlink or another user's", NULL },
	{ "install_timeout", PARAM_UINT, "1800", "gpu_driver_install_timeout",
	  "seconds the runfile may take (it builds the kernel modules with DKMS)", NULL },
	{ "installer", PARAM_STRING, "", "gpu_driver_installer",
	  "the driver's runfile on the admin host, NVIDIA-Linux-ARCH-VERSION.run", NULL },
	{ "release_change", PARAM_BOOL, "false", NULL,
	  "install over another installed driver release (set by `bringup upgrade`'s playbook; "
	  "deploy never does: it stops naming `bringup upgrade --to driver=`)", NULL },
	{ "reboot", PARAM_BOOL, "true", "gpu_driver_reboot",
	  "reboot after installing and wait for SSH (false: load the new modules in place)",
	  NULL },
	{ "reboot_timeout", PARAM_UINT, "1200", "gpu_driver_reboot_timeout",
	  "seconds a rebooting host has to answer over SSH again", NULL },
	{ "upgraded", PARAM_STRING, "", NULL,
	  "the release the last finished `bringup upgrade` installed (deploy reads it from "
	  "the state directory): a host that has it is as desired whatever gpu_driver says", NULL },
	{ "version", PARAM_STRING, "", "gpu_driver",
	  "desired driver version, e.g. 550.90.07", NULL },
	{ NULL },
};

static char *remote_runfile(struct mod_ctx *mc)
{
	const char *r = mod_param_str(mc, "installer"), *base = strrchr(r, '/');

	return xasprintf("%s/%s", mod_param_str(mc, "dest"), base ? base + 1 : r);
}

/* Every word of the space-separated `list` is `want` (and there is one). */
static bool all_are(const char *list, const char *want)
{
	size_t len = strlen(want);
	bool any = false;

	for (const char *p = list; *p; p += strcspn(p, " ")) {
		p += strspn(p, " ");
		if (!*p)
			break;
		if (strncmp(p, want, len) || (p[len] && p[len] != ' '))
			return false;
		any = true;
	}
	return any;
}

/* The words of `want` (space-separated) that `have` lacks, into out; true when any. */
static bool missing_words(const char *want, const char *have, struct strbuf *out)
{
	char *copy = xstrdup(want), *save = NULL;

	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		size_t len = strlen(w);
		bool found = false;

		for (const char *p = have; *p && !found; p += strcspn(p, " "), p += strspn(p, " "))
			found = !strncmp(p, w, len) && (!p[len] || p[len] == ' ');
		if (!found)
			strbuf_addf(out, "%s%s", out->len ? ", " : "", w);
	}
	free(copy);
	return out->len > 0;
}

/* What runs now, for messages: the drivers nvidia-smi names, else why it failed. */
static void describe_running(const char *out, struct strbuf *desc)
{
	struct strbuf running = STRBUF_INIT, smi = STRBUF_INIT, installed = STRBUF_INIT;

	probe_value(out, "running", &running);
	probe_value(out, "smi", &smi);
	probe_value(out, "installed", &installed);
	if (running.len)
		strbuf_addf(desc, "%s", running.buf);
	else if (smi.len)
		strbuf_addf(desc, "nvidia-smi: %s", smi.buf);
	else
		strbuf_addstr(desc, installed.len ? installed.buf : "no driver");
	strbuf_release(&running);
	strbuf_release(&smi);
	strbuf_release(&installed);
}

/* The runfile must be the desired driver, for this host's machine, with room for it. */
static int check_runfile(struct mod_ctx *mc, const struct gpu_runfile *r, const char *out)
{
	const char *want = mod_param_str(mc, "version"), *path = mod_param_str(mc, "installer");
	struct strbuf arch = STRBUF_INIT, free_mb = STRBUF_INIT;
	long long need = (long long)(r->size >> 20) * 2, have;
	int rc = 0;

	probe_value(out, "arch", &arch);
	probe_value(out, "free_mb", &free_mb);
	have = free_mb.len ? strtoll(free_mb.buf, NULL, 10) : -1;
	if (strcmp(r->version, want))
		rc = mod_fail(mc, ERR_STATE, "%s is driver %s, not the desired %s", path,
			      r->version, want);
	else if (strcmp(r->arch, arch.buf))
		rc = mod_fail(mc, ERR_STATE, "%s is built for %s; this host is %s", path, r->arch,
			      arch.buf);
	else if (have >= 0 && have < need)
		rc = mod_fail(mc, ERR_STATE, "%s has %lld MiB free; the runfile and its unpacked "
			      "copy need about %lld MiB", mod_param_str(mc, "dest"), have, need);
	strbuf_release(&arch);
	strbuf_release(&free_mb);
	return rc;
}

/*
 * The runfile builds the kernel modules with DKMS against the running
 * kernel's source tree: without it the installer stops ("Unable to find
 * the kernel source tree"), so check says so before anything is stopped.
 */
static int check_headers(struct mod_ctx *mc, const char *out)
{
	struct strbuf kernel = STRBUF_INIT;
	int rc = 0;

	probe_value(out, "kernel", &kernel);
	if (probe_is(out, "headers", "none"))
		rc = mod_fail(mc, ERR_STATE, "%s has no source tree for its running kernel %s "
			      "(/usr/src/kernels/%s or /usr/src/linux-headers-%s), which the "
			      "driver's DKMS build needs: install kernel-devel-%s (RHEL) or "
			      "linux-headers-%s (Ubuntu)", mod_host(mc), kernel.buf, kernel.buf,
			      kernel.buf, kernel.buf, kernel.buf);
	strbuf_release(&kernel);
	return rc;
}

static int plan_install(struct mod_ctx *mc, const char *out, const char *now)
{
	const char *want = mod_param_str(mc, "version"), *path = mod_param_str(mc, "installer");
	struct strbuf sum = STRBUF_INIT, services = STRBUF_INIT;
	struct gpu_runfile r = { 0 };
	struct err e = ERR_INIT;
	char *remote = remote_runfile(mc);
	int rc;

	if (!*path) {
		rc = mod_fail(mc, ERR_STATE, "driver %s is needed but no runfile is given "
			      "(gpu_driver_installer)", want);
		goto out;
	}
	if ((rc = gpu_runfile_inspect(path, &r, &e))) {
		rc = mod_fail(mc, rc, "%s", err_msg(&e));
		goto out;
	}
	if ((rc = check_runfile(mc, &r, out)) || (rc = check_headers(mc, out)))
		goto out;
	probe_value(out, "runfile", &sum);
	probe_value(out, "services", &services);
	mod_set(mc, "remote", remote);
	mod_set(mc, "upload", strcmp(sum.buf, r.sha256) ? "yes" : "no");
	if (strcmp(sum.buf, r.sha256))
		mod_change(mc, NULL, "send %s (%.1f MiB) to %s", path, (double)r.size / (1 << 20),
			   remote);
	mod_change(mc, NULL, "stop %s, unload the NVIDIA modules, install driver %s over %s "
		   "(%s --silent --dkms), %s", services.len ? services.buf : "no GPU service",
		   want, now, remote, mod_param_bool(mc, "reboot") ? "reboot" :
		   "load the new modules");
out:
	gpu_runfile_release(&r);
	err_clear(&e);
	strbuf_release(&sum);
	strbuf_release(&services);
	free(remote);
	return rc;
}

static int probe(struct mod_ctx *mc, struct cmd_result *res)
{
	char *remote = remote_runfile(mc);
	const char *args[] = { remote, mod_param_str(mc, "version"), NULL };
	int rc = mod_probe(mc, "gpu_driver/state.sh", args, NULL, res);

	free(remote);
	return rc;
}

static int driver_check(struct mod_ctx *mc)
{
	const char *want = mod_param_str(mc, "version");
	struct strbuf installed = STRBUF_INIT, running = STRBUF_INIT, now = STRBUF_INIT;
	struct strbuf services = STRBUF_INIT;
	struct cmd_result res;
	int rc;

	if (!*want)
		return mod_fail(mc, ERR_STATE, "no desired GPU driver version (gpu_driver)");
	if ((rc = probe(mc, &res)))
		goto out;
	if (probe_is(res.out.buf, "gpu", "no")) {
		rc = mod_skip(mc, "no NVIDIA driver on this host (no nvidia-smi): nothing to upgrade");
		goto out;
	}
	probe_value(res.out.buf, "installed", &installed);
	probe_value(res.out.buf, "running", &running);
	probe_value(res.out.buf, "services", &services);
	describe_running(res.out.buf, &now);
	mod_set(mc, "services", services.buf);
	mod_set(mc, "now", now.buf);
	mod_set(mc, "mode", "none");
	/* what a finished upgrade installed stands for the inventory's release */
	if (strcmp(installed.buf, want) && *mod_param_str(mc, "upgraded") &&
	    !mod_param_bool(mc, "release_change") &&
	    !strcmp(installed.buf, mod_param_str(mc, "upgraded")))
		want = mod_param_str(mc, "upgraded");
	if (!strcmp(installed.buf, want) && all_are(running.buf, want))
		goto out;
	if (installed.len && strcmp(installed.buf, want) &&
	    !mod_param_bool(mc, "release_change")) {
		rc = mod_fail(mc, ERR_RELEASE, "has driver %s installed, the inventory asks "
			      "for %s (gpu_driver): deploy never installs another release "
			      "over an installed one; change it with `bringup upgrade "
			      "--to driver=%s`, or set gpu_driver to the installed release",
			      installed.buf, want, want);
		goto out;
	}
	if (!strcmp(installed.buf, want)) {
		/* Installed by an earlier run that did not get to its reboot. */
		mod_set(mc, "mode", "activate");
		mod_change(mc, NULL, "driver %s is installed but not running (%s): %s", want,
			   now.buf, mod_param_bool(mc, "reboot") ? "reboot" :
			   "stop the GPU services, load the new modules");
		goto out;
	}
	mod_set(mc, "mode", "install");
	rc = plan_install(mc, res.out.buf, now.buf);
out:
	cmd_result_release(&res);
	strbuf_release(&installed);
	strbuf_release(&running);
	strbuf_release(&now);
	strbuf_release(&services);
	return rc;
}

/* Runs templates/gpu_driver/NAME with the GPU services as arguments. */
static int run_with_services(struct mod_ctx *mc, const char *tmpl, const char *what)
{
	struct strlist argv = STRLIST_INIT;
	char *services = xstrdup(mod_get(mc, "services"));
	struct cmd_result res;
	int rc;

	for (char *save = NULL, *s = strtok_r(services, " ", &save); s;
	     s = strtok_r(NULL, " ", &save))
		strlist_push(&argv, s);
	rc = mod_script(mc, tmpl, (const char *const *)argv.v, &res);
	if (!rc && res.exit_status != 0) {
		strbuf_rtrim(&res.err);
		rc = mod_fail(mc, ERR_REMOTE, "%s failed (exit %d): %s", what, res.exit_status,
			      res.err.len ? res.err.buf : "no message");
	}
	cmd_result_release(&res);
	strlist_clear(&argv);
	free(services);
	return rc;
}

/*
 * The installer's first ERROR paragraph as one line: it wraps its messages
 * at 80 columns and ends with a pointer to its log.
 */
static void installer_error(const char *err, struct strbuf *out)
{
	const char *p = strstr(err, "ERROR: ");
	const char *end = p ? strstr(p, "\n\n") : NULL;

	if (!p) {
		strbuf_addstr(out, *err ? err : "no message");
		strbuf_rtrim(out);
		return;
	}
	for (p += 7; *p && p != end; p++) {
		if (*p == '\n') {
			p += strspn(p + 1, " ");
			strbuf_addch(out, ' ');
		} else {
			strbuf_addch(out, *p);
		}
	}
	strbuf_rtrim(out);
}

static int run_installer(struct mod_ctx *mc)
{
	/* under the node's installer lock: a run cut while the runfile ran
	 * waits for it and adopts its result (templates/gpu_driver/install.sh) */
	const char *args[] = { mod_get(mc, "remote"), NULL };
	struct strbuf why = STRBUF_INIT;
	struct cmd_result res;
	int rc;

	mod_note(mc, "installing driver %s over %s (the DKMS build takes minutes on real hosts)",
		 mod_param_str(mc, "version"), mod_get(mc, "now"));
	rc = mod_script_timeout(mc, "gpu_driver/install.sh", args,
				mod_param_uint(mc, "install_timeout"), &res);
	if (rc == ERR_TIMEOUT) {
		char *msg = xstrdup(mod_errmsg(mc));

		rc = mod_fail(mc, rc, "the driver's runfile did not finish within install_timeout "
			      "(gpu_driver_install_timeout, %u s): %s",
			      mod_param_uint(mc, "install_timeout"), msg);
		free(msg);
	}
	if (!rc && res.exit_status != 0) {
		installer_error(res.err.buf, &why);
		rc = mod_fail(mc, ERR_REMOTE, "the driver's runfile failed (exit %d; "
			      "/var/log/nvidia-installer.log): %s", res.exit_status, why.buf);
	}
	strbuf_release(&why);
	cmd_result_release(&res);
	return rc;
}

/* Everything that holds the nvidia module stopped (gpu_driver/stop.sh). */
static int stop_holders(struct mod_ctx *mc)
{
	return run_with_services(mc, "gpu_driver/stop.sh", "stopping what holds the nvidia "
				 "module");
}

static int driver_apply(struct mod_ctx *mc)
{
	bool reboot = mod_param_bool(mc, "reboot");
	int rc = 0;

	if (!strcmp(mod_get(mc, "mode"), "install")) {
		rc = upload_dir(mc, mod_param_str(mc, "dest"), "the runfile");
		if (!rc && !strcmp(mod_get(mc, "upload"), "yes"))
			rc = mod_upload(mc, mod_param_str(mc, "installer"), mod_get(mc, "remote"),
					0600);
		if (!rc)
			rc = stop_holders(mc);
		if (!rc)
			rc = run_installer(mc);
	} else {
		mod_note(mc, "driver %s is installed but not running (%s)",
			 mod_param_str(mc, "version"), mod_get(mc, "now"));
		/* in place, the old module must go first; a reboot unloads it */
		if (!reboot)
			rc = stop_holders(mc);
	}
	if (!rc && reboot)
		rc = mod_reboot(mc, mod_param_uint(mc, "reboot_timeout"));
	if (!rc)
		rc = run_with_services(mc, "gpu_driver/start.sh", "loading the new driver");
	return rc;
}

static int driver_verify(struct mod_ctx *mc)
{
	const char *want = mod_param_str(mc, "version");
	struct strbuf running = STRBUF_INIT, now = STRBUF_INIT, services = STRBUF_INIT;
	struct strbuf down = STRBUF_INIT;
	struct cmd_result res;
	int rc = probe(mc, &res);

	if (rc)
		goto out;
	probe_value(res.out.buf, "running", &running);
	probe_value(res.out.buf, "services", &services);
	describe_running(res.out.buf, &now);
	if (!all_are(running.buf, want))
		rc = mod_fail(mc, ERR_STATE, "after the install, the GPUs run %s, not %s", now.buf,
			      want);
	else if (missing_words(mod_get(mc, "services"), services.buf, &down))
		rc = mod_fail(mc, ERR_STATE, "driver %s runs, but %s did not start again (systemctl "
			      "is-active)", want, down.buf);
out:
	strbuf_release(&down);
	cmd_result_release(&res);
	strbuf_release(&running);
	strbuf_release(&now);
	strbuf_release(&services);
	return rc;
}

const struct stage_module mod_gpu_driver = {
	.name = "gpu_driver",
	.summary = "NVIDIA GPU driver from its runfile: GPU services stopped, installed, reboot",
	.version = 1,
	.flags = MOD_PER_HOST | MOD_MAY_REBOOT,
	.params = params,
	.check = driver_check,
	.apply = driver_apply,
	.verify = driver_verify,
};

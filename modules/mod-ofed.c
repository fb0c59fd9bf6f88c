/*
 * ofed: the desired MLNX_OFED on every host (Redpaper, first step of the
 * installation). check reads `ofed_info -s`; a host without the desired
 * release gets it from the MLNX_OFED repository it is configured for
 * (source repo: mlnx-ofed-all, once the repository is seen to offer that
 * release) or, by default, from a local tarball, inspected on the admin
 * host before anything moves (release, distribution and architecture
 * against the host, and the checksum when the inventory gives one), sent
 * once per host over SFTP (a tarball already there with the same SHA-256 is
 * not sent again, so a run cut after the transfer does not repeat it),
 * installed with the options an admin would choose, and the driver stack
 * restarted. When the install needs a reboot to finish (firmware flashed,
 * openibd unable to restart), apply reboots the host and waits for it over
 * SSH (reboot: auto), or fails saying so (never); a reboot still owed from
 * an earlier run is found by check. verify reads ofed_info again and waits
 * for every InfiniBand port to train.
 */
#include "../engine/deploy/module.h"
#include "ofed-tarball.h"
#include "probe.h"
#include "upload-dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/base/strlist.h"
#include "../engine/base/xalloc.h"

static const char *valid_auto(const char *v)
{
	if (!strcmp(v, "auto") || !strcmp(v, "yes") || !strcmp(v, "no"))
		return NULL;
	return "auto, yes or no";
}

static const char *valid_source(const char *v)
{
	if (!strcmp(v, "tarball") || !strcmp(v, "repo"))
		return NULL;
	return "tarball (ofed_tarball, sent by bringup) or repo (mlnx-ofed-all from the "
	       "host's configured repository)";
}

static const char *valid_sha256(const char *v)
{
	if (!*v || (strlen(v) == 64 && strspn(v, "0123456789abcdef") == 64))
		return NULL;
	return "empty or 64 lowercase hex digits (sha256sum)";
}

static const char *valid_reboot(const char *v)
{
	if (!strcmp(v, "auto") || !strcmp(v, "never"))
		return NULL;
	return "auto (reboot when the install needs it) or never (fail saying so)";
}

static const struct param_spec params[] = {
	{ "add_kernel_support", PARAM_STRING, "auto", "ofed_add_kernel_support",
	  "--add-kernel-support: auto (when the bundle lists kernels and not the running one), "
	  "yes or no", valid_auto },
	{ "dest", PARAM_STRING, "/var/tmp/bringup-ofed", "ofed_dest",
	  "directory on the host where the tarball goes and is unpacked; created 0700 for "
	  "the login user, refused when it is a symlink or another user's", NULL },
	{ "fw_update", PARAM_BOOL, "false", "ofed_fw_update",
	  "let the installer update HCA firmware (off: --without-fw-update); new firmware "
	  "runs after a reboot", NULL },
	{ "install_timeout", PARAM_UINT, "3600", "ofed_install_timeout",
	  "seconds the installer may take (with --add-kernel-support it rebuilds the "
	  "drivers: 20-40 minutes)", NULL },
	{ "peer_memory", PARAM_STRING, "auto", "ofed_peer_memory",
	  "install the bundled peer-memory package: auto (when an NVIDIA driver is there), "
	  "yes or no", valid_auto },
	{ "port_timeout", PARAM_UINT, "120", "ofed_port_timeout",
	  "seconds to wait for the InfiniBand ports to train after the restart", NULL },
	{ "release_change", PARAM_BOOL, "false", NULL,
	  "install over another running release (set by `bringup upgrade`'s playbook; deploy "
	  "never does: it stops naming `bringup upgrade --to ofed=`)", NULL },
	{ "reboot", PARAM_STRING, "auto", "ofed_reboot",
	  "auto: reboot when the install needs it (firmware updated, openibd could not "
	  "restart) and wait for SSH; never: fail saying that a reboot is needed", valid_reboot },
	{ "reboot_timeout", PARAM_UINT, "1200", "ofed_reboot_timeout",
	  "seconds a rebooting host has to answer over SSH again", NULL },
	{ "sha256", PARAM_STRING, "", "ofed_sha256",
	  "expected SHA-256 of the tarball (empty: not checked)", valid_sha256 },
	{ "source", PARAM_STRING, "tarball", "ofed_source",
	  "where OFED comes from: tarball, or repo (a repository the hosts reach)", valid_source },
	{ "tarball", PARAM_STRING, "", "ofed_tarball",
	  "MLNX_OFED tarball on the admin host", NULL },
	{ "upgraded", PARAM_STRING, "", NULL,
	  "the release the last finished `bringup upgrade` installed (deploy reads it from "
	  "the state directory): a host running it is as desired whatever ofed_version says", NULL },
	{ "version", PARAM_STRING, "", "ofed_version",
	  "desired version, e.g. MLNX_OFED_LINUX-4.7-3.2.9.0 or 24.10-1.1.4.0", NULL },
	{ NULL },
};

static char *remote_tarball(struct mod_ctx *mc)
{
	const char *t = mod_param_str(mc, "tarball"), *base = strrchr(t, '/');

	return xasprintf("%s/%s", mod_param_str(mc, "dest"), base ? base + 1 : t);
}

static bool same_release(const char *a, const char *b)
{
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	bool same;

	ofed_release(a, &x);
	ofed_release(b, &y);
	same = x.len && !strcmp(x.buf, y.buf);
	strbuf_release(&x);
	strbuf_release(&y);
	return same;
}

/* The bundle must be the desired release, for this host's OS and machine. */
static int match_host(struct mod_ctx *mc, const struct ofed_tarball *t, const char *out)
{
	const char *want = mod_param_str(mc, "version"), *sum = mod_param_str(mc, "sha256");
	struct strbuf distro = STRBUF_INIT, arch = STRBUF_INIT;
	int rc = 0;

	probe_value(out, "distro", &distro);
	probe_value(out, "arch", &arch);
	if (!same_release(t->version, want))
		rc = mod_fail(mc, ERR_STATE, "%s holds %s, not the desired %s",
			      mod_param_str(mc, "tarball"), t->version, want);
	else if (strcmp(t->distro, distro.buf))
		rc = mod_fail(mc, ERR_STATE, "%s is built for %s; this host runs %s (get the %s "
			      "bundle)", mod_param_str(mc, "tarball"), t->distro, distro.buf,
			      distro.buf);
	else if (strcmp(t->arch, arch.buf))
		rc = mod_fail(mc, ERR_STATE, "%s is built for %s; this host is %s",
			      mod_param_str(mc, "tarball"), t->arch, arch.buf);
	else if (*sum && strcmp(sum, t->sha256))
		rc = mod_fail(mc, ERR_STATE, "%s: SHA-256 %s, expected %s (damaged or another "
			      "file)", mod_param_str(mc, "tarball"), t->sha256, sum);
	strbuf_release(&distro);
	strbuf_release(&arch);
	return rc;
}

static bool wanted(const struct mod_ctx *mc, const char *param, bool when_auto)
{
	const char *v = mod_param_str(mc, param);

	return !strcmp(v, "yes") || (!strcmp(v, "auto") && when_auto);
}

/* The installer's options for this host, one per line (handed to apply). */
static void choose_flags(struct mod_ctx *mc, const struct ofed_tarball *t, const char *out,
			 struct strbuf *flags)
{
	struct strbuf kernel = STRBUF_INIT;
	bool foreign_kernel;

	probe_value(out, "kernel", &kernel);
	foreign_kernel = t->kernels.n && strlist_index(&t->kernels, kernel.buf) < 0;
	strbuf_addstr(flags, "--force\n");
	if (!mod_param_bool(mc, "fw_update"))
		strbuf_addstr(flags, "--without-fw-update\n");
	if (wanted(mc, "add_kernel_support", foreign_kernel))
		strbuf_addstr(flags, "--add-kernel-support\n");
	if (!wanted(mc, "peer_memory", probe_is(out, "gpu", "yes")))
		strbuf_addstr(flags, "--without-nvidia-peer-memory\n");
	strbuf_release(&kernel);
}

/*
 * The tarball, its unpacked tree and what the installer builds beside it:
 * three times the tarball, at least 512 MiB, must fit where it goes.
 */
static int check_space(struct mod_ctx *mc, const struct ofed_tarball *t, const char *out)
{
	struct strbuf free_mb = STRBUF_INIT;
	long long need = (long long)(t->size >> 20) * 3, have;
	int rc = 0;

	if (need < 512)
		need = 512;
	probe_value(out, "free_mb", &free_mb);
	have = free_mb.len ? strtoll(free_mb.buf, NULL, 10) : -1;
	if (have >= 0 && have < need)
		rc = mod_fail(mc, ERR_STATE, "%s has %lld MiB free; %s needs about %lld MiB there "
			      "(tarball, unpacked tree, build)", mod_param_str(mc, "dest"), have,
			      t->top, need);
	strbuf_release(&free_mb);
	return rc;
}

static int plan_install(struct mod_ctx *mc, const char *out, const char *installed)
{
	struct ofed_tarball t;
	struct strbuf flags = STRBUF_INIT, sum = STRBUF_INIT, spaced = STRBUF_INIT;
	char *remote = remote_tarball(mc);
	struct err e = ERR_INIT;
	int rc;

	if (!*mod_param_str(mc, "tarball")) {
		rc = mod_fail(mc, ERR_STATE, "%s is needed but no tarball is given (ofed_tarball)",
			      mod_param_str(mc, "version"));
		goto out;
	}
	if ((rc = ofed_tarball_inspect(mod_param_str(mc, "tarball"), &t, &e))) {
		rc = mod_fail(mc, rc, "%s", err_msg(&e));
		goto out;
	}
	if ((rc = match_host(mc, &t, out)))
		goto release;
	if ((rc = check_space(mc, &t, out)))
		goto release;
	probe_value(out, "tarball", &sum);
	mod_set(mc, "remote", remote);
	mod_set(mc, "top", t.top);
	mod_set(mc, "upload", strcmp(sum.buf, t.sha256) ? "yes" : "no");
	if (strcmp(sum.buf, t.sha256))
		mod_change(mc, NULL, "send %s (%.1f MiB) to %s", mod_param_str(mc, "tarball"),
			   (double)t.size / (1 << 20), remote);
	choose_flags(mc, &t, out, &flags);
	mod_set(mc, "flags", flags.buf);
	strbuf_addstr(&spaced, flags.buf);
	strbuf_rtrim(&spaced);
	for (char *c = spaced.buf; *c; c++)
		if (*c == '\n')
			*c = ' ';
	mod_change(mc, NULL, "install %s over %s (mlnxofedinstall %s), restart openibd",
		   t.version, *installed ? installed : "no OFED", spaced.buf);
release:
	ofed_tarball_release(&t);
out:
	err_clear(&e);
	free(remote);
	strbuf_release(&flags);
	strbuf_release(&sum);
	strbuf_release(&spaced);
	return rc;
}

static bool from_repo(const struct mod_ctx *mc)
{
	return !strcmp(mod_param_str(mc, "source"), "repo");
}

/*
 * The repository must offer the desired release (its mlnx-ofed-all is
 * RELEASE.DISTROTAG, e.g. 4.7-3.2.9.0.rhel7u6) before anything is installed.
 */
static int plan_repo(struct mod_ctx *mc, const char *out, const char *installed)
{
	struct strbuf offer = STRBUF_INIT, want = STRBUF_INIT;
	int rc = 0;

	probe_value(out, "repo", &offer);
	ofed_release(mod_param_str(mc, "version"), &want);
	if (!offer.len)
		rc = mod_fail(mc, ERR_STATE, "no repository offers mlnx-ofed-all on this host "
			      "(configure the MLNX_OFED repository in /etc/yum.repos.d, or use "
			      "source tarball)");
	else if (strncmp(offer.buf, want.buf, want.len) ||
		 (offer.buf[want.len] && offer.buf[want.len] != '.'))
		rc = mod_fail(mc, ERR_STATE, "the repository offers mlnx-ofed-all %s, not the "
			      "desired %s", offer.buf, mod_param_str(mc, "version"));
	else
		mod_change(mc, NULL, "install mlnx-ofed-all %s from the repository over %s, "
			   "restart openibd", offer.buf, *installed ? installed : "no OFED");
	strbuf_release(&offer);
	strbuf_release(&want);
	return rc;
}

/* An install of this boot still owes its reboot (a run cut before it, or reboot: never). */
static void plan_pending_reboot(struct mod_ctx *mc, const char *out)
{
	struct strbuf why = STRBUF_INIT;

	probe_value(out, "reboot_pending", &why);
	if (why.len) {
		mod_set(mc, "pending_reboot", why.buf);
		mod_change(mc, NULL, "reboot to finish the OFED install: %s", why.buf);
	}
	strbuf_release(&why);
}

/*
 * The desired release is installed: it must also run. An install that an
 * earlier run began and did not see through (its mark is there: cut in the
 * installer or before the restart) is done again; a stack not running
 * (openibd not active, ib_core not loaded) is restarted.
 */
static int plan_finish(struct mod_ctx *mc, const char *out, const char *installed)
{
	if (probe_is(out, "install_cut", "yes")) {
		mod_note(mc, "an earlier install was not seen through "
			 "(/var/lib/bringup/ofed-install-pending): installing again");
		return from_repo(mc) ? plan_repo(mc, out, installed) :
		       plan_install(mc, out, installed);
	}
	if ((!probe_is(out, "openibd", "active") && !probe_is(out, "openibd", "unknown")) ||
	    !probe_is(out, "stack", "loaded")) {
		mod_set(mc, "restart_only", "yes");
		mod_change(mc, NULL, "restart openibd: %s is installed but its driver stack is "
			   "not running (openibd %s, ib_core %s)", installed,
			   probe_is(out, "openibd", "") ? "inactive" : "not active",
			   probe_is(out, "stack", "loaded") ? "loaded" : "not loaded");
		return 0;
	}
	plan_pending_reboot(mc, out);
	return 0;
}

static int ofed_check(struct mod_ctx *mc)
{
	const char *want = mod_param_str(mc, "version");
	char *remote = remote_tarball(mc);
	struct strbuf installed = STRBUF_INIT, release = STRBUF_INIT;
	const char *args[] = { remote, mod_param_str(mc, "source"), NULL, NULL };
	struct cmd_result res;
	int rc;

	if (!*want) {
		free(remote);
		return mod_fail(mc, ERR_STATE, "no desired OFED version (ofed_version)");
	}
	ofed_release(want, &release);
	args[2] = release.buf;
	rc = mod_probe(mc, "ofed/state.sh", args, NULL, &res);
	strbuf_release(&release);
	if (!rc) {
		probe_value(res.out.buf, "installed", &installed);
		strbuf_rtrim(&installed);
		if (installed.len && installed.buf[installed.len - 1] == ':')
			strbuf_setlen(&installed, installed.len - 1);
		/* in an upgrade's own run, only its --to release is desired */
		if (same_release(installed.buf, want) ||
		    (!mod_param_bool(mc, "release_change") &&
		     same_release(installed.buf, mod_param_str(mc, "upgraded"))))
			rc = plan_finish(mc, res.out.buf, installed.buf);
		else if (installed.len && !mod_param_bool(mc, "release_change"))
			rc = mod_fail(mc, ERR_RELEASE, "runs %s, the inventory asks for %s "
				      "(ofed_version): deploy never installs another release "
				      "over a running one; change it with `bringup upgrade "
				      "--to ofed=%s`, or set ofed_version to the running release",
				      installed.buf, want, want);
		else
			rc = from_repo(mc) ? plan_repo(mc, res.out.buf, installed.buf) :
			     plan_install(mc, res.out.buf, installed.buf);
	}
	cmd_result_release(&res);
	strbuf_release(&installed);
	free(remote);
	return rc;
}

/*
 * Reboots the host when the install needs it (why: from ofed/restart.sh,
 * empty when it does not), or fails saying so when the inventory forbids it.
 */
static int reboot_if_needed(struct mod_ctx *mc, const char *why)
{
	static const char *const unmark[] = { "rm", "-f", "/var/lib/bringup/ofed-reboot-pending",
					      NULL };
	struct cmd_result res;
	int rc;

	if (!*why)
		return 0;
	if (!strcmp(mod_param_str(mc, "reboot"), "never"))
		return mod_fail(mc, ERR_STATE, "%s needs a reboot to finish the OFED install (%s); "
				"ofed_reboot is never: reboot it, then run again", mod_host(mc), why);
	mod_note(mc, "reboot needed: %s", why);
	if ((rc = mod_reboot(mc, mod_param_uint(mc, "reboot_timeout"))))
		return rc;
	rc = mod_exec_ok(mc, unmark, NULL, &res);
	cmd_result_release(&res);
	return rc;
}

/* The installer's output on the host, for ofed/restart.sh. */
static char *installer_output(struct mod_ctx *mc)
{
	return xasprintf("%s/mlnxofedinstall.out", mod_param_str(mc, "dest"));
}

/* An installer past install_timeout: say which knob gives it more time. */
static int install_timed_out(struct mod_ctx *mc, const char *what)
{
	char *msg = xstrdup(mod_errmsg(mc));
	int rc = mod_fail(mc, ERR_TIMEOUT, "%s did not finish within install_timeout "
			  "(ofed_install_timeout, %u s): %s", what,
			  mod_param_uint(mc, "install_timeout"), msg);

	free(msg);
	return rc;
}

/*
 * After an install: restarts the driver stack, then reboots when the
 * install needs that to finish (ofed/restart.sh says why).
 */
static int restart_stack(struct mod_ctx *mc)
{
	char *out = installer_output(mc);
	const char *args[] = { out, NULL };
	struct strbuf why = STRBUF_INIT;
	struct cmd_result res;
	int rc = mod_script(mc, "ofed/restart.sh", args, &res);

	if (!rc && res.exit_status != 0) {
		strbuf_rtrim(&res.err);
		rc = mod_fail(mc, ERR_REMOTE, "restarting openibd after the install failed "
			      "(exit %d): %s", res.exit_status, res.err.buf);
	}
	if (!rc) {
		probe_value(res.out.buf, "bringup-reboot", &why);
		rc = reboot_if_needed(mc, why.buf);
	}
	strbuf_release(&why);
	cmd_result_release(&res);
	free(out);
	return rc;
}

static int run_installer(struct mod_ctx *mc)
{
	struct strlist argv = STRLIST_INIT;
	char *flags = xstrdup(mod_get(mc, "flags"));
	struct cmd_result res;
	int rc;

	strlist_push(&argv, mod_get(mc, "remote"));
	strlist_push(&argv, mod_get(mc, "top"));
	for (char *save = NULL, *f = strtok_r(flags, "\n", &save); f;
	     f = strtok_r(NULL, "\n", &save))
		strlist_push(&argv, f);
	mod_note(mc, "installing %s (takes minutes on real hosts)", mod_get(mc, "top"));
	rc = mod_script_timeout(mc, "ofed/install.sh", (const char *const *)argv.v,
				mod_param_uint(mc, "install_timeout"), &res);
	if (rc == ERR_TIMEOUT)
		rc = install_timed_out(mc, "mlnxofedinstall");
	if (!rc && res.exit_status != 0) {
		strbuf_rtrim(&res.err);
		rc = mod_fail(mc, ERR_REMOTE, "mlnxofedinstall failed (exit %d): %s",
			      res.exit_status, res.err.len ? res.err.buf : "no message");
	}
	cmd_result_release(&res);
	strlist_clear(&argv);
	free(flags);
	return rc ? rc : restart_stack(mc);
}

static int install_from_repo(struct mod_ctx *mc)
{
	const char *args[] = { mod_param_str(mc, "dest"), NULL };
	struct cmd_result res;
	int rc = mod_script_timeout(mc, "ofed/install-repo.sh", args,
				    mod_param_uint(mc, "install_timeout"), &res);

	if (rc == ERR_TIMEOUT)
		rc = install_timed_out(mc, "yum install mlnx-ofed-all");
	if (!rc && res.exit_status != 0) {
		strbuf_rtrim(&res.out);
		strbuf_rtrim(&res.err);
		rc = mod_fail(mc, ERR_REMOTE, "yum install mlnx-ofed-all failed (exit %d): %s",
			      res.exit_status, res.err.len ? res.err.buf : res.out.buf);
	}
	cmd_result_release(&res);
	return rc ? rc : restart_stack(mc);
}


static int ofed_apply(struct mod_ctx *mc)
{
	int rc;

	if (*mod_get(mc, "pending_reboot"))
		return reboot_if_needed(mc, mod_get(mc, "pending_reboot"));
	if (*mod_get(mc, "restart_only"))
		return restart_stack(mc);
	if (from_repo(mc))
		return install_from_repo(mc);
	rc = upload_dir(mc, mod_param_str(mc, "dest"), "the tarball");
	if (!rc && !strcmp(mod_get(mc, "upload"), "yes"))
		rc = mod_upload(mc, mod_param_str(mc, "tarball"), mod_get(mc, "remote"), 0644);
	return rc ? rc : run_installer(mc);
}

/* Every InfiniBand port trained (LinkUp) again after the restart. */
static int wait_ports(struct mod_ctx *mc)
{
	char secs[16];
	const char *args[] = { secs, NULL };
	struct strbuf down = STRBUF_INIT;
	struct cmd_result res;
	int rc;

	snprintf(secs, sizeof(secs), "%u", mod_param_uint(mc, "port_timeout"));
	rc = mod_script(mc, "ofed/wait-ports.sh", args, &res);
	for (const char *p = res.out.buf; !rc && (p = strstr(p, "port=")); p++) {
		size_t len = strcspn(p + 5, "\n");

		if (len < 7 || strncmp(p + 5 + len - 7, " LinkUp", 7)) {
			if (down.len)
				strbuf_addstr(&down, ", ");
			strbuf_add(&down, p + 5, len);
		}
	}
	if (!rc && !strstr(res.out.buf, "port="))
		rc = mod_fail(mc, ERR_STATE, "no InfiniBand port after the OFED restart (ibstat)");
	else if (!rc && down.len)
		rc = mod_fail(mc, ERR_STATE, "InfiniBand ports did not come back after the OFED "
			      "restart (%u s): %s", mod_param_uint(mc, "port_timeout"), down.buf);
	cmd_result_release(&res);
	strbuf_release(&down);
	return rc;
}

static int ofed_verify(struct mod_ctx *mc)
{
	const char *want = mod_param_str(mc, "version");
	static const char *const info[] = { "ofed_info", "-s", NULL };
	struct cmd_result res;
	int rc = mod_exec(mc, info, NULL, &res);

	strbuf_rtrim(&res.out);
	if (!rc && !same_release(res.out.buf, want))
		rc = mod_fail(mc, ERR_STATE, "after installing, ofed_info -s says '%s', not %s",
			      res.out.buf, want);
	cmd_result_release(&res);
	return rc ? rc : wait_ports(mc);
}

const struct stage_module mod_ofed = {
	.name = "ofed",
	.summary = "MLNX_OFED from a tarball checked on the admin host, sent once, installed",
	.version = 2,
	.flags = MOD_PER_HOST | MOD_MAY_REBOOT,
	.params = params,
	.check = ofed_check,
	.apply = ofed_apply,
	.verify = ofed_verify,
};

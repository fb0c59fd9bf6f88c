/*
 * peermem: GPUDirect RDMA peer memory, so that HCAs read and write GPU
 * memory directly (Redpaper, after MLNX_OFED). GPU drivers from 470 on ship
 * nvidia-peermem: it only needs loading. Older stacks use nv_peer_mem,
 * built here from the nv_peer_memory sources against the running kernel
 * (kernel-devel on RHEL, linux-headers on Debian and Ubuntu, must match;
 * an RPM built with rpmbuild, or DKMS packages with dpkg-buildpackage).
 * A host without the sources gets them from `tarball` (an air-gap
 * bundle's, set by deploy --from-bundle), uploaded and unpacked first.
 * Either way the module is listed in
 * /etc/modules-load.d so that it comes back after a reboot, and verify
 * reads lsmod: loaded, and bound to ib_core and nvidia (it appears among
 * their holders).
 */
#include "../engine/deploy/module.h"
#include "probe.h"

#include <stdlib.h>
#include <string.h>

#include "../engine/base/xalloc.h"

#define LOAD_CONF "/etc/modules-load.d/bringup-peermem.conf"

static const char *valid_module(const char *v)
{
	if (!strcmp(v, "nvidia_peermem") || !strcmp(v, "nv_peer_mem"))
		return NULL;
	return "nvidia_peermem (driver 470 and later) or nv_peer_mem (built from source)";
}

static const struct param_spec params[] = {
	{ "module", PARAM_STRING, "nvidia_peermem", "peermem_module",
	  "the peer memory module: nvidia_peermem or nv_peer_mem", valid_module },
	{ "build_timeout", PARAM_UINT, "1800", "peermem_build_timeout",
	  "seconds building and installing nv_peer_mem may take", NULL },
	{ "source", PARAM_STRING, "/usr/src/nv_peer_memory", "peermem_source",
	  "nv_peer_memory source tree on the host (for building nv_peer_mem)", NULL },
	{ "tarball", PARAM_STRING, "", "peermem_tarball",
	  "nv_peer_memory sources as a .tar.gz on the admin host, uploaded and unpacked into "
	  "source where the host lacks them (deploy --from-bundle sets it)", NULL },
	{ NULL },
};

static bool builds(const struct mod_ctx *mc)
{
	return !strcmp(mod_param_str(mc, "module"), "nv_peer_mem");
}

/* The host installs packages with dpkg/apt (Debian, Ubuntu), not rpm/yum. */
static bool debian(const struct mod_ctx *mc)
{
	return !strcmp(mod_get(mc, "pkg"), "deb");
}

/* The host's state into res (its KEY=VALUE lines), and LOAD_CONF cached. */
static int probe(struct mod_ctx *mc, struct cmd_result *res)
{
	static const char *const files[] = { LOAD_CONF, NULL };
	const char *args[] = { mod_param_str(mc, "module"), mod_param_str(mc, "source"), NULL };

	return mod_probe(mc, "peermem/state.sh", args, files, res);
}

/*
 * A module that cannot be made available here fails check, before any
 * change (under --check it is only noted: an earlier stage of the same run,
 * OFED, may bring what is missing); nv_peer_mem is built, after installing
 * the kernel headers of the running kernel when they are missing.
 */
static int plan_install(struct mod_ctx *mc, const char *out)
{
	const char *m = mod_param_str(mc, "module");
	struct strbuf kernel = STRBUF_INIT, why = STRBUF_INIT;
	int rc = 0;

	probe_value(out, "kernel", &kernel);
	mod_set(mc, "kernel", kernel.buf);
	if (!builds(mc))
		strbuf_addf(&why, "%s is not available for kernel %s: it ships with GPU driver 470 "
			    "and later, built against the installed OFED (reinstall the driver "
			    "after OFED, or use module nv_peer_mem)", m, kernel.buf);
	else if (!probe_is(out, "source", "yes") && !*mod_param_str(mc, "tarball"))
		strbuf_addf(&why, "cannot build nv_peer_mem: no nv_peer_memory sources at %s "
			    "(clone https://github.com/Mellanox/nv_peer_memory there, or deploy "
			    "--from-bundle a bundle made with --peermem)",
			    mod_param_str(mc, "source"));
	if (why.len && !mod_checking(mc)) {
		rc = mod_fail(mc, ERR_STATE, "%s", why.buf);
		goto out;
	}
	if (why.len)
		mod_note(mc, "%s", why.buf);
	mod_set(mc, "pkg", probe_is(out, "pkg", "deb") ? "deb" : "rpm");
	if (probe_is(out, "headers", "none") && builds(mc)) {
		if (debian(mc))
			mod_change(mc, NULL, "install linux-headers-%s", kernel.buf);
		else
			mod_change(mc, NULL, "install kernel-devel-%s and kernel-headers-%s",
				   kernel.buf, kernel.buf);
		mod_set(mc, "headers", "yes");
	}
	if (builds(mc) && !probe_is(out, "source", "yes") && *mod_param_str(mc, "tarball")) {
		mod_change(mc, NULL, "upload %s and unpack it into %s (the host has no "
			   "nv_peer_memory sources)", mod_param_str(mc, "tarball"),
			   mod_param_str(mc, "source"));
		mod_set(mc, "unpack", "yes");
	}
	if (builds(mc)) {
		mod_change(mc, NULL, "build and install nv_peer_mem from %s for kernel %s",
			   mod_param_str(mc, "source"), kernel.buf);
		mod_set(mc, "build", "yes");
	}
out:
	strbuf_release(&kernel);
	strbuf_release(&why);
	return rc;
}

/*
 * The running kernel's build tree the build needs, from the OS
 * repositories: kernel-devel (and kernel-headers) on RHEL, linux-headers
 * on Debian and Ubuntu.
 */
static int install_headers(struct mod_ctx *mc)
{
	const char *k = mod_get(mc, "kernel");
	bool deb = debian(mc);
	char *devel = xasprintf(deb ? "linux-headers-%s" : "kernel-devel-%s", k);
	char *hdrs = xasprintf("kernel-headers-%s", k);
	const char *yum[] = { "yum", "install", "-y", devel, hdrs, NULL };
	const char *apt[] = { "apt-get", "install", "-y", devel, NULL };
	struct cmd_result res;
	int rc = mod_exec(mc, deb ? apt : yum, NULL, &res);

	if (!rc && res.exit_status != 0) {
		strbuf_rtrim(&res.out);
		strbuf_rtrim(&res.err);
		/* apt-get says why in its first "E:" line; its stdout is progress. */
		if (deb && res.err.len) {
			strbuf_setlen(&res.out, 0);
			strbuf_setlen(&res.err, strcspn(res.err.buf, "\n"));
		}
		rc = mod_fail(mc, ERR_REMOTE, "no kernel headers for the running kernel %s: %s "
			      "install %s failed: %s%s%s", k, deb ? "apt-get" : "yum", devel,
			      res.out.buf, res.out.len && res.err.len ? "; " : "", res.err.buf);
	}
	cmd_result_release(&res);
	free(devel);
	free(hdrs);
	return rc;
}

/*
 * The sources from peermem_tarball (an air-gap bundle's), where the host
 * has none: uploaded beside the source directory, unpacked into it
 * (peermem/unpack-sources.sh), the upload removed.
 */
static int unpack_sources(struct mod_ctx *mc)
{
	const char *src = mod_param_str(mc, "source");
	char *remote = xasprintf("%s.bringup.tar.gz", src);
	const char *args[] = { remote, src, NULL };
	struct cmd_result res;
	int rc;

	mod_note(mc, "unpacking nv_peer_memory sources from %s into %s",
		 mod_param_str(mc, "tarball"), src);
	rc = mod_upload(mc, mod_param_str(mc, "tarball"), remote, 0600);
	if (!rc) {
		rc = mod_script(mc, "peermem/unpack-sources.sh", args, &res);
		if (!rc && res.exit_status != 0) {
			strbuf_rtrim(&res.err);
			rc = mod_fail(mc, ERR_REMOTE, "unpacking the nv_peer_memory sources into %s "
				      "failed (exit %d): %s", src, res.exit_status, res.err.buf);
		}
		cmd_result_release(&res);
	}
	free(remote);
	return rc;
}

static int peermem_check(struct mod_ctx *mc)
{
	const char *m = mod_param_str(mc, "module");
	struct cmd_result res;
	int rc = probe(mc, &res);

	if (rc)
		goto out;
	if (probe_is(res.out.buf, "gpu", "no")) {
		rc = mod_skip(mc, "no NVIDIA GPU driver on this host: no peer memory to load");
		goto out;
	}
	mod_set(mc, "build", "no");
	mod_set(mc, "unpack", "no");
	mod_set(mc, "headers", "no");
	mod_set(mc, "load", "no");
	if (!probe_is(res.out.buf, "loaded", "yes")) {
		if (!probe_is(res.out.buf, "available", "yes")) {
			if ((rc = plan_install(mc, res.out.buf)))
				goto out;
		}
		mod_change(mc, NULL, "load %s", m);
		mod_set(mc, "load", "yes");
	}
	rc = mod_put_template(mc, "peermem/modules-load.conf", LOAD_CONF, 0644, NULL);
out:
	cmd_result_release(&res);
	return rc;
}

static int peermem_apply(struct mod_ctx *mc)
{
	const char *modprobe[] = { "modprobe", mod_param_str(mc, "module"), NULL };
	const char *args[] = { mod_param_str(mc, "source"), NULL };
	struct cmd_result res;
	int rc = 0;

	/* Persisted last: a failed build leaves nothing behind that boots into it. */
	if (!strcmp(mod_get(mc, "headers"), "yes"))
		rc = install_headers(mc);
	if (!rc && !strcmp(mod_get(mc, "unpack"), "yes"))
		rc = unpack_sources(mc);
	if (!rc && !strcmp(mod_get(mc, "build"), "yes")) {
		mod_note(mc, "building nv_peer_mem from %s", args[0]);
		rc = mod_script_timeout(mc, "peermem/build-nv-peer-mem.sh", args,
					mod_param_uint(mc, "build_timeout"), &res);
		if (rc == ERR_TIMEOUT) {
			char *msg = xstrdup(mod_errmsg(mc));

			rc = mod_fail(mc, rc, "building nv_peer_mem did not finish within "
				      "build_timeout (peermem_build_timeout, %u s): %s",
				      mod_param_uint(mc, "build_timeout"), msg);
			free(msg);
		}
		if (!rc && res.exit_status != 0) {
			strbuf_rtrim(&res.err);
			rc = mod_fail(mc, ERR_REMOTE, "building nv_peer_mem failed (exit %d): %s",
				      res.exit_status, res.err.len ? res.err.buf : res.out.buf);
		}
		cmd_result_release(&res);
	}
	if (!rc && !strcmp(mod_get(mc, "load"), "yes")) {
		rc = mod_exec_ok(mc, modprobe, NULL, &res);
		cmd_result_release(&res);
	}
	if (!rc)
		rc = mod_put_template(mc, "peermem/modules-load.conf", LOAD_CONF, 0644, NULL);
	return rc;
}

/* "a,b,c" holds m as a whole item. */
static bool holds(const char *list, const char *m)
{
	size_t len = strlen(m);

	for (const char *p = list; p && *p; p = strchr(p, ','), p = p ? p + 1 : NULL)
		if (!strncmp(p, m, len) && (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

static int peermem_verify(struct mod_ctx *mc)
{
	const char *m = mod_param_str(mc, "module");
	struct strbuf ib = STRBUF_INIT, nv = STRBUF_INIT;
	struct cmd_result res;
	int rc = probe(mc, &res);

	if (rc)
		goto out;
	probe_value(res.out.buf, "ib_core_holders", &ib);
	probe_value(res.out.buf, "nvidia_holders", &nv);
	if (!probe_is(res.out.buf, "loaded", "yes"))
		rc = mod_fail(mc, ERR_STATE, "%s is not loaded after modprobe (lsmod)", m);
	else if (!holds(ib.buf, m) || !holds(nv.buf, m))
		rc = mod_fail(mc, ERR_STATE, "%s is loaded but not bound to ib_core and nvidia "
			      "(lsmod holders: ib_core '%s', nvidia '%s')", m, ib.buf, nv.buf);
	else
		rc = mod_put_template(mc, "peermem/modules-load.conf", LOAD_CONF, 0644, NULL);
out:
	strbuf_release(&ib);
	strbuf_release(&nv);
	cmd_result_release(&res);
	return rc;
}

const struct stage_module mod_peermem = {
	.name = "peermem",
	.summary = "GPUDirect peer memory: load nvidia-peermem or build nv_peer_mem, persist",
	.version = 1,
	.flags = MOD_PER_HOST,
	.params = params,
	.check = peermem_check,
	.apply = peermem_apply,
	.verify = peermem_verify,
};

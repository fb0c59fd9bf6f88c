/*
 * scale_install: the IBM Spectrum Scale client packages and the GPFS
 * portability layer on every Scale node (Redpaper 3.3: the DGX nodes join
 * the client cluster as Scale clients). The installer directory named by
 * gpfs_installer (the extracted self-extracting installer: gpfs_rpms/ on
 * RHEL, gpfs_debs/ on Ubuntu) is inspected on the admin host first
 * (edition from the gpfs.license package, version, architecture, package
 * format against the host), then only the packages a host lacks are sent
 * to it over SFTP and installed with one package-manager call. mmbuildgpl
 * needs the running kernel's headers: without them check fails naming the
 * package to install. The kernel the layer was built for is recorded on the
 * host (/var/lib/bringup/scale-gpl.kernel), so that a kernel change is found
 * by check and the layer rebuilt.
 */
#include "../engine/deploy/module.h"
#include "probe.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/base/strlist.h"
#include "../engine/base/xalloc.h"

/* What every client needs; the licence package is gpfs.license.<edition>. */
static const char *const packages[] = {
	"gpfs.base", "gpfs.gpl", "gpfs.gskit", "gpfs.msg.en_US", "gpfs.license.", NULL,
};

static const struct param_spec params[] = {
	{ "build_timeout", PARAM_UINT, "1800", "gpfs_build_timeout",
	  "seconds mmbuildgpl may take to build the portability layer", NULL },
	{ "dest", PARAM_STRING, "/var/tmp/bringup-scale", "gpfs_dest",
	  "directory on the host where the packages are sent", NULL },
	{ "gui", PARAM_BOOL, "false", "gpfs_gui",
	  "the node is to run the Spectrum Scale GUI: refused, bringup does not install it", NULL },
	{ "install_timeout", PARAM_UINT, "1800", "gpfs_install_timeout",
	  "seconds the package install may take", NULL },
	{ "installer", PARAM_STRING, "", "gpfs_installer",
	  "the extracted Spectrum Scale installer on the admin host (the directory that "
	  "holds gpfs_rpms/ or gpfs_debs/)", NULL },
	{ "release_change", PARAM_BOOL, "false", NULL,
	  "install over another installed release (set by `bringup upgrade`'s playbook; deploy "
	  "never does: it stops naming `bringup upgrade --to scale=`)", NULL },
	{ "upgraded", PARAM_STRING, "", NULL,
	  "the release the last finished `bringup upgrade` installed, as 5.1.2.1 (deploy reads "
	  "it from the state directory): a host running it is as desired whatever the "
	  "installer holds", NULL },
	{ NULL },
};

/* One package file of the installer directory. */
struct pkg_file {
	char *name;      /* gpfs.base, gpfs.license.dm */
	char *file;      /* gpfs.base-5.0.4-3.x86_64.rpm */
	char *version;   /* 5.0.4-3, as the package manager reports it */
	char *arch;      /* x86_64, noarch, amd64, all */
};

struct installer {
	const char *family;           /* rpm or deb */
	char *dir;                    /* .../gpfs_rpms */
	struct pkg_file pkgs[8];      /* in the order of packages[] */
	size_t npkgs;
	char *version;                /* of gpfs.base, as Scale writes it: 5.0.4.3 */
	const char *edition;
};

static void installer_release(struct installer *in)
{
	for (size_t i = 0; i < in->npkgs; i++) {
		free(in->pkgs[i].name);
		free(in->pkgs[i].file);
		free(in->pkgs[i].version);
		free(in->pkgs[i].arch);
	}
	free(in->dir);
	free(in->version);
}

static const char *edition_of(const char *license_pkg)
{
	static const struct { const char *suffix, *name; } eds[] = {
		{ "std", "Standard" }, { "adv", "Advanced" }, { "dm", "Data Management" },
		{ "da", "Data Access" }, { "dme", "Erasure Code Edition" },
	};
	const char *s = license_pkg + strlen("gpfs.license.");

	for (size_t i = 0; i < sizeof(eds) / sizeof(eds[0]); i++)
		if (!strcmp(s, eds[i].name) || !strcmp(s, eds[i].suffix))
			return eds[i].name;
	return s;
}

/*
 * Splits a package file name: rpm NAME-VERSION-RELEASE.ARCH.rpm, deb
 * NAME_VERSION_ARCH.deb. Returns false when it is neither.
 */
static bool split_pkg_file(const char *f, const char *family, struct pkg_file *p)
{
	size_t len = strlen(f);
	const char *end, *dot, *dash1, *dash2;

	if (!strcmp(family, "rpm")) {
		if (len < 5 || strcmp(f + len - 4, ".rpm"))
			return false;
		end = f + len - 4;
		for (dot = end - 1; dot > f && *dot != '.'; dot--)
			;
		for (dash2 = dot - 1; dash2 > f && *dash2 != '-'; dash2--)
			;
		for (dash1 = dash2 - 1; dash1 > f && *dash1 != '-'; dash1--)
			;
		if (dot <= f || dash2 <= f || dash1 <= f)
			return false;
		p->name = xstrndup(f, (size_t)(dash1 - f));
		p->version = xstrndup(dash1 + 1, (size_t)(dot - dash1 - 1));
		p->arch = xstrndup(dot + 1, (size_t)(end - dot - 1));
	} else {
		const char *u1 = strchr(f, '_'), *u2 = u1 ? strchr(u1 + 1, '_') : NULL;

		if (len < 5 || strcmp(f + len - 4, ".deb") || !u2)
			return false;
		p->name = xstrndup(f, (size_t)(u1 - f));
		p->version = xstrndup(u1 + 1, (size_t)(u2 - u1 - 1));
		p->arch = xstrndup(u2 + 1, (size_t)(f + len - 4 - u2 - 1));
	}
	p->file = xstrdup(f);
	return true;
}

static bool pkg_matches(const char *want, const char *name)
{
	size_t n = strlen(want);

	return want[n - 1] == '.' ? !strncmp(name, want, n) && name[n] : !strcmp(name, want);
}

/*
 * Reads the installer directory for this host's package format. Fails
 * naming what is missing; the admin host's files are all it reads.
 */
static int installer_read(struct mod_ctx *mc, const char *family, struct installer *in)
{
	const char *root = mod_param_str(mc, "installer");
	DIR *dir;
	struct dirent *de;
	struct strbuf missing = STRBUF_INIT;
	int rc = 0;

	memset(in, 0, sizeof(*in));
	in->family = family;
	if (!*root)
		return mod_fail(mc, ERR_STATE, "no Spectrum Scale installer (set gpfs_installer to "
				"the extracted installer directory, which holds gpfs_rpms/ or "
				"gpfs_debs/)");
	in->dir = xasprintf("%s/%s", root, strcmp(family, "rpm") ? "gpfs_debs" : "gpfs_rpms");
	if (!(dir = opendir(in->dir)))
		return mod_fail(mc, ERR_STATE, "%s: no such directory on the admin host (gpfs_installer "
				"%s: this host needs %s packages)", in->dir, root, family);
	for (size_t k = 0; packages[k]; k++) {
		struct pkg_file best = { 0 };

		rewinddir(dir);
		while ((de = readdir(dir))) {
			struct pkg_file p = { 0 };

			if (!split_pkg_file(de->d_name, family, &p) || !pkg_matches(packages[k], p.name)) {
				free(p.name); free(p.file); free(p.version); free(p.arch);
				continue;
			}
			/* readdir's order is arbitrary: keep the first by name. */
			if (!best.file || strcmp(p.file, best.file) < 0) {
				free(best.name); free(best.file); free(best.version); free(best.arch);
				best = p;
			} else {
				free(p.name); free(p.file); free(p.version); free(p.arch);
			}
		}
		if (!best.file)
			strbuf_addf(&missing, "%s%s%s", missing.len ? ", " : "", packages[k],
				    packages[k][strlen(packages[k]) - 1] == '.' ? "*" : "");
		else
			in->pkgs[in->npkgs++] = best;
	}
	closedir(dir);
	if (missing.len) {
		rc = mod_fail(mc, ERR_STATE, "%s lacks %s: is gpfs_installer the extracted "
			      "installer (run the installer with --silent --dir DIR first)?",
			      in->dir, missing.buf);
	} else {
		char *v = xstrdup(in->pkgs[0].version), *dash = strrchr(v, '-');

		if (dash)
			*dash = '.';
		in->version = v;
		in->edition = edition_of(in->pkgs[in->npkgs - 1].name);
	}
	strbuf_release(&missing);
	return rc;
}

/* deb and rpm name the machine differently. */
static bool arch_fits(const char *pkg_arch, const char *machine)
{
	if (!strcmp(pkg_arch, "noarch") || !strcmp(pkg_arch, "all") || !strcmp(pkg_arch, machine))
		return true;
	return (!strcmp(pkg_arch, "amd64") && !strcmp(machine, "x86_64")) ||
	       (!strcmp(pkg_arch, "arm64") && !strcmp(machine, "aarch64")) ||
	       (!strcmp(pkg_arch, "ppc64el") && !strcmp(machine, "ppc64le"));
}

/* Packages to send: those the host lacks or holds in another version. */
static int plan_packages(struct mod_ctx *mc, const char *out, const struct installer *in)
{
	struct strbuf arch = STRBUF_INIT, have = STRBUF_INIT, files = STRBUF_INIT;
	struct strbuf what = STRBUF_INIT;
	int rc = 0;

	probe_value(out, "arch", &arch);
	for (size_t i = 0; i < in->npkgs; i++) {
		const struct pkg_file *p = &in->pkgs[i];
		char *key = xasprintf("pkg_%s", p->name);

		if (!arch_fits(p->arch, arch.buf)) {
			rc = mod_fail(mc, ERR_STATE, "%s/%s is built for %s; this host is %s",
				      in->dir, p->file, p->arch, arch.buf);
			free(key);
			break;
		}
		strbuf_reset(&have);
		if (!probe_value(out, key, &have) || strcmp(have.buf, p->version)) {
			strbuf_addf(&files, "%s%s", files.len ? " " : "", p->file);
			strbuf_addf(&what, "%s%s %s%s%s%s", what.len ? ", " : "", p->name, p->version,
				    have.len ? " (now " : "", have.buf, have.len ? ")" : "");
		}
		free(key);
	}
	if (!rc && files.len) {
		mod_change(mc, NULL, "install Spectrum Scale %s %s edition (%s packages from %s): %s",
			   in->version, in->edition, in->family, in->dir, what.buf);
		mod_set(mc, "files", files.buf);
	}
	strbuf_release(&arch);
	strbuf_release(&have);
	strbuf_release(&files);
	strbuf_release(&what);
	return rc;
}

/*
 * Another installed release (gpfs.base) is never replaced by deploy: only
 * `bringup upgrade` does that, node by node under the quorum guard. A host
 * at the release a finished upgrade installed is as desired (*ret_keep).
 */
static int check_release(struct mod_ctx *mc, const char *out, const struct installer *in,
			 bool *ret_keep)
{
	struct strbuf have = STRBUF_INIT;
	const char *upgraded = mod_param_str(mc, "upgraded");
	char *rel = NULL, *dash;
	int rc = 0;

	*ret_keep = false;
	for (size_t i = 0; i < in->npkgs; i++)
		if (!strcmp(in->pkgs[i].name, "gpfs.base") &&
		    probe_value(out, "pkg_gpfs.base", &have) && have.len &&
		    strcmp(have.buf, in->pkgs[i].version)) {
			/* 5.1.2-1, as packaged, is release 5.1.2.1 */
			rel = xstrdup(have.buf);
			if ((dash = strrchr(rel, '-')))
				*dash = '.';
			if (*upgraded && !strcmp(rel, upgraded) &&
			    !mod_param_bool(mc, "release_change"))
				*ret_keep = true;
			else if (!mod_param_bool(mc, "release_change"))
				rc = mod_fail(mc, ERR_RELEASE, "runs Spectrum Scale %s (gpfs.base "
					      "%s), the installer %s (gpfs_installer) holds %s: "
					      "deploy never installs another release over a "
					      "running one; change it with `bringup upgrade --to "
					      "scale=%s`, or set gpfs_installer to the running "
					      "release's installer", rel, have.buf,
					      mod_param_str(mc, "installer"), in->version,
					      in->version);
			break;
		}
	free(rel);
	strbuf_release(&have);
	return rc;
}

/* The portability layer must be built for the running kernel. */
static int plan_gpl(struct mod_ctx *mc, const char *out, const struct installer *in)
{
	struct strbuf kernel = STRBUF_INIT, built = STRBUF_INIT;
	int rc = 0;

	probe_value(out, "kernel", &kernel);
	probe_value(out, "gpl_kernel", &built);
	/*
	 * The layer for the running kernel is there: built by bringup for it, or
	 * by whoever installed GPFS. A kernel change leaves no module for the
	 * new kernel, whatever the record says.
	 */
	if (probe_is(out, "gpl_module", "yes") && (!built.len || !strcmp(built.buf, kernel.buf)))
		goto out;
	if (!probe_is(out, "headers", "yes")) {
		const char *pkg = strcmp(in->family, "rpm") ? "linux-headers-" : "kernel-devel-";

		/* --check on a bare host: say so, the admin can install them first. */
		if (!mod_checking(mc)) {
			rc = mod_fail(mc, ERR_STATE, "the kernel headers of the running kernel %s are "
				      "missing (no /lib/modules/%s/build, /usr/src/kernels or "
				      "/usr/src/linux-headers): mmbuildgpl cannot build the GPFS "
				      "portability layer; install %s%s and run again",
				      kernel.buf, kernel.buf, pkg, kernel.buf);
			goto out;
		}
		mod_note(mc, "kernel headers missing: install %s%s before the deploy", pkg, kernel.buf);
	}
	mod_change(mc, NULL, built.len && strcmp(built.buf, kernel.buf) ?
		   "rebuild the GPFS portability layer (mmbuildgpl): built for kernel %s, "
		   "running %s" : "build the GPFS portability layer (mmbuildgpl) for kernel %s%s",
		   built.len && strcmp(built.buf, kernel.buf) ? built.buf : kernel.buf,
		   built.len && strcmp(built.buf, kernel.buf) ? kernel.buf : "");
	mod_set(mc, "build", "yes");
out:
	strbuf_release(&kernel);
	strbuf_release(&built);
	return rc;
}

static int si_check(struct mod_ctx *mc)
{
	struct installer in;
	struct strbuf family = STRBUF_INIT;
	struct cmd_result res;
	bool keep = false;
	int rc;

	/* Refused before anything changes, rather than silently not built. */
	if (mod_param_bool(mc, "gui"))
		return mod_fail(mc, ERR_USAGE, "gpfs_gui is true for %s, but bringup does not "
				"install the Spectrum Scale GUI (gpfs.gui, gpfs.java and the "
				"performance-monitoring collector gpfs.gss.pmcollector, then "
				"systemctl start gpfsgui); install it with IBM's installation "
				"toolkit (./spectrumscale node add -g %s) or remove gpfs_gui from "
				"the inventory", mod_host(mc), mod_host(mc));
	rc = mod_probe(mc, "scale_install/state.sh", NULL, NULL, &res);

	if (rc) {
		cmd_result_release(&res);
		return rc;
	}
	probe_value(res.out.buf, "family", &family);
	mod_set(mc, "family", family.buf);
	rc = installer_read(mc, family.buf, &in);
	if (!rc)
		rc = check_release(mc, res.out.buf, &in, &keep);
	if (!rc && !keep)
		rc = plan_packages(mc, res.out.buf, &in);
	if (!rc)
		rc = plan_gpl(mc, res.out.buf, &in);
	if (!rc)
		mod_set(mc, "pkgdir", in.dir);
	installer_release(&in);
	strbuf_release(&family);
	cmd_result_release(&res);
	return rc;
}

/* The last n lines of text that say something (not the ---- rules), " / "-joined. */
static void last_lines(const char *text, size_t n, struct strbuf *out)
{
	const char *end = text + strlen(text), *p = end;
	const char *starts[16];
	size_t k = 0;

	while (p > text && k < n && k < 16) {
		const char *e = p, *b;

		while (e > text && (e[-1] == '\n' || e[-1] == ' '))
			e--;
		for (b = e; b > text && b[-1] != '\n'; b--)
			;
		p = b;
		if (e > b && strspn(b, "- ") < (size_t)(e - b))
			starts[k++] = b;
	}
	while (k--) {
		size_t len = strcspn(starts[k], "\n");

		while (*starts[k] == ' ')
			starts[k]++, len--;
		strbuf_addf(out, "%s%.*s", out->len ? " / " : "", (int)len, starts[k]);
	}
}

static int si_apply(struct mod_ctx *mc)
{
	const char *dest = mod_param_str(mc, "dest");
	const char *mkdir_argv[] = { "mkdir", "-p", dest, NULL };
	struct strlist files = STRLIST_INIT;
	struct cmd_result res;
	int rc = 0;

	if (*mod_get(mc, "files")) {
		char *list = xstrdup(mod_get(mc, "files")), *save = NULL;
		const char **args;

		for (char *f = strtok_r(list, " ", &save); f; f = strtok_r(NULL, " ", &save))
			strlist_push(&files, f);
		free(list);
		rc = mod_exec_ok(mc, mkdir_argv, NULL, &res);
		cmd_result_release(&res);
		for (size_t i = 0; !rc && i < files.n; i++) {
			char *local = xasprintf("%s/%s", mod_get(mc, "pkgdir"), files.v[i]);
			char *remote = xasprintf("%s/%s", dest, files.v[i]);

			rc = mod_upload(mc, local, remote, 0644);
			free(local);
			free(remote);
		}
		args = xcalloc(files.n + 3, sizeof(*args));
		args[0] = dest;
		args[1] = mod_get(mc, "family");
		for (size_t i = 0; i < files.n; i++)
			args[i + 2] = files.v[i];
		if (!rc) {
			mod_note(mc, "installing %zu Spectrum Scale packages", files.n);
			rc = mod_script_timeout(mc, "scale_install/install.sh", args,
						mod_param_uint(mc, "install_timeout"), &res);
			if (!rc && res.exit_status)
				rc = mod_fail(mc, ERR_REMOTE, "installing %s failed (exit %d): %s",
					      mod_get(mc, "files"), res.exit_status, res.err.len ?
					      res.err.buf : res.out.buf);
			cmd_result_release(&res);
		}
		free(args);
	}
	if (!rc) {
		mod_note(mc, "building the GPFS portability layer (mmbuildgpl)");
		rc = mod_script_timeout(mc, "scale_install/buildgpl.sh", NULL,
					mod_param_uint(mc, "build_timeout"), &res);
		if (!rc && res.exit_status) {
			struct strbuf tail = STRBUF_INIT;

			last_lines(res.out.len ? res.out.buf : res.err.buf, 4, &tail);
			rc = mod_fail(mc, ERR_REMOTE, "mmbuildgpl failed (exit %d): the GPFS "
				      "portability layer was not built, so GPFS cannot start here; "
				      "its output ends: %s (the whole output is in the run log)",
				      res.exit_status, tail.buf);
			strbuf_release(&tail);
		}
		cmd_result_release(&res);
	}
	strlist_clear(&files);
	return rc;
}

const struct stage_module mod_scale_install = {
	.name = "scale_install",
	.summary = "Spectrum Scale packages from the installer directory and the portability "
		   "layer (mmbuildgpl) for the running kernel",
	.version = 1,
	.flags = MOD_PER_HOST,
	.params = params,
	.check = si_check,
	.apply = si_apply,
};

/*
 * Air-gap bundles (offline.h): choosing an OFED tarball for each
 * distribution and kernel of the inventory, packing it with the other
 * offline inputs and a SHA256SUMS, and on the far side unpacking, checking
 * and pointing the hosts' variables at what came.
 */
#include "offline.h"
#include "ofed-tarball.h"
#include "../engine/rundir/bundle.h"
#include "../engine/precheck/check.h"
#include "../engine/kube/kube-objects.h"
#include "../engine/base/nodeset.h"
#include "../engine/rundir/runlog.h"
#include "../engine/ssh/ssh.h"
#include "../engine/base/strlist.h"
#include "../engine/base/template.h"
#include "../engine/base/lazylib.h"
#include "../engine/base/xalloc.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOP "bringup-offline"
#define PEERMEM_TGZ "peermem/nv_peer_memory.tar.gz"

struct candidate {
	char *path;
	struct ofed_tarball t;
	bool used;
};

/* One distribution + kernel pair and the hosts that have it. */
struct need {
	char *distro, *kernel;
	struct strlist hosts;
	size_t pick; /* index into candidates, or SIZE_MAX */
};

static const char *var_str(const struct host *h, const char *name)
{
	json_t *v = json_object_get(h->vars, name);

	return json_is_string(v) && *json_string_value(v) ? json_string_value(v) : NULL;
}

/* rhel7.6, ubuntu18.04: OFED's own naming. Caller frees; NULL when unknown. */
static char *host_distro(const struct host *h)
{
	const char *rel = var_str(h, "os_release"), *id = var_str(h, "os_id"),
		   *ver = var_str(h, "os_version_id");

	if (rel)
		return xstrdup(rel);
	return id && ver ? xasprintf("%s%s", id, ver) : NULL;
}

/* Hosts that get OFED: those with HCAs, managed switches aside. */
static bool wants_ofed(const struct host *h)
{
	return h->nhcas > 0 && !host_has_role(h, ROLE_IB_SWITCH);
}

static void add_candidate(struct candidate **c, size_t *n, const char *path)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*c)[i].path, path))
			return;
	*c = xrealloc(*c, (*n + 1) * sizeof(**c));
	memset(&(*c)[*n], 0, sizeof(**c));
	(*c)[(*n)++].path = xstrdup(path);
}

static bool is_tarball_name(const char *n)
{
	size_t l = strlen(n);

	return (l > 4 && !strcmp(n + l - 4, ".tgz")) || (l > 7 && !strcmp(n + l - 7, ".tar.gz"));
}

static int write_file(const char *path, const void *data, size_t len, struct err *err)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	FILE *f;
	int rc = 0;

	if (slash) {
		*slash = '\0';
		rc = mkdir_p(dir, err);
	}
	free(dir);
	if (rc)
		return rc;
	if (!(f = fopen(path, "w")))
		return err_set(err, ERR_IO, "cannot create %s: %s", path, strerror(errno));
	if (fwrite(data, 1, len, f) != len)
		rc = err_set(err, ERR_IO, "cannot write %s: %s", path, strerror(errno));
	if (fclose(f) && !rc)
		rc = err_set(err, ERR_IO, "cannot write %s: %s", path, strerror(errno));
	return rc;
}

static void rm_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;

	if (lstat(path, &st))
		return;
	if (S_ISDIR(st.st_mode) && (d = opendir(path))) {
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char *p = xasprintf("%s/%s", path, de->d_name);
			rm_tree(p);
			free(p);
		}
		closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

/* "HEX  NAME/..." for every regular file under path (named name in the bundle). */
static int hash_tree(const char *path, const char *name, struct strbuf *sums, struct err *err)
{
	struct stat st;
	int rc = 0;

	if (lstat(path, &st))
		return err_set(err, ERR_IO, "cannot stat %s: %s", path, strerror(errno));
	if (S_ISREG(st.st_mode)) {
		char hex[65];

		if ((rc = upload_local_sha256(path, hex, err)))
			return rc;
		strbuf_addf(sums, "%s  %s\n", hex, name);
	} else if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *de;
		struct strlist names = STRLIST_INIT;

		if (!d)
			return err_set(err, ERR_IO, "cannot list %s: %s", path, strerror(errno));
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				strlist_push(&names, de->d_name);
		closedir(d);
		for (size_t i = 0; i < names.n && !rc; i++) {
			char *p = xasprintf("%s/%s", path, names.v[i]), *n = xasprintf("%s/%s", name, names.v[i]);

			rc = hash_tree(p, n, sums, err);
			free(p);
			free(n);
		}
		strlist_clear(&names);
	}
	return rc;
}

static int gather_candidates(const struct inventory *inv, const struct offline_opts *opts,
			     struct candidate **ret, size_t *ret_n, struct err *err)
{
	struct candidate *c = NULL;
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < inv->nhosts; i++) {
		const char *t = var_str(&inv->hosts[i], "ofed_tarball");

		if (t && wants_ofed(&inv->hosts[i]))
			add_candidate(&c, &n, t);
	}
	if (opts->ofed_dir) {
		DIR *d = opendir(opts->ofed_dir);
		struct dirent *de;

		if (!d) {
			rc = err_set(err, ERR_IO, "cannot list %s: %s", opts->ofed_dir, strerror(errno));
			goto out;
		}
		while ((de = readdir(d)))
			if (is_tarball_name(de->d_name)) {
				char *p = xasprintf("%s/%s", opts->ofed_dir, de->d_name);

				add_candidate(&c, &n, p);
				free(p);
			}
		closedir(d);
	}
	for (size_t i = 0; i < n && !rc; i++)
		rc = ofed_tarball_inspect(c[i].path, &c[i].t, err);
out:
	*ret = c;
	*ret_n = n;
	return rc;
}

static void free_candidates(struct candidate *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].path);
		ofed_tarball_release(&c[i].t);
	}
	free(c);
}

static size_t pick_for(const struct candidate *c, size_t n, const char *distro, const char *kernel)
{
	size_t any = SIZE_MAX;

	for (size_t i = 0; i < n; i++) {
		if (!c[i].t.distro || strcmp(c[i].t.distro, distro))
			continue;
		if (strlist_index(&c[i].t.kernels, kernel) >= 0)
			return i; /* built for this very kernel: the best fit */
		if (!c[i].t.kernels.n && any == SIZE_MAX)
			any = i;  /* does not say: add_kernel_support handles it */
	}
	return any;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Every string under an "image" key of v, at any depth, into out. */
static void collect_images(const json_t *v, struct strlist *out)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_array(v))
		json_array_foreach(v, i, x)
			collect_images(x, out);
	if (!json_is_object(v))
		return;
	json_object_foreach((json_t *)v, k, x) {
		if (!strcmp(k, "image") && json_is_string(x)) {
			if (strlist_index(out, json_string_value(x)) < 0)
				strlist_push(out, json_string_value(x));
		} else {
			collect_images(x, out);
		}
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int offline_images(const struct inventory *inv, struct strlist *out, struct err *err)
{
	/*
	 * Bundles are made before any deploy, so the Scale records the
	 * PersistentVolume's volumeHandle needs are not known yet; no image
	 * depends on them, so stand-ins let the objects render. Where the
	 * inventory gives openshift.scale, those win (records are looked up first
	 * only when non-empty).
	 */
	json_t *os = json_object_get(inv->vars, "openshift");
	json_t *scale = json_object_get(os, "scale");
	json_t *records = json_object();
	struct kube_objects objs = { 0 };
	int rc;

	if (!json_object_get(scale, "cluster_id"))
		json_object_set_new(records, "scale.cluster_id", json_string("bundle"));
	if (!json_object_get(scale, "filesystem_uid"))
		json_object_set_new(records, "scale.filesystem_uid", json_string("bundle"));
	if (!json_object_get(scale, "mount_point"))
		json_object_set_new(records, "scale.mount_point", json_string("/bundle"));
	rc = kube_objects_build(inv, records, &objs, err);
	json_decref(records);
	if (rc)
		return rc;
	for (size_t i = 0; i < objs.n; i++)
		collect_images(objs.v[i].obj, out);
	qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	kube_objects_release(&objs);
	return 0;
}

int offline_bundle_create(const struct inventory *inv, const struct offline_opts *opts,
			  const char *out, struct strbuf *report, struct err *err)
{
	struct candidate *cand = NULL;
	struct need *needs = NULL;
	size_t ncand = 0, nneeds = 0, nitems = 0;
	struct strlist unknown = STRLIST_INIT, images = STRLIST_INIT;
	struct strbuf refuse = STRBUF_INIT, sums = STRBUF_INIT;
	struct bundle_item items[64];
	char *names[64] = { 0 };
	const char *scale = NULL;
	char tmpl[] = "/tmp/bringup-offline.XXXXXX";
	char *stage = NULL;
	json_t *manifest = json_object(), *mhosts = json_object();
	int rc;

	if ((rc = gather_candidates(inv, opts, &cand, &ncand, err)))
		goto out;
	for (size_t i = 0; i < inv->nhosts; i++) {
		const struct host *h = &inv->hosts[i];
		char *distro;
		const char *kernel = var_str(h, "kernel");
		size_t k;

		if (!scale)
			scale = var_str(h, "gpfs_installer");
		if (!wants_ofed(h))
			continue;
		distro = host_distro(h);
		if (!distro || !kernel) {
			strlist_push(&unknown, h->name);
			free(distro);
			continue;
		}
		for (k = 0; k < nneeds; k++)
			if (!strcmp(needs[k].distro, distro) && !strcmp(needs[k].kernel, kernel))
				break;
		if (k == nneeds) {
			needs = xrealloc(needs, (nneeds + 1) * sizeof(*needs));
			needs[k] = (struct need){ xstrdup(distro), xstrdup(kernel), STRLIST_INIT,
						  pick_for(cand, ncand, distro, kernel) };
			nneeds++;
		}
		strlist_push(&needs[k].hosts, h->name);
		free(distro);
	}
	if (unknown.n) {
		char *set = nodeset_fold(unknown.v, unknown.n);

		strbuf_addf(&refuse, "\n  distribution or kernel unknown (set os_id and os_version_id, "
			    "or os_release, and kernel): %s", set);
		free(set);
	}
	for (size_t k = 0; k < nneeds; k++) {
		if (needs[k].pick == SIZE_MAX) {
			char *set = nodeset_fold(needs[k].hosts.v, needs[k].hosts.n);

			strbuf_addf(&refuse, "\n  no OFED tarball for %s kernel %s: %s", needs[k].distro,
				    needs[k].kernel, set);
			free(set);
			continue;
		}
		cand[needs[k].pick].used = true;
		for (size_t j = 0; j < needs[k].hosts.n; j++) {
			const struct candidate *c = &cand[needs[k].pick];
			char *rel = xasprintf("ofed/%s", base_name(c->path));

			json_object_set_new(mhosts, needs[k].hosts.v[j],
					    json_pack("{s:s, s:s, s:s, s:s}", "distro", needs[k].distro,
						      "kernel", needs[k].kernel, "ofed", rel,
						      "ofed_sha256", c->t.sha256));
			free(rel);
		}
	}
	if (refuse.len) {
		rc = err_set(err, ERR_INVENTORY, "offline bundle refused, it would miss nodes "
			     "(tarballs from ofed_tarball and --ofed):%s", refuse.buf);
		goto out;
	}
	if (scale) {
		struct stat st;

		if (stat(scale, &st) || !S_ISDIR(st.st_mode)) {
			rc = err_set(err, ERR_NOTFOUND, "gpfs_installer %s is not a directory", scale);
			goto out;
		}
	}

	if (json_is_object(json_object_get(inv->vars, "openshift")) &&
	    (rc = offline_images(inv, &images, err)))
		goto out;

	/* What bringup writes itself goes to a staging directory first. */
	if (!mkdtemp(tmpl)) {
		rc = err_set(err, ERR_IO, "cannot create a staging directory: %s", strerror(errno));
		goto out;
	}
	stage = xstrdup(tmpl);
	json_object_set_new(manifest, "cluster", json_string(inv->cluster_name));
	json_object_set(manifest, "hosts", mhosts);
	json_object_set_new(manifest, "scale", scale ? json_string("scale") : json_null());
	json_object_set_new(manifest, "peermem", opts->peermem_dir ? json_string(PEERMEM_TGZ) : json_null());
	if (opts->peermem_dir) {
		/* One tarball, as the peermem stage uploads and unpacks it on a host
		 * that lacks the sources (peermem_tarball). */
		struct bundle_item src = { opts->peermem_dir, "nv_peer_memory" };
		char *d = xasprintf("%s/peermem", stage), *p = xasprintf("%s/" PEERMEM_TGZ, stage);
		struct stat st;

		if (stat(opts->peermem_dir, &st) || !S_ISDIR(st.st_mode))
			rc = err_set(err, ERR_NOTFOUND, "--peermem %s is not a directory", opts->peermem_dir);
		if (!rc && !(rc = mkdir_p(d, err)))
			rc = bundle_write(p, &src, 1, NULL, err);
		free(d);
		free(p);
		if (rc)
			goto out;
	}
	{
		char *text = json_dumps(manifest, JSON_INDENT(2) | JSON_SORT_KEYS);
		char *p = xasprintf("%s/manifest.json", stage);

		rc = write_file(p, text, strlen(text), err);
		free(p);
		free(text);
	}
	for (unsigned i = 0; i < template_nassets && !rc; i++) {
		const struct template_asset *a = &template_assets[i];
		char *p = xasprintf("%s/manifests/%s", stage, a->name);

		rc = write_file(p, a->data, a->len, err);
		free(p);
	}
	if (!rc) {
		struct strbuf text = STRBUF_INIT;
		char *p = xasprintf("%s/images.txt", stage);

		for (size_t i = 0; i < images.n; i++)
			strbuf_addf(&text, "%s\n", images.v[i]);
		rc = write_file(p, text.buf, text.len, err);
		free(p);
		strbuf_release(&text);
	}
	if (!rc) {
		size_t len;
		const char *te = template_get("selinux/infiniband.te", &len);
		char *p = xasprintf("%s/selinux/infiniband.te", stage);

		rc = te ? write_file(p, te, len, err) :
			  err_set(err, ERR_INTERNAL, "no template selinux/infiniband.te");
		free(p);
	}
	if (rc || (rc = hash_tree(stage, TOP, &sums, err)))
		goto out;
	/* Staged files hash under TOP/...; the rest keeps its bundle name. */
	items[nitems].path = stage;
	names[nitems] = xstrdup(TOP);
	items[nitems].name = names[nitems];
	nitems++;
	for (size_t i = 0; i < ncand && nitems < 60; i++) {
		if (!cand[i].used)
			continue;
		names[nitems] = xasprintf(TOP "/ofed/%s", base_name(cand[i].path));
		strbuf_addf(&sums, "%s  %s\n", cand[i].t.sha256, names[nitems]);
		items[nitems].path = cand[i].path;
		items[nitems].name = names[nitems];
		strbuf_addf(report, "ofed: %s (%s)\n", base_name(cand[i].path), cand[i].t.distro);
		nitems++;
	}
	if (scale) {
		names[nitems] = xstrdup(TOP "/scale");
		if ((rc = hash_tree(scale, names[nitems], &sums, err)))
			goto out;
		items[nitems].path = scale;
		items[nitems].name = names[nitems];
		strbuf_addf(report, "scale: %s\n", scale);
		nitems++;
	}
	if (opts->peermem_dir)
		strbuf_addf(report, "peermem: %s (" PEERMEM_TGZ ")\n", opts->peermem_dir);
	{
		/* Paths relative to TOP, as `sha256sum -c` run inside it reads them. */
		struct strbuf rel = STRBUF_INIT;
		char *p = xasprintf("%s/SHA256SUMS", stage);

		for (const char *l = sums.buf; *l;) {
			size_t n = strcspn(l, "\n");

			strbuf_add(&rel, l, 66);
			strbuf_add(&rel, l + 66 + strlen(TOP "/"), n - 66 - strlen(TOP "/"));
			strbuf_addch(&rel, '\n');
			l += n + (l[n] == '\n');
		}
		rc = write_file(p, rel.buf, rel.len, err);
		free(p);
		strbuf_release(&rel);
	}
	if (rc || (rc = bundle_write(out, items, nitems, NULL, err)))
		goto out;
	strbuf_addf(report, "selinux: infiniband.te\nmanifests: %u files\n", template_nassets);
	if (images.n)
		strbuf_addf(report, "images: %zu in images.txt\n", images.n);
	else if (json_is_object(json_object_get(inv->vars, "openshift")))
		strbuf_addf(report, "images: none (the rendered objects name no image)\n");
	else
		strbuf_addf(report, "images: none (the inventory has no openshift section: "
			    "images.txt is empty)\n");
out:
	strlist_clear(&images);
	if (stage)
		rm_tree(stage);
	free(stage);
	for (size_t i = 0; i < nitems; i++)
		free(names[i]);
	for (size_t k = 0; k < nneeds; k++) {
		free(needs[k].distro);
		free(needs[k].kernel);
		strlist_clear(&needs[k].hosts);
	}
	free(needs);
	free_candidates(cand, ncand);
	strlist_clear(&unknown);
	strbuf_release(&refuse);
	strbuf_release(&sums);
	json_decref(mhosts);
	json_decref(manifest);
	return rc;
}

int offline_sums_parse(const char *text, size_t len,
		       int (*fn)(const char *path, const char *hex, void *arg), void *arg,
		       struct err *err)
{
	unsigned lineno = 0;
	int rc = 0;

	for (size_t at = 0; at < len && !rc;) {
		const char *l = text + at;
		size_t n = 0;
		char hex[65], *path;

		while (at + n < len && l[n] != '\n')
			n++;
		at += n + 1;
		lineno++;
		if (!n)
			continue;
		if (n < 67 || (l[64] != ' ') || (l[65] != ' ' && l[65] != '*'))
			return err_set(err, ERR_PARSE, "SHA256SUMS:%u: not \"HEX  PATH\"", lineno);
		for (int i = 0; i < 64; i++)
			if (!strchr("0123456789abcdef", l[i]) || !l[i])
				return err_set(err, ERR_PARSE, "SHA256SUMS:%u: not a SHA-256", lineno);
		memcpy(hex, l, 64);
		hex[64] = '\0';
		path = xstrndup(l + 66, n - 66);
		if (strlen(path) != n - 66 || path[0] == '/' || !strcmp(path, "..") ||
		    !strncmp(path, "../", 3) || strstr(path, "/../") ||
		    (strlen(path) >= 3 && !strcmp(path + strlen(path) - 3, "/..")))
			rc = err_set(err, ERR_PARSE, "SHA256SUMS:%u: path outside the bundle", lineno);
		else
			rc = fn(path, hex, arg);
		free(path);
	}
	return rc;
}

struct verify {
	const char *top;      /* the unpacked TOP directory */
	struct strlist seen;  /* paths SHA256SUMS lists */
	struct err *err;
};

static int verify_one(const char *path, const char *hex, void *arg)
{
	struct verify *v = arg;
	char *full = xasprintf("%s/%s", v->top, path), have[65];
	int rc = upload_local_sha256(full, have, v->err);

	if (!rc && strcmp(have, hex))
		rc = err_set(v->err, ERR_PARSE, "bundle: %s does not match SHA256SUMS (damaged or "
			     "changed)", path);
	else if (rc)
		rc = err_set(v->err, ERR_PARSE, "bundle: %s is listed in SHA256SUMS but missing", path);
	strlist_push(&v->seen, path);
	free(full);
	return rc;
}

/* Every regular file under dir must have been listed. */
static int check_listed(const char *dir, const char *rel, struct verify *v)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return err_set(v->err, ERR_IO, "cannot list %s: %s", dir, strerror(errno));
	while (!rc && (de = readdir(d))) {
		struct stat st;
		char *p, *r;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		r = *rel ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
		if (!lstat(p, &st)) {
			if (S_ISDIR(st.st_mode))
				rc = check_listed(p, r, v);
			else if (strcmp(r, "SHA256SUMS") && strlist_index(&v->seen, r) < 0)
				rc = err_set(v->err, ERR_PARSE, "bundle: %s is not in SHA256SUMS", r);
		}
		free(p);
		free(r);
	}
	closedir(d);
	return rc;
}

static int unpack(const char *bundle, const char *dir, struct err *err)
{
	int lib = lazylib_archive(err);

	if (lib)
		return lib;

	struct archive *a = archive_read_new(), *w = archive_write_disk_new();
	struct archive_entry *e;
	int r, rc = 0;

	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	/* Entry names are checked to start with TOP/ (so relative); the unpacked
	 * path is dir/NAME, absolute, hence no SECURE_NOABSOLUTEPATHS. */
	archive_write_disk_set_options(w, ARCHIVE_EXTRACT_SECURE_NODOTDOT |
				       ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_PERM);
	if (archive_read_open_filename(a, bundle, 65536) != ARCHIVE_OK) {
		rc = err_set(err, ERR_IO, "cannot read %s: %s", bundle, archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		char *to;

		if (strncmp(name, TOP, strlen(TOP)) || (name[strlen(TOP)] && name[strlen(TOP)] != '/')) {
			rc = err_set(err, ERR_PARSE, "%s: %s is outside " TOP "/: not an offline bundle",
				     bundle, name);
			goto out;
		}
		to = xasprintf("%s/%s", dir, name);
		archive_entry_set_pathname(e, to);
		free(to);
		if (archive_write_header(w, e) != ARCHIVE_OK) {
			rc = err_set(err, ERR_IO, "%s: %s", bundle, archive_error_string(w));
			goto out;
		}
		for (;;) {
			const void *buf;
			size_t len;
			la_int64_t off;

			r = archive_read_data_block(a, &buf, &len, &off);
			if (r == ARCHIVE_EOF)
				break;
			if (r != ARCHIVE_OK || archive_write_data_block(w, buf, len, off) != ARCHIVE_OK) {
				rc = err_set(err, ERR_IO, "%s: %s", bundle, archive_error_string(a));
				goto out;
			}
		}
		archive_write_finish_entry(w);
	}
	if (r != ARCHIVE_EOF)
		rc = err_set(err, ERR_PARSE, "%s: %s", bundle, archive_error_string(a));
out:
	archive_read_free(a);
	archive_write_free(w);
	return rc;
}

static char *slurp(const char *path, size_t *ret_len, struct err *err)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		err_set(err, ERR_PARSE, "bundle: no %s", path);
		return NULL;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		strbuf_add(&sb, buf, (size_t)n);
	close(fd);
	return strbuf_detach(&sb, ret_len);
}

int offline_bundle_use(const char *bundle, const char *dir, struct inventory *inv,
		       struct strbuf *report, struct err *err)
{
	struct verify v = { NULL, STRLIST_INIT, err };
	struct strlist missing = STRLIST_INIT;
	char *top = xasprintf("%s/" TOP, dir), *sums = NULL, *mpath = NULL;
	json_t *manifest = NULL, *hosts, *scale, *peermem;
	json_error_t je;
	size_t len;
	int rc;

	rm_tree(top); /* a bundle unpacked before must not leave files of its own */
	if ((rc = mkdir_p(dir, err)) || (rc = unpack(bundle, dir, err)))
		goto out;
	v.top = top;
	mpath = xasprintf("%s/SHA256SUMS", top);
	if (!(sums = slurp(mpath, &len, err))) {
		rc = err->code;
		goto out;
	}
	if ((rc = offline_sums_parse(sums, len, verify_one, &v, err)) ||
	    (rc = check_listed(top, "", &v)))
		goto out;
	free(mpath);
	mpath = xasprintf("%s/manifest.json", top);
	if (!(manifest = json_load_file(mpath, 0, &je))) {
		rc = err_set(err, ERR_PARSE, "%s:%d:%d: %s", mpath, je.line, je.column, je.text);
		goto out;
	}
	hosts = json_object_get(manifest, "hosts");
	scale = json_object_get(manifest, "scale");
	peermem = json_object_get(manifest, "peermem");
	/* Bundles of an earlier format held a source tree there, not the tarball. */
	if (json_is_string(peermem) && strcmp(json_string_value(peermem), PEERMEM_TGZ))
		peermem = NULL;
	for (size_t i = 0; i < inv->nhosts; i++) {
		struct host *h = &inv->hosts[i];
		json_t *mh = json_object_get(hosts, h->name);
		const char *ofed = json_string_value(json_object_get(mh, "ofed"));
		const char *sha = json_string_value(json_object_get(mh, "ofed_sha256"));

		if (json_is_string(scale))
			json_object_set_new(h->vars, "gpfs_installer",
					    json_sprintf("%s/%s", top, json_string_value(scale)));
		if (json_is_string(peermem))
			json_object_set_new(h->vars, "peermem_tarball",
					    json_sprintf("%s/%s", top, json_string_value(peermem)));
		if (!wants_ofed(h))
			continue;
		if (!ofed || strstr(ofed, "..")) {
			strlist_push(&missing, h->name);
			continue;
		}
		json_object_set_new(h->vars, "ofed_tarball", json_sprintf("%s/%s", top, ofed));
		if (sha)
			json_object_set_new(h->vars, "ofed_sha256", json_string(sha));
	}
	if (missing.n) {
		char *set = nodeset_fold(missing.v, missing.n);

		rc = err_set(err, ERR_INVENTORY, "bundle %s has no OFED tarball for %s (made for "
			     "another inventory?)", bundle, set);
		free(set);
		goto out;
	}
	strbuf_addf(report, "from-bundle: %s checked (%zu files), unpacked in %s\n", bundle,
		    v.seen.n, top);
out:
	json_decref(manifest);
	strlist_clear(&v.seen);
	strlist_clear(&missing);
	free(sums);
	free(mpath);
	free(top);
	return rc;
}

/*
 * modules/ofed-tarball.c: bundles written here with libarchive the way
 * MLNX_OFED ships them are read back (release, distribution, architecture,
 * kernels, the same SHA-256 as sha256sum); bundles that are not MLNX_OFED,
 * or whose files contradict their directory name, fail with what is wrong;
 * the namings of a release compare equal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/base/xalloc.h"
#include "../../modules/ofed-tarball.h"

#define TOP "MLNX_OFED_LINUX-4.7-3.2.9.0-rhel7.6-x86_64"

struct entry {
	const char *path;
	const char *content; /* NULL: a directory */
};

static char dir[] = "/tmp/bringup-test-ofed.XXXXXX";

/* Writes dir/NAME as a gzipped tar of the entries; returns its path (owned). */
static char *write_tgz(const char *name, const struct entry *e)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct archive *a = archive_write_new();

	archive_write_add_filter_gzip(a);
	archive_write_set_format_pax_restricted(a);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (; e->path; e++) {
		struct archive_entry *ae = archive_entry_new();
		size_t len = e->content ? strlen(e->content) : 0;

		archive_entry_set_pathname(ae, e->path);
		archive_entry_set_filetype(ae, e->content ? AE_IFREG : AE_IFDIR);
		archive_entry_set_perm(ae, e->content ? 0644 : 0755);
		archive_entry_set_size(ae, (la_int64_t)len);
		assert_int_equal(archive_write_header(a, ae), ARCHIVE_OK);
		if (len)
			assert_int_equal(archive_write_data(a, e->content, len), (la_ssize_t)len);
		archive_entry_free(ae);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	return path;
}

static const struct entry good[] = {
	{ TOP "/", NULL },
	{ TOP "/mlnxofedinstall", "#!/bin/sh\n" },
	{ TOP "/.mlnx", "4.7-3.2.9.0\n" },
	{ TOP "/distro", "rhel7.6\n" },
	{ TOP "/.arch", "x86_64\n" },
	{ TOP "/.supported_kernels", "3.10.0-957.el7.x86_64\n3.10.0-1062.el7.x86_64\n" },
	{ TOP "/RPMS/", NULL },
	{ TOP "/RPMS/mlnx-ofa_kernel-4.7.rpm", "rpm" },
	{ NULL, NULL },
};

static void sha256sum_of(const char *path, char hex[65])
{
	char *cmd = xasprintf("sha256sum '%s'", path);
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	assert_int_equal(fscanf(p, "%64s", hex), 1);
	pclose(p);
	free(cmd);
}

static void test_reads_a_bundle(void **state)
{
	char *path = write_tgz("good.tgz", good);
	struct ofed_tarball t;
	struct err e = ERR_INIT;
	char hex[65];

	(void)state;
	assert_int_equal(ofed_tarball_inspect(path, &t, &e), 0);
	assert_string_equal(t.top, TOP);
	assert_string_equal(t.version, "MLNX_OFED_LINUX-4.7-3.2.9.0");
	assert_string_equal(t.distro, "rhel7.6");
	assert_string_equal(t.arch, "x86_64");
	assert_int_equal(t.kernels.n, 2);
	assert_string_equal(t.kernels.v[1], "3.10.0-1062.el7.x86_64");
	sha256sum_of(path, hex);
	assert_string_equal(t.sha256, hex);
	assert_true(t.size > 0);
	ofed_tarball_release(&t);

	/* A second reading comes from the cache, as a copy of its own. */
	assert_int_equal(ofed_tarball_inspect(path, &t, &e), 0);
	assert_string_equal(t.sha256, hex);
	ofed_tarball_release(&t);
	ofed_tarball_release(NULL);
	unlink(path);
	free(path);
}

static void expect_refused(const char *name, const struct entry *entries, int code,
			   const char *what)
{
	char *path = write_tgz(name, entries);
	struct ofed_tarball t;
	struct err e = ERR_INIT;

	assert_int_equal(ofed_tarball_inspect(path, &t, &e), code);
	if (!strstr(err_msg(&e), what))
		fail_msg("%s: '%s' lacks '%s'", name, err_msg(&e), what);
	assert_null(t.top);
	err_clear(&e);
	unlink(path);
	free(path);
}

static void test_refuses_what_is_not_a_bundle(void **state)
{
	static const struct entry no_installer[] = {
		{ TOP "/.mlnx", "4.7-3.2.9.0\n" }, { TOP "/distro", "rhel7.6\n" }, { NULL, NULL },
	};
	static const struct entry wrong_distro[] = {
		{ TOP "/mlnxofedinstall", "x" }, { TOP "/.mlnx", "4.7-3.2.9.0\n" },
		{ TOP "/distro", "rhel9.4\n" }, { NULL, NULL },
	};
	static const struct entry wrong_release[] = {
		{ TOP "/mlnxofedinstall", "x" }, { TOP "/.mlnx", "4.6-1.0.1.1\n" },
		{ TOP "/distro", "rhel7.6\n" }, { NULL, NULL },
	};
	static const struct entry two_tops[] = {
		{ TOP "/mlnxofedinstall", "x" }, { "other/.mlnx", "4.7-3.2.9.0\n" },
		{ NULL, NULL },
	};
	static const struct entry bad_name[] = {
		{ "ofed/mlnxofedinstall", "x" }, { NULL, NULL },
	};
	struct err e = ERR_INIT;
	struct ofed_tarball t;
	char *junk = xasprintf("%s/junk.tgz", dir);
	FILE *f = fopen(junk, "w");

	(void)state;
	expect_refused("no-installer.tgz", no_installer, ERR_PARSE, TOP "/mlnxofedinstall missing");
	expect_refused("distro.tgz", wrong_distro, ERR_PARSE,
		       "distro file says rhel9.4 but the directory is " TOP);
	expect_refused("release.tgz", wrong_release, ERR_PARSE, ".mlnx says 4.6-1.0.1.1");
	expect_refused("two.tgz", two_tops, ERR_PARSE, "more than one top directory");
	expect_refused("name.tgz", bad_name, ERR_PARSE, "'ofed' is not named like");

	assert_non_null(f);
	fputs("this is not a tarball\n", f);
	fclose(f);
	assert_int_not_equal(ofed_tarball_inspect(junk, &t, &e), 0);
	assert_non_null(strstr(err_msg(&e), junk));
	err_clear(&e);
	unlink(junk);
	assert_int_equal(ofed_tarball_inspect(junk, &t, &e), ERR_IO);
	assert_non_null(strstr(err_msg(&e), "No such file"));
	err_clear(&e);
	free(junk);
}

static void test_names(void **state)
{
	struct strbuf v = STRBUF_INIT, d = STRBUF_INIT, a = STRBUF_INIT;
	static const char *const same[] = {
		"MLNX_OFED_LINUX-24.10-1.1.4.0", "MLNX_OFED_LINUX-24.10-1.1.4.0:",
		"OFED-internal-24.10-1.1.4.0:", "DOCA-OFED-24.10-1.1.4.0", "24.10-1.1.4.0",
	};

	(void)state;
	assert_true(ofed_split_top("MLNX_OFED_LINUX-24.10-1.1.4.0-ubuntu22.04-aarch64", &v, &d, &a));
	assert_string_equal(v.buf, "MLNX_OFED_LINUX-24.10-1.1.4.0");
	assert_string_equal(d.buf, "ubuntu22.04");
	assert_string_equal(a.buf, "aarch64");
	strbuf_reset(&v);
	assert_false(ofed_split_top("MLNX_OFED_LINUX-rhel7.6-x86_64", &v, &d, &a));
	assert_false(ofed_split_top("MLNX_OFED_LINUX-4.7-", &v, &d, &a));
	assert_false(ofed_split_top("x86_64", &v, &d, &a));
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		strbuf_reset(&v);
		ofed_release(same[i], &v);
		assert_string_equal(v.buf, "24.10-1.1.4.0");
	}
	strbuf_release(&v);
	strbuf_release(&d);
	strbuf_release(&a);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_a_bundle),
		cmocka_unit_test(test_refuses_what_is_not_a_bundle),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/* modules/offline.c: the SHA256SUMS reader of air-gap bundles and the
 * container images of images.txt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

#include "../../engine/inventory/inventory.h"
#include "../../engine/base/strlist.h"
#include "../../modules/offline.h"

#define H "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static int collect(const char *path, const char *hex, void *arg)
{
	assert_string_equal(hex, H);
	strlist_push(arg, path);
	return 0;
}

static int parse(const char *text, struct strlist *out, struct err *e)
{
	return offline_sums_parse(text, strlen(text), collect, out, e);
}

static void test_sha256sum_lines_parse(void **state)
{
	struct strlist l = STRLIST_INIT;
	struct err e = ERR_INIT;

	(void)state;
	assert_int_equal(parse(H "  manifest.json\n" H " *ofed/a b.tgz\n\n", &l, &e), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0], "manifest.json");
	assert_string_equal(l.v[1], "ofed/a b.tgz");
	strlist_clear(&l);
}

static void test_bad_lines_are_refused_by_line(void **state)
{
	static const char *const bad[] = {
		H " manifest.json\n",               /* one space */
		"E3B0" H "  x\n",                   /* not lower hex of 64 */
		H "  /etc/passwd\n",                /* absolute */
		H "  ../x\n", H "  a/../../x\n", H "  a/..\n", H "  ..\n",
		"short\n",
	};
	struct strlist l = STRLIST_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct err e = ERR_INIT;

		assert_int_equal(parse(bad[i], &l, &e), ERR_PARSE);
		assert_non_null(strstr(e.msg, "SHA256SUMS:1:"));
		err_clear(&e);
	}
	assert_int_equal(l.n, 0);
	{
		struct err e = ERR_INIT;

		assert_int_equal(parse(H "  ok\n" H "  /abs\n", &l, &e), ERR_PARSE);
		assert_non_null(strstr(e.msg, "SHA256SUMS:2:"));
		err_clear(&e);
	}
	strlist_clear(&l);
}

/*
 * The Redpaper PoC inventory: the RDMA device plugin's image and the
 * TensorFlow image of its NCCL and ResNet-50 jobs, once each, sorted,
 * without any deploy records (a bundle is made before the deploy).
 */
static void test_images_of_the_rendered_objects(void **state)
{
	struct inventory *inv = NULL;
	struct strlist l = STRLIST_INIT;
	struct err e = ERR_INIT;

	(void)state;
	if (inventory_load("inventory/redbook-poc.yaml", &inv, &e))
		fail_msg("%s", err_msg(&e));
	if (offline_images(inv, &l, &e))
		fail_msg("%s", err_msg(&e));
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0], "ghcr.io/mellanox/k8s-rdma-shared-dev-plugin");
	assert_string_equal(l.v[1], "nvcr.io/nvidia/tensorflow:20.03-tf2-py3");
	strlist_clear(&l);
	inventory_free(inv);
}

/* A broken openshift section is the render's error, not an empty list. */
static void test_images_refuse_a_bad_openshift_section(void **state)
{
	static const char y[] =
		"cluster:\n  name: t\n  vars:\n    openshift: { user_namespaces: ml }\n"
		"hosts:\n  g1: { address: 127.0.0.1 }\n";
	struct inventory *inv = NULL;
	struct strlist l = STRLIST_INIT;
	struct err e = ERR_INIT;

	(void)state;
	if (inventory_load_buf("inv.yaml", y, strlen(y), &inv, &e))
		fail_msg("%s", err_msg(&e));
	assert_int_equal(offline_images(inv, &l, &e), ERR_INVENTORY);
	assert_non_null(strstr(err_msg(&e), "openshift"));
	assert_int_equal(l.n, 0);
	err_clear(&e);
	inventory_free(inv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256sum_lines_parse),
		cmocka_unit_test(test_bad_lines_are_refused_by_line),
		cmocka_unit_test(test_images_of_the_rendered_objects),
		cmocka_unit_test(test_images_refuse_a_bad_openshift_section),
	};
	return cmocka_run_group_tests_name("offline", tests, NULL, NULL);
}

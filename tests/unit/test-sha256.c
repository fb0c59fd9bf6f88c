/* engine/base/sha256.c against FIPS 180-4's examples (NIST CSRC "Example
 * Algorithms": SHA256.pdf), one- and two-block messages and one of 1,000,000
 * bytes, and kubectl's ApplySet id built on it (kube-prune.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../engine/base/sha256.h"
#include "../../engine/kube/kube-prune.h"

static void hex(const uint8_t d[32], char out[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void check(const char *msg, size_t len, const char *want)
{
	uint8_t d[32];
	char h[65];

	sha256(msg, len, d);
	hex(d, h);
	assert_string_equal(h, want);
}

static void test_fips_examples(void **state)
{
	static const char two[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char *million = malloc(1000000);

	(void)state;
	check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', 1000000);
	check(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
	/* 55, 56 and 64 bytes: the padding's edges (sha256sum of the same) */
	check("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 55,
	      "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	check("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 56,
	      "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	check("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 64,
	      "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

static void test_applyset_id(void **state)
{
	char *id = kube_applyset_id(), *gk = kube_prune_group_kinds();

	(void)state;
	/* python3: base64.urlsafe_b64encode(hashlib.sha256(
	 * b"bringup-applyset.kube-system.ConfigMap.").digest()).rstrip(b"=") */
	assert_string_equal(id, "applyset-p1ycAcwFQqF2qX5SS-_cKAp1z5UjkUSJp_jUnKd-Qis-v1");
	assert_string_equal(gk, "CSIScaleOperator.csi.ibm.com,ConfigMap,DaemonSet.apps,"
			    "PersistentVolume,PersistentVolumeClaim,Role.rbac.authorization.k8s.io,"
			    "RoleBinding.rbac.authorization.k8s.io,"
			    "SecurityContextConstraints.security.openshift.io,ServiceAccount");
	free(id);
	free(gk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips_examples),
		cmocka_unit_test(test_applyset_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

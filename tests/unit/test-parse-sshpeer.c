/* engine/facts/parse-sshpeer.c: what precheck's ssh-peer.sh prints
 * (tests/fixtures/tools/ssh-peer/). */
#include "parse-fixture.h"

static void test_ssh_peer_refusals(void **state)
{
	json_t *j = parse_fixture("ssh-peer", "ssh_peer_one_ok_three_refused.txt");

	(void)state;
	assert_jbool_at(j, "ok", 1);
	assert_jsize_at(j, "peers", 4);
	assert_jstr_at(j, "peers/0/host", "dgx02");
	assert_jbool_at(j, "peers/0/ok", 1);
	assert_null(jpath(j, "peers/0/error"));
	assert_jstr_at(j, "peers/1/host", "dgx03");
	assert_jbool_at(j, "peers/1/ok", 0);
	assert_jint_at(j, "peers/1/rc", 255);
	assert_jstr_at(j, "peers/1/error", "root@dgx03: Permission denied (publickey).");
	assert_jstr_at(j, "peers/2/error", "Host key verification failed.");
	assert_jint_at(j, "peers/3/rc", 124);
	json_decref(j);
	/* a failure without a message keeps its status */
	j = parse_text("ssh-peer", "dgx02 fail 255 \n", 15);
	assert_jstr_at(j, "peers/0/error", "(no message)");
	json_decref(j);
}

static void test_ssh_peer_errors(void **state)
{
	static const char *const bad[] = {
		"dgx02\n", "dgx02 maybe\n", "dgx02 ok extra\n", "dgx02 fail\n", "dgx02 fail x msg\n",
	};
	const struct parser *p = parser_lookup("ssh-peer");

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct err err = ERR_INIT;
		json_t *out = NULL;

		assert_int_not_equal(p->fn(bad[i], strlen(bad[i]), &out, &err), 0);
		assert_null(out);
		assert_non_null(strstr(err_msg(&err), "line 1"));
		err_clear(&err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ssh_peer_refusals),
		cmocka_unit_test(test_ssh_peer_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
